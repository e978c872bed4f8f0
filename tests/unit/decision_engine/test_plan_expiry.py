"""Action plans nobody started expire, as in Watcher: once RECOMMENDED for
longer than [watcher_decision_engine] action_plan_expiry hours, a
decision engine's periodic look makes them SUPERSEDED (they can no
longer be started), notifying each once; plans started, and plans still
young, stay."""

import datetime

import sqlalchemy as sa

from tests import factories
from watcher_ha.db import models
from watcher_ha.decision_engine import manager


def aged(db, plan, hours):
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.id == plan['id']).values(
                created_at=models.utcnow() - datetime.timedelta(
                    hours=hours)))


def state_of(api, plan):
    return api.get('/v1/action_plans/' + plan['uuid'], version='1.5').json


def test_plans_recommended_too_long_are_superseded(api, db, notifications):
    audit = factories.audit(db)
    old, _ = factories.action_plan(db, audit)
    young, _ = factories.action_plan(db, audit)
    started, _ = factories.action_plan(db, audit, state='PENDING')
    aged(db, old, 25)
    aged(db, young, 23)
    aged(db, started, 25)
    engine = manager.DecisionEngineManager('engine-1')
    engine.expire_action_plans()
    expired = state_of(api, old)
    assert expired['state'] == 'SUPERSEDED'
    assert 'action_plan_expiry' in expired['status_message']
    assert state_of(api, young)['state'] == 'RECOMMENDED'
    assert state_of(api, started)['state'] == 'PENDING'
    # It can no longer be started.
    resp = api.post('/v1/action_plans/%s/start' % old['uuid'])
    assert resp.status == 400, resp
    sent = [(m['event_type'], m['payload']['watcher_object.data']['uuid'])
            for _ctxt, m, _priority, _retry in notifications]
    assert sent == [('action_plan.update', old['uuid'])]
    # Looked at again (another engine, the next period): nothing more.
    engine.expire_action_plans()
    assert len(notifications) == 1


def test_zero_never_expires(api, db, notifications, config):
    audit = factories.audit(db)
    old, _ = factories.action_plan(db, audit)
    aged(db, old, 24 * 365)
    config.config(action_plan_expiry=0, group='watcher_decision_engine')
    manager.DecisionEngineManager('engine-1').expire_action_plans()
    assert state_of(api, old)['state'] == 'RECOMMENDED'
    assert not notifications
