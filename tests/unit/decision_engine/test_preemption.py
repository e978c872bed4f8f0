"""A recovery plan that could not start because other started plans
hold its servers: they are cancelled (a PENDING one at once, an ONGOING
one asked to stop), and it starts once they have let go; another
recovery's plan is waited for, never cancelled."""

import pytest
import sqlalchemy as sa

from tests import factories
from watcher_ha.common import context as watcher_context
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionPlanState as P
from watcher_ha.db import action_plans
from watcher_ha.db import models
from watcher_ha.decision_engine import preemption

SERVER = '9d3a3c52-1111-4222-8333-444455556666'


def migration():
    return ('migrate', {'resource_id': SERVER, 'source_node': 'failed',
                        'migration_type': 'live'})


def evacuation():
    return ('evacuate', {'resource_id': SERVER, 'source_node': 'failed',
                         'destination_node': None})


def plan(db, kinds, state=P.RECOMMENDED):
    audit = factories.audit(db)
    row, _ = factories.action_plan(db, audit, kinds=kinds)
    context = watcher_context.admin_context()
    for target in {P.RECOMMENDED: (), P.PENDING: (P.PENDING,),
                   P.ONGOING: (P.PENDING, P.ONGOING)}[state]:
        action_plans.transition(context, action_plans.get_plan(
            context, row['uuid']), target, actor=state_machines.SERVICE)
    return audit, row['uuid']


def state(uuid):
    return action_plans.get_plan(watcher_context.admin_context(),
                                 uuid)['state']


@pytest.mark.parametrize('holder_state', [P.PENDING, P.ONGOING])
def test_the_holder_goes_and_the_recovery_starts(db, holder_state):
    _, holder = plan(db, [migration()], holder_state)
    _, recovery = plan(db, [evacuation()])
    context = watcher_context.admin_context()
    outcome, _ = preemption.step(context, recovery)
    if holder_state == P.PENDING:
        # Nobody ran it yet: cancelled at once, and the recovery starts.
        assert (outcome, state(holder), state(recovery)) == (
            preemption.STARTED, P.CANCELLED, P.PENDING)
        return
    # Running: asked to stop; the recovery waits for it to end.
    assert (outcome, state(holder), state(recovery)) == (
        preemption.WAITING, P.CANCELLING, P.RECOMMENDED)
    assert preemption.step(context, recovery)[0] == preemption.WAITING
    action_plans.transition(context, action_plans.get_plan(
        context, holder), P.CANCELLED, actor=state_machines.SERVICE)
    assert preemption.step(context, recovery)[0] == preemption.STARTED
    assert state(recovery) == P.PENDING


def test_another_recoverys_plan_is_not_cancelled(db):
    audit, holder = plan(db, [evacuation()], P.PENDING)
    context = watcher_context.admin_context()
    row = factories.host_notification(context)
    with db.begin() as conn:
        conn.execute(sa.update(models.HostNotification)
                     .where(models.HostNotification.uuid == row['uuid'])
                     .values(recovery_audit_uuid=audit['uuid']))
    _, recovery = plan(db, [evacuation()])
    outcome, why = preemption.step(context, recovery)
    assert outcome == preemption.BLOCKED and holder in why
    assert (state(holder), state(recovery)) == (P.PENDING, P.RECOMMENDED)
