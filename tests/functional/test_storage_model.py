"""The storage data model against the simulator's Block Storage API: a
full sync of backends, pools and volumes through watcher_ha's Cinder
client, then random volume operations (creations, deletions, extends,
attachments, detachments, retypes, migrations) whose Cinder notifications
(RabbitMQ) keep two engines' storage models equal to the cloud (one
engine reads them in its own process, the other with two listener
processes); with notifications dropped, the next resync repairs the
models."""

import functools
import random
import time

import pytest
import requests

from tests.functional import model_engine
from tests.functional import services
from tests.functional.fixtures import MARIADB_ONLY
from tests.functional.fixtures import wait_for
from tests.functional.cloud import block_storage_get
from tests.functional.cloud import BLOCK_STORAGE_HEADERS
from tests.functional.cloud import list_volumes
from tests.helpers.models_agree import notifications_dropped
from tests.helpers.models_agree import wait_until_agree
from watcher_ha.common import context as watcher_context
from watcher_ha.decision_engine import rpcapi
from watcher_ha.decision_engine.model import listing
from watcher_ha.decision_engine.model import storage_state
from watcher_ha.decision_engine.model.collector import manager as \
    collector_manager
from watcher_ha.service import rpc
from watcher_ha.simulator import scenario

OPERATIONS = 500
# Volume statuses no notification reports (the simulator passes through
# them between two notified ones), and migrations under way.
UNNOTIFIED = ('reserved', 'attaching', 'retyping', 'detaching')
MOVING = ('starting', 'migrating', 'completing')


def storage_spec(seed, volumes=40):
    """Four servers' worth of compute, three backends of two pools each,
    two types bound to a backend name and one that fits anywhere, and
    ``volumes`` volumes; every step fast."""
    spec = scenario.generate(hosts=3, servers=12, seed=seed)
    rng = random.Random(seed)
    backends = [{'host': 'stor%d' % n, 'backend': backend, 'zone': 'nova',
                 'pools': [{'name': 'pool%d' % p,
                            'total_capacity_gb': 400 + 100 * p,
                            'thin': backend == 'lvm-thin'}
                           for p in (1, 2)]}
                for n, backend in ((1, 'lvm-fast'), (2, 'lvm-fast'),
                                   (3, 'lvm-thin'))]
    pools = ['%s@%s#%s' % (b['host'], b['backend'], p['name'])
             for b in backends for p in b['pools']]
    spec['storage'] = {
        'default_volume_type': 'lvm-fast',
        'volume_create_seconds': 0.05, 'volume_delete_seconds': 0.05,
        'volume_extend_seconds': 0.05, 'volume_step_seconds': 0.02,
        'volume_migration_seconds_per_gb': 0.01,
        'backends': backends,
        'volume_types': [
            {'name': 'lvm-fast',
             'extra_specs': {'volume_backend_name': 'lvm-fast'}},
            {'name': 'lvm-thin',
             'extra_specs': {'volume_backend_name': 'lvm-thin'}},
            {'name': 'any'}],
        'volumes': [{'name': 'data-%d' % n, 'size': rng.randint(1, 8),
                     'type': 'any',
                     'pool': rng.choice(pools)} for n in range(volumes)],
    }
    return spec


@pytest.fixture
def cinder_conf(config):
    """[cinder]: auth_type none, endpoint on the simulator; the engine
    runs the storage collector (so its listener takes Cinder's topic)."""
    def point_at(url):
        config.config(group='cinder', auth_type='none',
                      endpoint_override=url + '/volume/v3')
        config.config(group='watcher_decision_engine',
                      collectors=['compute', 'storage'])
    return point_at


def cloud_state(url):
    """{pool: (total, free, allocated, backend name, thin)}, {volume:
    (size, status, type name, pool, attachments)}, as the Block Storage
    API shows them."""
    pools = {p['name']: (
        p['capabilities']['total_capacity_gb'],
        p['capabilities']['free_capacity_gb'],
        p['capabilities']['allocated_capacity_gb'],
        p['capabilities']['volume_backend_name'],
        p['capabilities']['thin_provisioning_support'])
        for p in block_storage_get(url, '/scheduler-stats/get_pools',
                      detail='true')['pools']}
    volumes = {v['id']: (
        v['size'], v['status'], v['volume_type'],
        v['os-vol-host-attr:host'],
        frozenset((a['server_id'], a['attachment_id'])
                  for a in v['attachments']))
        for v in list_volumes(url)}
    return pools, volumes


def model_state(model):
    """The same, as ``model`` has them."""
    snapshot = model.snapshot()
    pools = {name: (p.total_capacity_gb, p.free_capacity_gb,
                    p.allocated_capacity_gb, p.volume_backend_name,
                    p.thin_provisioning_support)
             for name, p in snapshot.pools.items()}
    volumes = {uuid: (v.size, v.status, v.volume_type, v.pool,
                      frozenset(v.attachments))
               for uuid, v in snapshot.volumes.items()}
    return pools, volumes


def test_full_sync_reads_backends_pools_types_and_every_volume(
        tmp_path, cinder_conf):
    spec = storage_spec(seed=4, volumes=2300)
    with services.simulator(tmp_path, spec) as url:
        cinder_conf(url)
        collectors = collector_manager.CollectorManager(['storage'])
        collectors.resync('storage')
        model = collectors.model('storage')
        assert model.ready
        snapshot = model.snapshot()
        assert isinstance(snapshot, storage_state.StorageState)
        # Three pages of volumes (Cinder's 1,000 a page), all read.
        assert len(snapshot.volumes) == 2300
        assert model_state(model) == cloud_state(url)
        node = snapshot.node('stor1@lvm-fast')
        assert (node.zone, node.status, node.state, node.volume_types) == (
            'nova', 'enabled', 'up', ('lvm-fast',))
        assert [p.name for p in snapshot.pools_of('stor1@lvm-fast')] == [
            'stor1@lvm-fast#pool1', 'stor1@lvm-fast#pool2']
        # Every pool's allocation is its volumes'.
        for name, pool in snapshot.pools.items():
            assert snapshot.allocated(name) == pool.allocated_capacity_gb
        some = next(iter(snapshot.volumes.values()))
        assert some.volume_type_id == snapshot.volume_types[
            some.volume_type_id].id
        entries = listing.entries(snapshot)
        assert sum(1 for e in entries if 'volume_uuid' in e) == 2300


def test_without_a_cinder_endpoint_the_storage_model_is_off():
    collectors = collector_manager.CollectorManager(['storage'])
    assert collectors.list() == []


class Operations:
    """Random volume operations through the Block Storage API."""

    def __init__(self, url, rng):
        self.url = url + '/volume/v3'
        self.rng = rng
        self.servers = list(requests.get(
            url + '/simulator/state', timeout=30).json()['servers'])
        self.pools = [p['name'] for p in block_storage_get(
            url, '/scheduler-stats/get_pools')['pools']]
        self.types = ['lvm-fast', 'lvm-thin', 'any']
        self.done = {}

    def _post(self, path, body):
        return requests.post(self.url + path, json=body,
                             headers=BLOCK_STORAGE_HEADERS, timeout=30)

    def _action(self, volume, body):
        return self._post('/volumes/%s/action' % volume['id'], body)

    def one(self, volumes):
        rng = self.rng
        kind = rng.choice(['create', 'create', 'delete', 'extend',
                           'attach', 'attach', 'detach', 'retype',
                           'migrate', 'migrate'])
        if kind == 'create' or not volumes:
            kind = 'create'
            reply = self._post('/volumes', {'volume': {
                'size': rng.randint(1, 6), 'name': 'r-%d' % rng.randrange(
                    10 ** 6), 'volume_type': rng.choice(self.types)}})
        else:
            volume = rng.choice(volumes)
            reply = getattr(self, '_' + kind)(volume)
        if reply is not None:
            # Refusals (wrong state, no room) are part of the game.
            assert reply.status_code in (200, 202, 204, 400, 404), (
                kind, reply.status_code, reply.text)
            self.done[kind] = self.done.get(kind, 0) + int(
                reply.status_code < 300)

    def _delete(self, volume):
        return requests.delete(self.url + '/volumes/%s' % volume['id'],
                               headers=BLOCK_STORAGE_HEADERS, timeout=30)

    def _extend(self, volume):
        return self._action(volume, {'os-extend': {
            'new_size': volume['size'] + self.rng.randint(1, 3)}})

    def _attach(self, volume):
        reply = self._post('/attachments', {'attachment': {
            'volume_uuid': volume['id'],
            'instance_uuid': self.rng.choice(self.servers),
            'connector': {'host': 'compute', 'initiator': 'iqn.x'}}})
        if reply.status_code != 200:
            return reply
        return self._post('/attachments/%s/action'
                          % reply.json()['attachment']['id'],
                          {'os-complete': None})

    def _detach(self, volume):
        if not volume['attachments']:
            return None
        return requests.delete(
            self.url + '/attachments/%s'
            % volume['attachments'][0]['attachment_id'],
            headers=BLOCK_STORAGE_HEADERS, timeout=30)

    def _retype(self, volume):
        return self._action(volume, {'os-retype': {
            'new_type': self.rng.choice(self.types),
            'migration_policy': self.rng.choice(['never', 'on-demand'])}})

    def _migrate(self, volume):
        return self._action(volume, {'os-migrate_volume': {
            'host': self.rng.choice(self.pools), 'force_host_copy': False,
            'lock_volume': False}})


def _settled(url):
    """Whether the simulator has nothing under way that no notification
    reports (a status between two notified ones, a migration)."""
    state = requests.get(url + '/simulator/state', timeout=30).json()
    return (not any(m['status'] in MOVING
                    for m in state['volume_migrations'])
            and not any(v['status'] in UNNOTIFIED
                        for v in state['volumes'].values()))


def _difference(expected, found):
    pools = {n: (expected[0].get(n), found[0].get(n))
             for n in set(expected[0]) | set(found[0])
             if expected[0].get(n) != found[0].get(n)}
    volumes = {u: (expected[1].get(u), found[1].get(u))
               for u in set(expected[1]) | set(found[1])
               if expected[1].get(u) != found[1].get(u)}
    return ('storage model differs: %d volumes %s, pools %s'
            % (len(volumes), dict(list(volumes.items())[:5]), pools))


# _agree(url, engines, timeout): every engine's model is the cloud's.
_agree = functools.partial(wait_until_agree, cloud_state=cloud_state,
                           model_state=model_state, difference=_difference,
                           every=0.1)


def test_two_engines_follow_500_volume_operations_and_resync_repairs(
        tmp_path, cinder_conf, rabbit_here):
    with services.simulator(tmp_path, storage_spec(seed=7),
                            transport_url=rabbit_here) as url:
        cinder_conf(url)
        with model_engine.two_engines('storage') as engines:
            operations = Operations(url, random.Random(5))
            for _ in range(OPERATIONS):
                operations.one(list_volumes(url))
            # Every kind of operation happened, many times.
            assert set(operations.done) == {
                'create', 'delete', 'extend', 'attach', 'detach', 'retype',
                'migrate'}, operations.done
            assert min(operations.done.values()) >= 10, operations.done
            wait_for(lambda: _settled(url), timeout=60,
                     what='the last migrations to end')
            # Within 2 s of the cloud's last change.
            _agree(url, engines, timeout=2)
            assert all(e.dispatcher.failed == 0 for e in engines)

            with notifications_dropped(url):
                for _ in range(30):
                    operations.one(list_volumes(url))
                wait_for(lambda: _settled(url), timeout=60,
                         what='the last migrations to end')
                time.sleep(0.5)
                assert model_state(engines[0].model) != cloud_state(url)
            for engine in engines:
                engine.collectors.resync('storage')
            _agree(url, engines, timeout=5)


def engine_model(host):
    """(whether its storage model is ready, its state as model_state
    gives it), from the decision engine process ``host``, asked over RPC
    (the listing GET /v1/data_model?data_model_type=storage shows)."""
    answer = rpc.get_client(rpcapi.TOPIC).prepare(
        server=host, timeout=10).call(
        watcher_context.admin_context().to_dict(), 'get_data_model_info',
        data_model_type='storage', audit_uuid=None)

    def number(text):
        return None if text is None else float(text)
    pools, volumes = {}, {}
    for entry in answer['context']:
        if 'pool_name' in entry:
            pools[entry['pool_name']] = (
                number(entry['pool_total_capacity_gb']),
                number(entry['pool_free_capacity_gb']),
                number(entry['pool_allocated_capacity_gb']),
                entry['pool_volume_backend_name'])
        if 'volume_uuid' in entry:
            volumes[entry['volume_uuid']] = (
                int(entry['volume_size']), entry['volume_status'],
                entry['volume_type'], entry['volume_host'],
                frozenset((a['server_id'], a['attachment_id'])
                          for a in entry['volume_attachments']))
    return answer['model'].get('ready'), (pools, volumes)


def _without_thin(state):
    """cloud_state's pools without the thin flag the listing leaves
    out."""
    pools, volumes = state
    return {name: found[:4] for name, found in pools.items()}, volumes


@MARIADB_ONLY
def test_two_engine_processes_follow_500_volume_operations(
        tmp_path, database, rabbit_here):
    """The same with the decision engines as processes of their own
    (watcher-ha-decision-engine, configured by files), their models read
    over RPC as the API reads them."""
    database_url, _engine = database
    # This process's transport may have been made by an earlier test of
    # the same worker, on another URL: the RPC calls below go to this one.
    rpc.cleanup()
    try:
        with services.simulator(tmp_path / 'cloud', storage_spec(seed=13),
                                transport_url=rabbit_here) as url:
            extra = {
                'watcher_decision_engine': {
                    'collectors': 'compute,storage'},
                'cinder': {'auth_type': 'none',
                           'endpoint_override': url + '/volume/v3'},
                'nova': {'auth_type': 'none',
                         'endpoint_override': url + '/compute/v2.1'},
                'placement': {'auth_type': 'none',
                              'endpoint_override': url + '/placement'}}
            with services.cluster(tmp_path, database_url, rabbit_here,
                                  **extra) as running:
                hosts = ['engine-a', 'engine-b']
                running.start_daemons(engines=hosts)
                for host in hosts:
                    wait_for(lambda host=host: engine_model(host)[0], 60,
                             '%s\'s first storage sync' % host)
                operations = Operations(url, random.Random(17))
                for _ in range(OPERATIONS):
                    operations.one(list_volumes(url))
                assert min(operations.done.values()) >= 10, operations.done
                wait_for(lambda: _settled(url), timeout=60,
                         what='the last migrations to end')
                deadline = time.monotonic() + 2
                while True:
                    expected = _without_thin(cloud_state(url))
                    found = [engine_model(host)[1] for host in hosts]
                    if all(f == expected for f in found):
                        break
                    assert time.monotonic() < deadline, [
                        (set(f[1].items()) ^ set(expected[1].items()),
                         set(f[0].items()) ^ set(expected[0].items()))
                        for f in found]
                    time.sleep(0.1)
    finally:
        rpc.cleanup()
