"""Servers of preemptible flavors, dated against a fixed now, for the
tests of workload_preemption and its rules."""

import datetime

from tests import strategy_clusters as c
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.strategy import preemptible as rules

NOW = datetime.datetime(2026, 11, 22, 12, 0, 0)
HOUR = 3600


def server(name, age=2 * HOUR, preemptable='true', policy=None,
           host='n1', allocations=None, extra_specs=None, **values):
    """A server ``age`` seconds old at NOW (None: undated) whose flavor
    sets ``lifecycle:preemptable`` (None: not at all), ``policy`` as its
    ``lifecycle:preempt_policy`` and ``extra_specs`` besides;
    ``allocations``: Placement's ({class: amount}, None: not read)."""
    specs = dict(extra_specs or {})
    if preemptable is not None:
        specs[rules.PREEMPTABLE] = preemptable
    if policy is not None:
        specs[rules.PREEMPT_POLICY] = policy
    return c.server(
        name, host, flavor_extra_specs=elements.frozen_mapping(specs),
        created_at=(None if age is None
                    else NOW - datetime.timedelta(seconds=age)),
        allocations=(None if allocations is None
                     else elements.frozen_mapping(allocations)),
        **values)


def names(servers):
    return [s.name for s in servers]
