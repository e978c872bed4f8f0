"""The options of every owner of owned work (service/ownership.py): the
decision engines' audits, the appliers' action plans. The sweep finds
work whose message to its owner was lost; the grace leaves new work to
the owner its message reaches first."""

from oslo_config import cfg


def opts(work, new_work, owner, lost):
    """[sweep_interval, pending_grace] of the owners (``owner``: 'engine')
    of ``work`` ('audits'); ``new_work``: one piece of it as it waits
    ('a new PENDING audit'); ``lost``: why a sweep may find some."""
    return [
        cfg.IntOpt(
            'sweep_interval', default=10, min=1, mutable=True,
            help='Seconds between two looks for %s nobody took (%s).'
                 % (work, lost)),
        cfg.IntOpt(
            'pending_grace', default=5, min=0, mutable=True,
            help='Seconds %s is left to the %s its message reaches before '
                 'the sweep of any %s takes it.' % (new_work, owner, owner)),
    ]
