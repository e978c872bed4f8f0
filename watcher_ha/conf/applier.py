"""[watcher_applier] options."""

from oslo_config import cfg

from watcher_ha.conf import owned_work
from watcher_ha.conf import prose

GROUP = cfg.OptGroup('watcher_applier', title='Applier options')

OPTS = [
    cfg.IntOpt(
        'max_plans', default=2, min=1,
        help=prose.paragraph("""Action plans one applier executes at the
            same time, recoveries from a failure aside (see
            max_recovery_plans).""")),
    cfg.IntOpt(
        'max_recovery_plans', default=16, min=1,
        help=prose.paragraph("""Plans recovering from a failure (instance
            HA's recoveries, application failovers) one applier executes at
            the same time, beside max_plans and never queued behind them:
            an evacuation waits for no optimisation plan, and the
            failovers of the applications a failed host ran go side by
            side. They mostly wait on the cloud.""")),
    cfg.IntOpt(
        'workers', default=4, min=1,
        help=prose.paragraph("""Actions of one plan executed at the same time,
            when the plan allows it (actions without a parent in common).""")),
    *owned_work.opts('started action plans',
                     'a started (PENDING) action plan', 'applier',
                     'their launch message lost'),
    cfg.StrOpt(
        'recovery', default='cancel', mutable=True,
        choices=[('cancel', 'Cancel the plan and its unfinished actions: '
                            'the operator looks at the cloud and starts a '
                            'new audit.'),
                 ('resume', 'Ask each interrupted action whether its effect '
                            'is in place (did the migration happen?), then '
                            'carry on with the rest of the plan. An action '
                            'that cannot tell fails the plan rather than '
                            'run twice.')],
        help=prose.paragraph("""What an applier does with an action plan whose
            applier died while running it (its own, found at start-up, or a
            peer's, seen gone from the appliers' group).""")),
    cfg.FloatOpt(
        'takeover_grace', default=10.0, min=0, mutable=True,
        help=prose.paragraph("""Seconds an applier that adopts a plan waits,
            counted from the last call to the cloud the plan's previous applier
            made before it was presumed gone, before it looks at what that call
            did (a call already sent when the plan was taken over must land
            first). Usually no wait at all: the previous applier was silent for
            [coordination] member_timeout already.""")),
    cfg.IntOpt(
        'migration_timeout', default=900, min=1, mutable=True,
        help=prose.paragraph("""Seconds a migrate action waits for Nova to
            finish a migration before it fails.""")),
    cfg.IntOpt(
        'shelve_timeout', default=900, min=1, mutable=True,
        help=prose.paragraph("""Seconds a shelve action waits for Nova to
            shelve a server (its snapshot uploaded), and again to offload it
            when Nova keeps it on its host (shelved_offload_time other than
            0), before it fails; also what its revert waits for the
            unshelve. Not in Watcher, which has no shelve action.""")),
    cfg.IntOpt(
        'delete_timeout', default=300, min=1, mutable=True,
        help=prose.paragraph("""Seconds a delete action waits for Nova to
            delete a server (until Nova answers 404; a server Nova only
            soft-deletes, by its reclaim_instance_interval, is deleted for
            good) before it fails. Not in Watcher, which has no delete
            action.""")),
    cfg.IntOpt(
        'change_node_power_state_timeout', default=600, min=1,
        mutable=True,
        help=prose.paragraph("""Seconds a change_node_power_state action waits
            for Ironic to report its node in the power state asked, with no
            power action under way, before it fails (Watcher waits 60 polls of
            10 s); a node locked by another operation (409) is asked again
            within the same time.""")),
    cfg.IntOpt(
        'volume_migration_timeout', default=3600, min=1, mutable=True,
        help=prose.paragraph("""Seconds a volume_migrate action waits for
            Cinder to finish a volume's migration or retype (the copy of its
            data) before it fails; Cinder cannot abort it, so it may still end
            later. Watcher waits without end.""")),
    cfg.FloatOpt(
        'poll_interval', default=1.0, min=0.1, mutable=True,
        help=prose.paragraph("""Seconds between two looks at a server or
            service an action is waiting for (one GET each: 20 evacuations
            under way ask Nova 20 times a second at 1 s); an action ends up to
            this long after its change did.""")),
    cfg.BoolOpt(
        'rollback_when_actionplan_failed', default=False,
        help=prose.paragraph("""When an action fails, revert the actions of the
            plan that succeeded (as the database records them), latest first.
            Never the failed action itself, and never when the plan is
            cancelled or its applier stops; what was reverted is recorded in
            the actions' and the plan's status messages. Deprecated in
            Watcher.""")),
]
