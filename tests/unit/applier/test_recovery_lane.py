"""The plans an applier runs in its recovery lane: those of instance
HA's recoveries and of application failovers (common/urgency.py), each
a strategy the catalog has; an optimisation plan, or a plan gone, not."""

import threading

from tests import factories
from watcher_ha.applier import manager
from watcher_ha.common import plugins
from watcher_ha.common import urgency
from watcher_ha.common.app_failover import members
from watcher_ha.db import recoveries


def test_recovery_plans_are_urgent_and_others_are_not(db):
    plans = manager.ActionPlans('applier-1', threading.Event())
    failover, _ = factories.action_plan(db, factories.audit(
        db, goal='application_availability', strategy='active_standby'))
    recovery, _ = factories.action_plan(db, factories.audit(
        db, goal='cluster_maintaining', strategy='host_recovery'))
    optimisation, _ = factories.action_plan(db, factories.audit(db))
    assert plans.urgent(failover['uuid'])
    assert plans.urgent(recovery['uuid'])
    assert not plans.urgent(optimisation['uuid'])
    assert not plans.urgent('00000000-0000-4000-8000-000000000000')


def test_each_recovery_strategy_is_a_strategy_plugin():
    assert urgency.RECOVERY_STRATEGIES <= set(
        plugins.installed_names(plugins.STRATEGIES))


def test_the_recovery_strategies_are_instance_ha_s_and_failover_s():
    assert urgency.RECOVERY_STRATEGIES == frozenset(
        recoveries.STRATEGIES.values()) | {members.STRATEGY}
