"""Starting an action plan claims what its actions touch; an overlapping
start gets 409 naming the holder; ending a plan releases its claims."""

import pytest
import sqlalchemy as sa

from tests import factories
from watcher_ha.db import models


def migrate(server, source='n1', destination='n2'):
    return ('migrate', {'resource_id': server, 'migration_type': 'live',
                        'source_node': source,
                        'destination_node': destination})


def disable(host):
    return ('change_nova_service_state', {'resource_id': host,
                                          'resource_name': host,
                                          'state': 'disabled'})


def plan(db, *kinds):
    made, _ = factories.action_plan(db, factories.audit(db),
                                    kinds=list(kinds))
    return made


def claims(db, plan_row):
    with db.connect() as conn:
        return sorted(conn.execute(sa.select(
            models.PlanHold.resource_type,
            models.PlanHold.resource_id).where(
                models.PlanHold.action_plan_id == plan_row['id'])))


def start(api, plan_row):
    return api.post('/v1/action_plans/%s/start' % plan_row['uuid'])


def test_start_claims_servers_and_nodes(api, db):
    first = plan(db, disable('n1'), migrate('s1'), migrate('s2', 'n1', 'n3'))
    assert start(api, first).status == 200
    assert claims(db, first) == [
        ('compute_node', 'n1'), ('compute_node', 'n2'),
        ('compute_node', 'n3'), ('server', 's1'), ('server', 's2')]


def test_overlapping_start_is_409_naming_plan_and_resources(api, db):
    first = plan(db, migrate('s1', 'n1', 'n2'))
    second = plan(db, migrate('s1', 'n5', 'n6'), migrate('s9', 'n7', 'n2'))
    assert start(api, first).status == 200
    resp = start(api, second)
    assert resp.status == 409
    assert first['uuid'] in resp.fault
    assert 'server s1' in resp.fault and 'compute_node n2' in resp.fault
    assert 'cancel' in resp.fault
    # Nothing of the loser's start survived.
    assert api.get('/v1/action_plans/' + second['uuid']).json[
        'state'] == 'RECOMMENDED'
    assert claims(db, second) == []


def test_patch_to_pending_claims_like_start(api, db):
    first = plan(db, migrate('s1'))
    second = plan(db, migrate('s1', 'n3', 'n4'))
    body = [{'op': 'replace', 'path': '/state', 'value': 'PENDING'}]
    assert api.patch('/v1/action_plans/' + first['uuid'],
                     body).status == 200
    assert api.patch('/v1/action_plans/' + second['uuid'],
                     body).status == 409


def test_plans_that_touch_nothing_never_conflict(api, db):
    for _ in range(3):
        assert start(api, plan(db, ('nop', {'message': 'x'}),
                               ('sleep', {'duration': 1}))).status == 200


@pytest.mark.parametrize('end', ['cancel', 'delete_after_cancel'])
def test_claims_go_when_the_plan_ends(api, db, end):
    first = plan(db, migrate('s1'))
    assert start(api, first).status == 200
    body = [{'op': 'replace', 'path': '/state', 'value': 'CANCELLED'}]
    assert api.patch('/v1/action_plans/' + first['uuid'],
                     body).status == 200
    if end == 'delete_after_cancel':
        assert api.delete('/v1/action_plans/' + first['uuid']).status == 204
    assert claims(db, first) == []
    assert start(api, plan(db, migrate('s1'))).status == 200


def test_claims_go_when_the_applier_finishes(api, db):
    from watcher_ha.common import context
    from watcher_ha.db import plan_runs
    first = plan(db, migrate('s1'))
    assert start(api, first).status == 200
    admin = context.admin_context()
    taken = plan_runs.claim(admin, first['uuid'], 'applier-1')
    plan_runs.finish(admin, taken, 'applier-1', 'FAILED', 'boom')
    assert claims(db, first) == []
    assert start(api, plan(db, migrate('s1'))).status == 200


def test_stale_claims_of_an_ended_plan_do_not_block(api, db):
    """A plan that ended without releasing (a crash between states, an
    older release): its claims are cleared when someone claims."""
    first = plan(db, migrate('s1'))
    assert start(api, first).status == 200
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.id == first['id']).values(state='SUCCEEDED'))
    second = plan(db, migrate('s1'))
    assert start(api, second).status == 200
    assert claims(db, second) == [('compute_node', 'n1'),
                                  ('compute_node', 'n2'), ('server', 's1')]


def test_skipped_actions_claim_nothing(api, db):
    first = plan(db, migrate('s1'), migrate('s2', 'n7', 'n8'))
    assert start(api, first).status == 200
    second, actions = factories.action_plan(
        db, factories.audit(db), kinds=[migrate('s1', 'n3', 'n4'),
                                        migrate('s3', 'n5', 'n6')])
    resp = api.patch('/v1/actions/' + actions[0]['uuid'], version='1.5',
                     body=[{'op': 'replace', 'path': '/state',
                            'value': 'SKIPPED'}])
    assert resp.status == 200
    assert start(api, second).status == 200
