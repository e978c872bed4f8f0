"""volume_migrate against the simulator's Block Storage API (Cinder v3;
auth_type none, [cinder] and [nova] of this process): a migration and a
retype done through the fence and waited for; the skipped and failed
pre-conditions; a migration Cinder fails (fault injection) failing the
action with the volume where it was; recover() finding a migration done,
never started or unknowable. Then its take-over: two appliers as
processes of their own (test_ha's cluster), the one running the action
SIGKILLed while Cinder copies the volume; the other adopts the plan,
recover() waits for the copy to end and the action SUCCEEDS, the
simulator having run exactly one migration."""

import datetime

import pytest
import requests

from tests import factories
from tests.functional import cloud as cloud_mod
from tests.functional import identity
from tests.functional import services
from tests.functional.fixtures import MARIADB_ONLY
from tests.functional.fixtures import wait_for
from tests.functional.ha_checks import APPLIERS
from tests.functional.ha_checks import action_starts
from tests.functional.ha_checks import adopter
from tests.functional.ha_checks import check_recovered
from tests.helpers.fence import Fence
from watcher_ha.applier import fencing
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import volume_migrate
from watcher_ha.simulator import scenario

GONE = '9d5e3c55-0000-4000-8000-000000000000'
FAST1, FAST2, SLOW = 'stor1@fast#p1', 'stor2@fast#p1', 'stor3@slow#p1'
VOLUMES = {name: '%02d000000-0000-4000-8000-0000000000%02d' % (i, i)
           for i, name in enumerate(('moved', 'retyped', 'failing',
                                     'fenced', 'untouched', 'attached-off',
                                     'big', 'swapped'), start=10)}


def _spec(seconds_per_gb=0.01):
    spec = scenario.generate(hosts=2, servers=1, seed=5)
    spec['servers'][0].update(name='vm-off', state='stopped')
    spec['storage'] = {
        'default_volume_type': 'fast',
        'volume_migration_seconds_per_gb': seconds_per_gb,
        'volume_step_seconds': 0.1,
        'backends': [
            {'host': host, 'backend': backend, 'zone': 'nova',
             'pools': [{'name': 'p1', 'total_capacity_gb': 2000}]}
            for host, backend in (('stor1', 'fast'), ('stor2', 'fast'),
                                  ('stor3', 'slow'))],
        'volume_types': [
            {'name': 'fast', 'extra_specs': {'volume_backend_name': 'fast'}},
            {'name': 'slow', 'extra_specs': {'volume_backend_name': 'slow'}}],
        'volumes': [{'id': uuid, 'name': name,
                     'size': 1000 if name == 'big' else 10, 'pool': FAST1,
                     'type': 'fast', 'project': 'p1',
                     'attached_to': 'vm-off' if name == 'attached-off'
                     else None}
                    for name, uuid in VOLUMES.items()]}
    return spec


@pytest.fixture(scope='module')
def cloud(conf, tmp_path_factory):
    """The simulator, this process's [cinder] and [nova] pointed at it."""
    with services.simulator(tmp_path_factory.mktemp('sim'), _spec()) as url, \
            cloud_mod.overridden((
                ('auth_type', 'none', 'cinder'),
                ('endpoint_override', url + '/volume/v3', 'cinder'),
                ('auth_type', 'none', 'nova'),
                ('endpoint_override', url + '/compute/v2.1', 'nova'),
                ('poll_interval', 0.1, 'watcher_applier'),
                ('volume_migration_timeout', 30, 'watcher_applier'))):
        yield url


def _state(url):
    return requests.get(url + '/simulator/state', timeout=10).json()


def _volume(url, name):
    return _state(url)['volumes'][VOLUMES[name]]


def _migrations(url, name):
    return [m for m in _state(url)['volume_migrations']
            if m['volume'] == VOLUMES[name]]


def _faults(url, **spec):
    requests.put(url + '/simulator/faults', json=spec,
                 timeout=10).raise_for_status()


def action(name, fence=None, **parameters):
    parameters.setdefault('migration_type', 'migrate')
    return volume_migrate.VolumeMigrate(
        dict(resource_id=VOLUMES.get(name, name), **parameters),
        fence=fence)


def run(act):
    act.pre_condition()
    act.execute()
    act.post_condition()


def _now():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def test_a_volume_is_migrated_once_through_the_fence(cloud):
    url = cloud
    fence = Fence()
    began = _now()
    act = action('moved', fence, destination_node=FAST2)
    run(act)
    assert _volume(url, 'moved')['pool'] == FAST2
    assert [(m['kind'], m['dest'], m['status'])
            for m in _migrations(url, 'moved')] == [
        ('migrate', FAST2, 'success')]
    assert fence.passed == 1
    assert act.recover(began) == base.DONE
    with pytest.raises(base.ActionSkipped, match='is on %s already' % FAST2):
        action('moved', destination_node=FAST2).pre_condition()
    # No revert (Watcher has none): it stays.
    act.revert()
    assert _volume(url, 'moved')['pool'] == FAST2


def test_swap_is_a_migration(cloud):
    # Its own volume: under xdist the tests of this module may run in
    # several workers, each with its own cloud, in any order.
    url = cloud
    run(action('swapped', migration_type='swap', destination_node=FAST2))
    assert _volume(url, 'swapped')['pool'] == FAST2
    assert [m['kind'] for m in _migrations(url, 'swapped')] == ['migrate']


def test_a_volume_is_retyped_migrating_on_demand(cloud):
    url = cloud
    act = action('retyped', migration_type='retype', destination_type='slow')
    run(act)
    found = _volume(url, 'retyped')
    assert (found['pool'], found['status']) == (SLOW, 'available')
    assert [m['kind'] for m in _migrations(url, 'retyped')] == ['retype']
    with pytest.raises(base.ActionSkipped, match='of type slow already'):
        action('retyped', migration_type='retype',
               destination_type='slow').pre_condition()


@pytest.mark.parametrize('parameters, message', [
    ({'destination_node': 'stor9@fast#p1'}, 'pool stor9@fast#p1 does not '
                                            'exist'),
    ({'migration_type': 'retype', 'destination_type': 'gold'},
     'volume type gold does not exist'),
    ({'destination_node': SLOW}, 'of type fast, which does not fit pool'),
    ({}, 'needs destination_node'),
    ({'migration_type': 'retype'}, 'needs destination_type'),
])
def test_a_migration_that_cannot_be_is_failed_first(cloud, parameters,
                                                    message):
    with pytest.raises(base.ActionError, match=message):
        action('untouched', **parameters).pre_condition()


def test_nothing_to_migrate_is_skipped(cloud):
    with pytest.raises(base.ActionSkipped, match='does not exist any more'):
        action(GONE, destination_node=FAST2).pre_condition()


def test_an_attached_volume_of_a_stopped_server_is_not_migrated(cloud):
    with pytest.raises(base.ActionError, match='which is SHUTOFF'):
        action('attached-off', destination_node=FAST2).pre_condition()


def test_a_migration_cinder_fails_fails_the_action(cloud):
    url = cloud
    _faults(url, fail_volume_migrations=[VOLUMES['failing']])
    act = action('failing', destination_node=FAST2)
    act.pre_condition()
    with pytest.raises(base.ActionError,
                       match='Cinder failed to migrate it to .*on %s.*'
                             'migration_status error' % FAST1):
        act.execute()
    assert _volume(url, 'failing')['pool'] == FAST1
    assert [m['status'] for m in _migrations(url, 'failing')] == ['error']
    # What recover() would find: a failure it cannot tell from someone
    # else's change; the migration is not asked again.
    assert act.recover(_now() - datetime.timedelta(minutes=1)) == \
        base.UNKNOWN
    assert len(_migrations(url, 'failing')) == 1


def test_a_refused_migration_says_why(cloud):
    url = cloud
    _faults(url, storage_backends_down=['stor2@fast'])
    try:
        with pytest.raises(base.ActionError,
                           match="Cinder refused to migrate it to .*No "
                                 "available service named"):
            action('untouched', destination_node=FAST2).execute()
    finally:
        _faults(url, storage_backends_down=[])
    assert _migrations(url, 'untouched') == []


def test_a_fenced_migration_asks_cinder_nothing(cloud):
    url = cloud
    fence = Fence()
    fence.shut = True
    with pytest.raises(fencing.Fenced):
        action('fenced', fence, destination_node=FAST2).execute()
    assert _migrations(url, 'fenced') == []


def test_recover_runs_again_a_migration_never_started(cloud):
    url = cloud
    act = action('untouched', destination_node=FAST2)
    assert act.recover(_now()) == base.NOT_DONE
    assert _migrations(url, 'untouched') == []


def test_recover_waits_for_a_migration_under_way(cloud):
    url = cloud
    began = _now()
    resp = requests.post(
        url + '/volume/v3/volumes/%s/action' % VOLUMES['big'],
        json={'os-migrate_volume': {'host': FAST2}},
        headers={'X-Auth-Token': 'any',
                 'OpenStack-API-Version': 'volume 3.60'}, timeout=10)
    assert resp.status_code == 202, resp.text
    assert _volume(url, 'big')['migration_status'] in ('starting',
                                                       'migrating')
    assert action('big', destination_node=FAST2).recover(began) == base.DONE
    assert _volume(url, 'big')['pool'] == FAST2
    assert len(_migrations(url, 'big')) == 1


# The take-over.

def _auth(sim_url):
    return identity.cloud_sections(sim_url, 'nova', 'placement', 'ironic',
                                   'cinder')


@MARIADB_ONLY
def test_a_migration_whose_applier_was_killed_is_recovered_not_redone(
        ha_cluster, tmp_path):
    # 1000 GiB at 0.02 s each: 20 s of copy, longer than a take-over.
    with services.simulator(tmp_path / 'sim',
                            _spec(seconds_per_gb=0.02)) as sim_url:
        cluster = ha_cluster(
            watcher_applier={'recovery': 'resume', 'poll_interval': 0.1,
                             'volume_migration_timeout': 120},
            **_auth(sim_url))
        cluster.start_daemons(appliers=APPLIERS[:2])
        plan, [act] = factories.action_plan(
            cluster.engine, factories.audit(cluster.engine),
            kinds=[('volume_migrate', {'resource_id': VOLUMES['big'],
                                       'migration_type': 'migrate',
                                       'destination_node': FAST2})])
        resp = requests.post('%s/v1/action_plans/%s/start' % (
            cluster.url, plan['uuid']), timeout=10)
        assert resp.status_code == 200, resp.text
        runner = wait_for(lambda: (action_starts(cluster, act) or [None])[0],
                          20, 'the volume_migrate action begun')
        wait_for(lambda: _volume(sim_url, 'big')['migration_status']
                 == 'migrating', 20, 'Cinder copying the volume')
        cluster.kill(runner)
        survivor = adopter(cluster, plan, runner)
        # Recovered, not executed again: one start, one migration.
        check_recovered(cluster, plan, act, runner, survivor, 90)
        assert [(m['dest'], m['status'])
                for m in _migrations(sim_url, 'big')] == [
            (FAST2, 'success')]
        assert _volume(sim_url, 'big')['pool'] == FAST2
