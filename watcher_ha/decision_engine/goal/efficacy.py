"""Efficacy indicators that several goals share, and the arithmetic of
their global efficacy.

Names, descriptions, units and schemas are what Watcher exposes through
``GET /v1/goals``: clients and dashboards match on them.
"""

from watcher_ha.decision_engine.goal import base

_COUNT = {'type': 'integer', 'minimum': 0}
_NON_NEGATIVE = {'type': 'number', 'minimum': 0}


def count(name, description, required=True):
    return base.IndicatorSpec(name, description, None, dict(_COUNT),
                              required)


INSTANCE_MIGRATIONS_COUNT = count(
    'instance_migrations_count',
    'The number of VM migrations to be performed.')
INSTANCES_COUNT = count(
    'instances_count',
    'The total number of audited instances in strategy.', required=False)
STANDARD_DEVIATION_AFTER_AUDIT = base.IndicatorSpec(
    'standard_deviation_after_audit',
    'The value of resulted standard deviation.', None, dict(_NON_NEGATIVE),
    required=False)
STANDARD_DEVIATION_BEFORE_AUDIT = base.IndicatorSpec(
    'standard_deviation_before_audit',
    'The value of original standard deviation.', None, dict(_NON_NEGATIVE),
    required=False)


def percent(part, whole):
    """``part`` as a percentage of ``whole``; 0 when ``whole`` is 0 (no
    nodes, nothing to migrate) rather than a division by zero.

    Watcher reports an integer 0 when it skips the division and a float
    otherwise, and the JSON shows it (``0`` against ``0.0``): keep both.
    """
    if not whole:
        return 0
    return float(part) / float(whole) * 100


def ratio(name, description, value):
    """One entry of a plan's global efficacy, in percent."""
    return {'name': name, 'description': description, 'unit': '%',
            'value': value}
