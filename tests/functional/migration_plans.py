"""Plans of live migrations on the simulator, for the tests and the
benchmark of plan execution: planned by the weight planner, inserted as
the decision engine inserts them, and the simulator's view of them."""

import sqlalchemy as sa

from tests import factories
from tests.functional import cloud
from watcher_ha.conf import CONF
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import models
from watcher_ha.decision_engine.planner import weight

# What the simulator's os-migrations lists, at the applier's microversion.
HEADERS = {'X-Auth-Token': 'any', 'OpenStack-API-Version': 'compute 2.96'}


def live_migration(server, source, destination):
    """A migrate action's (type, input_parameters), as strategies give."""
    return ('migrate', {'resource_id': server, 'migration_type': 'live',
                        'source_node': source,
                        'destination_node': destination})


def planned(migrations, parallelization):
    """The weight planner's plan of ``migrations`` ((type, parameters)),
    with ``[watcher_planners.weight] parallelization`` migrate:N, as the
    decision engine plans: [PlannedAction]."""
    with cloud.overridden([('parallelization',
                            {'migrate': parallelization}, weight.GROUP)]):
        planner = weight.WeightPlanner.from_conf(CONF)
    return planner.schedule(_Solution(migrations))


class _Solution:
    """What the planner reads of a strategy's solution."""

    def __init__(self, migrations):
        self.actions = [_Proposed(kind, parameters)
                        for kind, parameters in migrations]


class _Proposed:
    def __init__(self, action_type, input_parameters):
        self.action_type = action_type
        self.input_parameters = input_parameters


def insert_plan(engine, actions):
    """A RECOMMENDED plan (of a new audit) holding the PlannedActions
    ``actions``; returns (plan row, action rows in order)."""
    audit = factories.audit(engine)
    plan, _ = factories.action_plan(engine, audit, actions=0)
    rows = [dict(uuid=action.uuid, action_plan_id=plan['id'],
                 action_type=action.action_type,
                 input_parameters=action.input_parameters,
                 state=ActionState.PENDING, parents=action.parents,
                 created_at=models.utcnow()) for action in actions]
    with engine.begin() as conn:
        if rows:
            conn.execute(sa.insert(models.Action), rows)
        ids = dict(conn.execute(sa.select(
            models.Action.uuid, models.Action.id).where(
                models.Action.action_plan_id == plan['id'])).all())
    for row in rows:
        row['id'] = ids[row['uuid']]
    assert plan['state'] == ActionPlanState.RECOMMENDED
    return plan, rows


def plan_states(engine, plan):
    """(the plan's state, {action uuid: state})."""
    with engine.connect() as conn:
        state = conn.execute(sa.select(models.ActionPlan.state).where(
            models.ActionPlan.id == plan['id'])).scalar_one()
        actions = dict(conn.execute(sa.select(
            models.Action.uuid, models.Action.state).where(
                models.Action.action_plan_id == plan['id'])).all())
    return state, actions
