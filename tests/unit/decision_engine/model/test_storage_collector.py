"""The storage collector against the simulator's Block Storage API, in
this process (served over HTTP from a thread): a full read, the pools
and volume types that notifications name and the model lacks, and
random volume operations whose notifications (handed straight to the
dispatcher, as the listener does) keep the model equal to the cloud."""

import datetime
import json
import random
import time

import pytest
import requests

from tests import served

from watcher_ha.decision_engine.feed import cinder_events
from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import nova_events
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import listing
from watcher_ha.decision_engine.model import metrics
from watcher_ha.decision_engine.model.collector import manager
from watcher_ha.decision_engine.model.collector import storage
from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator
from watcher_ha.simulator.cinder import notifications as notes

HEADERS = {'X-Auth-Token': 'any', 'OpenStack-API-Version': 'volume 3.60'}
POOLS = ['stor1@lvm-fast#pool1', 'stor1@lvm-fast#pool2',
         'stor2@lvm-slow#pool1']


def spec(volumes=30, seed=3):
    made = scenario.generate(hosts=2, servers=6, seed=seed)
    rng = random.Random(seed)
    made['storage'] = {
        'default_volume_type': 'fast',
        'volume_create_seconds': 0.02, 'volume_delete_seconds': 0.02,
        'volume_extend_seconds': 0.02, 'volume_step_seconds': 0.01,
        'volume_migration_seconds_per_gb': 0.001,
        'backends': [
            {'host': 'stor1', 'backend': 'lvm-fast', 'zone': 'nova',
             'pools': [{'name': 'pool1', 'total_capacity_gb': 500},
                       {'name': 'pool2', 'total_capacity_gb': 300,
                        'thin': True}]},
            {'host': 'stor2', 'backend': 'lvm-slow', 'zone': 'az2',
             'pools': [{'name': 'pool1', 'total_capacity_gb': 800}]}],
        'volume_types': [
            {'name': 'fast', 'extra_specs': {'volume_backend_name':
                                             'lvm-fast'}},
            {'name': 'slow', 'extra_specs': {'volume_backend_name':
                                             'lvm-slow'}},
            {'name': 'any'}],
        'volumes': [{'name': 'v%d' % n, 'size': rng.randint(1, 5),
                     'type': 'any', 'pool': rng.choice(POOLS)}
                    for n in range(volumes)]}
    return made


class Feed:
    """Cinder's notifications of the simulator, to a dispatcher, as the
    listener hands them over (their payloads as the wire carries them)."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        self.sent = 0

    def emit(self, event_type, publisher, payload):
        self.sent += 1
        self.dispatcher.submit(nova_events.Event(
            event_type, publisher, json.loads(json.dumps(payload)),
            elements.utcnow()))


@pytest.fixture
def cloud(conf):
    """(simulator, its URL, a manager of the storage collector on it)."""
    sim = simulator.Simulator(spec())
    with served.app_serving(sim) as url:
        conf.set_override('auth_type', 'none', group='cinder')
        conf.set_override('endpoint_override', url + '/volume/v3',
                          group='cinder')
        made = manager.CollectorManager(['storage'], conf=conf)
        try:
            yield sim, url, made
        finally:
            conf.clear_override('auth_type', group='cinder')
            conf.clear_override('endpoint_override', group='cinder')


def cloud_state(url):
    get = lambda path, **params: requests.get(  # noqa: E731
        url + '/volume/v3' + path, params=params, headers=HEADERS,
        timeout=10).json()
    pools = {p['name']: (p['capabilities']['total_capacity_gb'],
                         p['capabilities']['free_capacity_gb'],
                         p['capabilities']['allocated_capacity_gb'],
                         p['capabilities']['volume_backend_name'])
             for p in get('/scheduler-stats/get_pools',
                          detail='true')['pools']}
    volumes = {v['id']: (v['size'], v['status'], v['volume_type'],
                         v['os-vol-host-attr:host'],
                         frozenset((a['server_id'], a['attachment_id'])
                                   for a in v['attachments']))
               for v in get('/volumes/detail', all_tenants=1)['volumes']}
    return pools, volumes


def model_state(model):
    snapshot = model.snapshot()
    pools = {n: (p.total_capacity_gb, p.free_capacity_gb,
                 p.allocated_capacity_gb, p.volume_backend_name)
             for n, p in snapshot.pools.items()}
    volumes = {u: (v.size, v.status, v.volume_type, v.pool,
                   frozenset(v.attachments))
               for u, v in snapshot.volumes.items()}
    return pools, volumes


def test_without_cinder_credentials_the_collector_says_why(conf):
    made = manager.CollectorManager(['storage'], conf=conf)
    assert made.list() == []
    collector = storage.StorageCollector(
        conf, storage.StorageCollector.make_model('storage'))
    assert '[cinder] auth_type is not set' in collector.disabled_because()
    assert 'no Cinder endpoint' in collector.disabled_because()


def test_a_full_read_is_the_cloud(cloud):
    sim, url, made = cloud
    made.resync('storage')
    model = made.model('storage')
    assert model_state(model) == cloud_state(url)
    snapshot = model.snapshot()
    assert sorted(snapshot.nodes) == ['stor1@lvm-fast', 'stor2@lvm-slow']
    node = snapshot.node('stor2@lvm-slow')
    assert (node.zone, node.volume_types, node.backend) == (
        'az2', ('slow',), 'lvm-slow')
    thin = snapshot.pool('stor1@lvm-fast#pool2')
    assert thin.thin_provisioning_support
    assert thin.virtual_free == sim.cloud.storage.virtual_free(
        sim.cloud.storage.pools[thin.name])
    assert snapshot.allocated(thin.name) == thin.allocated_capacity_gb
    assert len(snapshot.volume_types) == 3
    # The listing, one entry per volume, each with its pool and node.
    entries = listing.entries(snapshot)
    assert {e['volume_uuid'] for e in entries} == set(snapshot.volumes)
    entry = next(e for e in entries if e['pool_name'] == thin.name)
    assert entry['node_host'] == 'stor1@lvm-fast'
    assert entry['pool_total_capacity_gb'] == '300.0'


def _post(url, path, body):
    reply = requests.post(url + '/volume/v3' + path, json=body,
                          headers=HEADERS, timeout=10)
    assert reply.status_code < 300, reply.text
    return reply


def test_a_migration_no_volume_event_tells_is_read_from_the_pools(cloud):
    sim, url, made = cloud
    made.resync('storage')
    model = made.model('storage')
    volume = next(iter(model.snapshot().volumes.values()))
    dest = next(p for p in POOLS if p != volume.pool)
    _post(url, '/volumes/%s/action' % volume.uuid,
          {'os-migrate_volume': {'host': dest}})
    storage_ = sim.cloud.storage
    deadline = time.monotonic() + 10
    while storage_.volumes[volume.uuid].pool != dest:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    # What the scheduler then says of the source pool.
    event = nova_events.Event(
        'capacity.pool', 'capacity.sim-scheduler',
        notes.capacity_payload(storage_, storage_.pools[volume.pool]),
        elements.utcnow())
    missing = model.apply(event)
    assert missing == {(cinder_events.POOL, volume.pool)}
    made.fetch_missing('storage', missing)
    assert model.snapshot().volume(volume.uuid).pool == dest
    # Accounted for now: the same news asks for nothing more.
    assert model.apply(event) == set()


def test_an_unknown_volume_type_is_read_and_named(cloud):
    sim, url, made = cloud
    made.resync('storage')
    model = made.model('storage')
    # A type created after the read, and a volume of it.
    storage_ = sim.cloud.storage
    new = storage_.types[next(iter(storage_.types))].__class__(
        id='00000000-0000-4000-8000-0000000000aa', name='new',
        extra_specs={'volume_backend_name': 'lvm-slow'}, description=None)
    storage_.types[new.id] = new
    volume = next(iter(model.snapshot().volumes.values()))
    payload = notes.volume_payload(storage_, storage_.volumes[volume.uuid],
                                   volume_type=new.id)
    missing = model.apply(nova_events.Event(
        'volume.retype', 'volume.stor1@lvm-fast', payload,
        elements.utcnow()))
    assert (cinder_events.VOLUME_TYPE, new.id) in missing
    made.fetch_missing('storage', missing)
    snapshot = model.snapshot()
    assert snapshot.volume(volume.uuid).volume_type == 'new'
    assert 'new' in snapshot.node('stor2@lvm-slow').volume_types


def _random_operation(url, rng, servers):
    volumes = requests.get(url + '/volume/v3/volumes/detail',
                           params={'all_tenants': 1}, headers=HEADERS,
                           timeout=10).json()['volumes']
    kind = rng.choice(['create', 'delete', 'extend', 'attach', 'detach',
                       'retype', 'migrate'])
    base = url + '/volume/v3'
    if kind == 'create' or not volumes:
        requests.post(base + '/volumes', json={'volume': {
            'size': rng.randint(1, 4),
            'volume_type': rng.choice(['fast', 'slow', 'any'])}},
            headers=HEADERS, timeout=10)
        return
    volume = rng.choice(volumes)
    action = base + '/volumes/%s/action' % volume['id']
    if kind == 'delete':
        requests.delete(base + '/volumes/' + volume['id'], headers=HEADERS,
                        timeout=10)
    elif kind == 'extend':
        requests.post(action, json={'os-extend': {
            'new_size': volume['size'] + 1}}, headers=HEADERS, timeout=10)
    elif kind == 'attach':
        reply = requests.post(base + '/attachments', json={'attachment': {
            'volume_uuid': volume['id'],
            'instance_uuid': rng.choice(servers),
            'connector': {'host': 'h'}}}, headers=HEADERS, timeout=10)
        if reply.status_code == 200:
            requests.post(base + '/attachments/%s/action'
                          % reply.json()['attachment']['id'],
                          json={'os-complete': None}, headers=HEADERS,
                          timeout=10)
    elif kind == 'detach' and volume['attachments']:
        requests.delete(base + '/attachments/'
                        + volume['attachments'][0]['attachment_id'],
                        headers=HEADERS, timeout=10)
    elif kind == 'retype':
        requests.post(action, json={'os-retype': {
            'new_type': rng.choice(['fast', 'slow', 'any']),
            'migration_policy': 'on-demand'}}, headers=HEADERS, timeout=10)
    elif kind == 'migrate':
        requests.post(action, json={'os-migrate_volume': {
            'host': rng.choice(POOLS)}}, headers=HEADERS, timeout=10)


def _settled(sim):
    storage_ = sim.cloud.storage
    with storage_.lock:
        return (not any(m.status in ('starting', 'migrating', 'completing')
                        for m in storage_.moves)
                and not any(v.status in ('retyping', 'reserved',
                                         'attaching', 'creating',
                                         'deleting', 'extending')
                            for v in storage_.volumes.values()))


def test_random_operations_keep_the_model_equal_to_the_cloud(cloud):
    sim, url, made = cloud
    dispatcher = dispatch.Dispatcher(made.handlers())
    dispatcher.start()
    feed = Feed(dispatcher)
    sim.cloud.storage.events = feed
    try:
        made.resync('storage')
        model = made.model('storage')
        rng = random.Random(9)
        servers = list(sim.cloud.servers)
        for _ in range(150):
            _random_operation(url, rng, servers)
        deadline = time.monotonic() + 20
        while not _settled(sim):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        deadline = time.monotonic() + 2
        while model_state(model) != cloud_state(url):
            assert time.monotonic() < deadline, (
                set(model_state(model)[1].items())
                ^ set(cloud_state(url)[1].items()),
                set(model_state(model)[0].items())
                ^ set(cloud_state(url)[0].items()))
            time.sleep(0.05)
        assert dispatcher.failed == 0
        assert feed.sent > 150
    finally:
        dispatcher.stop()


def test_the_storage_model_has_its_metrics(cloud):
    sim, url, made = cloud
    made.resync('storage')

    class Engine:
        collectors = made
    families = {f.name: f for f in metrics.ModelCollector(Engine).collect()}
    found = {name: [(s.labels['model'], s.value) for s in f.samples]
             for name, f in families.items()}
    assert found['watcher_ha_model_volumes'] == [('storage', 30)]
    assert found['watcher_ha_model_pools'] == [('storage', 3)]
    assert found['watcher_ha_model_nodes'] == [('storage', 2)]
    assert found['watcher_ha_model_instances'] == []
    assert found['watcher_ha_model_generation'][0][0] == 'storage'


def test_read_stamps_are_naive_utc(cloud):
    sim, url, made = cloud
    made.resync('storage')
    volume = next(iter(made.model('storage').snapshot().volumes.values()))
    assert volume.stamp.tzinfo is None
    assert abs(volume.stamp - elements.utcnow()) < datetime.timedelta(
        seconds=30)
