"""``GET /v1/action_plans/{uuid}/what_if`` (watcher-ha 1.3): a plan that
has not started, run on a copy of a decision engine's compute model. The
engine's RPC endpoint runs in this process on a model made by hand
(tests/helpers/what_if.py)."""

import jsonschema
import pytest

from tests import factories
from tests.helpers import segments
from tests.helpers import what_if
from tests.helpers.what_if import migrations
from watcher_ha.api.schemas import what_if as schema
from watcher_ha.common import exception
from watcher_ha.common.states import ActionPlanState
from watcher_ha.decision_engine import rpcapi
from watcher_ha.policies import policy

OURS = {'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.3'}


@pytest.fixture
def engine(monkeypatch):
    return what_if.serve(monkeypatch)


@pytest.fixture
def plan(db):
    audit = factories.audit(db, goal='workload_balancing',
                            strategy='workload_balance',
                            parameters={'max_migrations_per_host': 1})
    made, _ = factories.action_plan(
        db, audit, kinds=migrations(('a', 'busy', 'empty'),
                                    ('b', 'busy', 'idle')),
        indicators=[('instance_migrations_count', 2.0)])
    return made


def path(plan_uuid):
    return '/v1/action_plans/%s/what_if' % plan_uuid


@pytest.mark.parametrize('headers', [
    {}, {'OpenStack-API-Version': 'infra-optim 1.7'},
    {'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.2'}])
def test_without_watcher_ha_1_3_there_is_no_what_if(api, engine, plan,
                                                    headers):
    resp = api.get(path(plan['uuid']), headers=headers)
    assert resp.status == 404, resp
    assert 'watcher-ha 1.3' in resp.fault


def test_a_version_out_of_range_is_406(api, engine, plan):
    resp = api.get(path(plan['uuid']), headers={
        'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.9'})
    assert resp.status == 406, resp


def test_the_what_if_of_a_recommended_plan(api, engine, plan):
    resp = api.get(path(plan['uuid']), headers=OURS)
    assert resp.status == 200, resp
    assert resp.headers['OpenStack-API-Version'] == \
        'infra-optim 1.7, watcher-ha 1.3'
    body = resp.json
    jsonschema.validate(body, schema.WHAT_IF)
    hosts = {host['name']: host for host in body['hosts']}
    # Only the changed hosts, unless asked.
    assert sorted(hosts) == ['busy', 'empty', 'idle']
    assert hosts['busy']['before']['vcpus']['used'] == 6
    assert hosts['busy']['after']['vcpus']['used'] == 0
    assert hosts['empty']['after']['vcpus']['used'] == 4
    assert hosts['idle']['after']['servers'] == 2
    assert body['worst_moment']['host'] == 'busy'
    assert body['model']['host'] == 'engine-a'
    assert body['stale'] is False
    [stored] = body['efficacy_indicators']
    assert stored['stored'] == 2.0 and stored['projected'] == 2
    per_host = next(b for b in body['budgets']
                    if b['name'] == 'max_migrations_per_host')
    assert per_host == dict(per_host, limit=1, used=2, where='busy',
                            within=False)
    assert body['cpu_utilisation']['available'] is False


def test_each_failover_segment_says_what_it_keeps(api, engine, plan):
    """A plan that puts a server on a segment's reserved host leaves it
    less room to absorb a failure."""
    segments.reserved_host_segment(['busy', 'idle'], ['empty'])
    resp = api.get(path(plan['uuid']), headers=OURS)
    assert resp.status == 200, resp
    [segment] = resp.json['failover_segments']
    assert segment['name'] == 'seg'
    assert segment['recovery_method'] == 'reserved_host'
    before, after = segment['before'], segment['after']
    assert before['reserved_hosts'] == after['reserved_hosts'] == ['empty']
    assert before['reserved_free']['vcpus'] == 8
    assert after['reserved_free']['vcpus'] == 4
    # busy's servers (6 vcpus) fit the reserved host before, idle's after.
    assert before['not_absorbed'] == [] and before['absorbed'] == 2
    assert after['hosts'] == 2 and after['not_absorbed'] == []


def test_all_hosts_lists_the_unchanged_ones_after(api, engine, db):
    audit = factories.audit(db, goal='workload_balancing',
                            strategy='workload_balance')
    made, _ = factories.action_plan(
        db, audit, kinds=migrations(('c', 'idle', 'empty')))
    resp = api.get(path(made['uuid']) + '?all_hosts=true', headers=OURS)
    assert resp.status == 200, resp
    assert [(h['name'], h['changed']) for h in resp.json['hosts']] == [
        ('empty', True), ('idle', True), ('busy', False)]
    bad = api.get(path(made['uuid']) + '?all_hosts=maybe', headers=OURS)
    assert bad.status == 400, bad
    unknown = api.get(path(made['uuid']) + '?hosts=all', headers=OURS)
    assert unknown.status == 400 and 'all_hosts' in unknown.fault


def test_a_stale_plan_is_projected_from_now_and_says_why(api, engine, db):
    audit = factories.audit(db)
    made, _ = factories.action_plan(
        db, audit, kinds=migrations(('a', 'idle', 'empty'),
                                    ('gone', 'idle', 'empty')))
    resp = api.get(path(made['uuid']), headers=OURS)
    assert resp.status == 200, resp
    body = resp.json
    assert body['stale'] is True and body['differences_count'] == 2
    texts = [d['difference'] for d in body['differences']]
    assert 'server uuid-a is on busy, not on idle' in texts[0]
    assert 'server uuid-gone is not in the model' in texts[1]
    # Projected from where it is now.
    hosts = {host['name']: host for host in body['hosts']}
    assert hosts['busy']['after']['vcpus']['used'] == 2


@pytest.mark.parametrize('state', [ActionPlanState.PENDING,
                                   ActionPlanState.ONGOING,
                                   ActionPlanState.SUCCEEDED])
def test_a_plan_that_started_is_409_naming_the_states_allowed(
        api, engine, db, state):
    made, _ = factories.action_plan(db, factories.audit(db), state=state)
    resp = api.get(path(made['uuid']), headers=OURS)
    assert resp.status == 409, resp
    assert resp.fault == (
        'Action plan %s is %s: a what-if projects a plan that has not '
        'started; the states allowed are RECOMMENDED.'
        % (made['uuid'], state))


def test_an_unknown_plan_is_404_and_a_bad_uuid_400(api, engine, db):
    missing = api.get(path('7f9c5ce2-2c4c-4f0a-9b53-0e5f4a0b7a11'),
                      headers=OURS)
    assert missing.status == 404, missing
    assert 'could not be found' in missing.fault
    assert api.get(path('not-a-uuid'), headers=OURS).status == 400


def test_it_changes_nothing(api, engine, plan):
    shown = api.get('/v1/action_plans/' + plan['uuid']).json
    api.get(path(plan['uuid']), headers=OURS)
    assert api.get('/v1/action_plans/' + plan['uuid']).json == shown
    assert engine._manager.model('compute').generation == 1


def test_the_what_if_follows_the_rule_of_showing_the_plan(
        api, engine, plan, config, tmp_path):
    rules = tmp_path / 'policy.yaml'
    rules.write_text('"action_plan:get": "!"\n')
    config.config(group='oslo_policy', policy_file=str(rules))
    policy.reset()
    resp = api.get(path(plan['uuid']), headers=OURS)
    assert resp.status == 403, resp
    assert 'action_plan:what_if' in resp.fault


def test_an_engine_whose_model_is_not_built_is_503(api, db, plan,
                                                   monkeypatch):
    what_if.serve(monkeypatch, what_if.model(ready=False))
    resp = api.get(path(plan['uuid']), headers=OURS)
    assert resp.status == 503, resp
    assert 'still being built' in resp.fault


def test_an_engine_without_a_compute_model_is_503(api, db, plan,
                                                  monkeypatch):
    what_if.serve(monkeypatch, None)
    resp = api.get(path(plan['uuid']), headers=OURS)
    assert resp.status == 503, resp
    assert 'keeps no compute data model' in resp.fault


def test_an_engine_error_keeps_its_status_and_code():
    err = rpcapi.EngineRefused(409, 'action_plan_not_projectable', 'no')
    assert isinstance(err, exception.WatcherHAError)
    assert (err.code, err.error_code, err.message) == (
        409, 'action_plan_not_projectable', 'no')
