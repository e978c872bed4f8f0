"""The cluster data model against the simulator: a full sync through
novaclient and Placement, then random operations (boots, deletions, live
migrations, resizes, services disabled and enabled, host failures and
recoveries, evacuations) whose notifications (RabbitMQ) keep two
engines' models equal to the cloud (one engine reads them in its own
process, the other with two listener processes); with notifications
dropped by fault injection, and a host failure no one reports, the next
resync repairs the models."""

import dataclasses
import functools
import datetime
import random
import threading
import time

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session
import pytest
import requests

from tests.functional import cloud
from tests.functional import model_engine
from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.cloud import overridden
from tests.functional.fixtures import wait_for
from tests.helpers.models_agree import notifications_dropped
from tests.helpers.models_agree import wait_until_agree
from watcher_ha.conf import CONF
from watcher_ha.decision_engine.model.collector import compute
from watcher_ha.decision_engine.model.collector import manager as \
    collector_manager
from watcher_ha.simulator import scenario

OPERATIONS = 1000


NODE_FIELDS = ('status', 'state', 'disabled_reason', 'availability_zone',
               'vcpus', 'memory_mb', 'disk_gb')
SERVER_RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')


def cloud_state(url):
    """{hostname: (status, state, disabled reason, zone, capacity...,
    aggregates)}, {uuid: (host, vm_state, flavor resources...)} as the
    simulator has them."""
    state = requests.get(url + '/simulator/state', timeout=30).json()
    nodes = {name: tuple(h[f] for f in NODE_FIELDS)
             + (frozenset(h['aggregates']),)
             for name, h in state['hosts'].items()}
    servers_ = {uuid: (s['host'], s['vm_state'])
                + tuple(s['needs'][r] for r in SERVER_RESOURCES)
                for uuid, s in state['servers'].items()}
    return nodes, servers_


def model_state(model):
    """The same, as ``model`` has them."""
    snapshot = model.snapshot()
    nodes = {name: tuple(getattr(n, f) for f in NODE_FIELDS)
             + (n.aggregates,)
             for name, n in snapshot.nodes.items()}
    servers_ = {uuid: (i.host, i.state)
                + tuple(getattr(i, r) for r in SERVER_RESOURCES)
                for uuid, i in snapshot.instances.items()}
    return nodes, servers_


def test_full_sync_reads_placement_while_nova_lists_servers(
        tmp_path, nova_conf, monkeypatch):
    """The server list is the longest read of a full sync: Placement's
    inventories (a request per compute node) are read beside it, not
    after it. The server list is held until an inventory request begins,
    and that one waits for the server list to be under way: read one
    after the other, one of them would wait in vain."""
    listing = threading.Event()
    inventory_read = threading.Event()
    waited = {}
    send = session.Session.request

    def request(self, url, method, **kwargs):
        if '/servers/detail' in url:
            listing.set()
            waited['listing'] = inventory_read.wait(10)
        elif url.endswith('/inventories'):
            waited.setdefault('inventory', listing.wait(10))
            inventory_read.set()
        return send(self, url, method, **kwargs)
    monkeypatch.setattr(session.Session, 'request', request)
    with services.simulator(tmp_path, cloud.SMALL) as url:
        nova_conf(url)
        collectors = collector_manager.CollectorManager(['compute'])
        collectors.resync('compute')
        assert collectors.model('compute').ready
        assert model_state(collectors.model('compute')) == cloud_state(url)
    assert waited == {'listing': True, 'inventory': True}


def test_full_sync_asks_for_the_next_page_while_converting_one(
        tmp_path, nova_conf, monkeypatch):
    """Nova's server list comes in pages of 1,000; a full sync of 2,100
    servers reads the three pages, and no more, and converts each page
    into model elements while Nova serves the next. The request for the
    second page is held until a conversion begins: with every page read
    before the first conversion, it would wait in vain."""
    converting = threading.Event()
    pages_asked = []
    waited = []
    send = session.Session.request
    convert = compute.ComputeCollector._instance

    def request(self, url, method, **kwargs):
        if '/servers/detail' in url:
            pages_asked.append(url)
            if len(pages_asked) == 2:
                waited.append(converting.wait(10))
        return send(self, url, method, **kwargs)

    def instance(info, stamp, *allocations):
        converting.set()
        return convert(info, stamp, *allocations)
    monkeypatch.setattr(session.Session, 'request', request)
    monkeypatch.setattr(compute.ComputeCollector, '_instance',
                        staticmethod(instance))
    with services.simulator(tmp_path, scenario.generate(hosts=30, servers=2100,
                                                        seed=5)) as url:
        nova_conf(url)
        collectors = collector_manager.CollectorManager(['compute'])
        collectors.resync('compute')
        model = collectors.model('compute')
        assert len(model.snapshot().instances) == 2100
        assert model_state(model) == cloud_state(url)
    assert waited == [True]
    assert len(pages_asked) == 3
    assert 'marker=' not in pages_asked[0]
    assert all('marker=' in url for url in pages_asked[1:])


def test_full_sync_reads_every_page_of_hypervisors_and_servers(
        tmp_path, nova_conf):
    """Nova cuts each list at its max_limit: with 7, 30 hosts come in five
    pages of hypervisors and 100 servers in fifteen pages, and every one
    of them is in the model."""
    spec = scenario.generate(hosts=30, servers=100, seed=8)
    spec['max_limit'] = 7
    with services.simulator(tmp_path, spec) as url:
        nova_conf(url)
        collectors = collector_manager.CollectorManager(['compute'])
        collectors.resync('compute')
        model = collectors.model('compute')
        snapshot = model.snapshot()
        assert len(snapshot.nodes) == 30
        assert len(snapshot.instances) == 100
        assert model_state(model) == cloud_state(url)


def test_full_sync_counts_what_placement_holds_beyond_the_servers(
        tmp_path, nova_conf):
    """A server waiting for its resize to be confirmed runs on its new
    host, and its old flavor is still allocated on the old one: that
    hold, which no server in the model accounts for, is counted as used
    there, so every node's use in the model is Placement's."""
    with services.simulator(tmp_path, cloud.SMALL) as url:
        client = nova(url)
        large = next(f for f in client.flavors.list()
                     if f.name == 'm1.large')
        server = next(s for s in client.servers.list()
                      if s.status == 'ACTIVE'
                      and s.flavor['original_name'] != 'm1.large')
        source = getattr(server, 'OS-EXT-SRV-ATTR:host')
        old_memory = server.flavor['ram']
        server.resize(large)
        wait_for(lambda: client.servers.get(server.id).status
                 == 'VERIFY_RESIZE', what='VERIFY_RESIZE')
        nova_conf(url)
        collectors = collector_manager.CollectorManager(['compute'])
        collectors.resync('compute')
        snapshot = collectors.model('compute').snapshot()
        hosts = requests.get(url + '/simulator/state',
                             timeout=30).json()['hosts']
        assert snapshot.instance(server.id).host != source
        assert snapshot.node(source).memory_mb_held == old_memory
        for name, host in hosts.items():
            for resource in ('vcpus', 'memory_mb', 'disk_gb'):
                assert snapshot.used(name, resource) == \
                    host['used'][resource], (name, resource)
        assert sum(node.memory_mb_held
                   for node in snapshot.nodes.values()) == old_memory


def test_a_hung_nova_fails_the_sync_instead_of_holding_it(tmp_path,
                                                          nova_conf):
    """Every request has a timeout ([nova] timeout, 60 s by default):
    here 1 s, against a Nova that answers after 5."""
    with services.simulator(tmp_path, cloud.SMALL) as url:
        nova_conf(url)
        requests.put(url + '/simulator/faults', json={'api_delay': 5},
                     timeout=10).raise_for_status()
        collectors = collector_manager.CollectorManager(['compute'])
        started = time.monotonic()
        with overridden((('timeout', 1, 'nova'),
                         ('timeout', 1, 'placement'))):
            # keystoneauth names any timeout so.
            with pytest.raises(ks_exc.ConnectTimeout):
                collectors.get('compute').build(datetime.datetime.now())
        assert time.monotonic() - started < 5
    assert CONF.nova.timeout == CONF.placement.timeout == 60


def test_full_sync_reads_the_whole_cloud(tmp_path, nova_conf):
    with services.simulator(tmp_path, cloud.SMALL) as url:
        nova_conf(url)
        collectors = collector_manager.CollectorManager(['compute'])
        collectors.resync('compute')
        model = collectors.model('compute')
        assert model.ready
        assert model_state(model) == cloud_state(url)
        snapshot = model.snapshot()
        node = snapshot.node('compute-0000')
        # Capacity from Placement, zone and aggregates from Nova.
        assert (node.vcpus, node.memory_mb, node.disk_gb) == (64, 262144,
                                                              4000)
        assert (node.vcpu_ratio, node.memory_ratio) == (16.0, 1.5)
        assert node.memory_mb_reserved == 512
        assert node.availability_zone == 'az-0'
        assert node.aggregates == {'rack-0'}
        # Stamped as read: an older aggregate event cannot undo it.
        assert snapshot.aggregates['rack-0'].stamp == node.stamp
        some = next(iter(snapshot.instances.values()))
        assert some.vcpus > 0 and some.memory_mb > 0
        # One node read alone (a node a notification named) is the same,
        # but for what Placement holds beyond its servers, which only a
        # full read tells.
        alone = collectors.get('compute').fetch_node('compute-0000',
                                                     node.stamp)
        assert alone == dataclasses.replace(node, vcpus_held=0,
                                            memory_mb_held=0,
                                            disk_gb_held=0)
        assert collectors.get('compute').fetch_node('nowhere',
                                                    node.stamp) is None


def _random_operation(client, url, rng, hosts):
    servers_ = client.servers.list(limit=-1)
    action = rng.choice(['boot', 'delete', 'migrate', 'migrate',
                         'resize', 'disable', 'enable', 'stop_start',
                         'fail', 'recover', 'evacuate'])
    try:
        if action == 'boot' or not servers_:
            flavor = rng.choice(client.flavors.list())
            client.servers.create('r-%d' % rng.randrange(10 ** 6), None,
                                  flavor, nics='none')
            return
        server = rng.choice(servers_)
        if action == 'delete':
            server.delete()
        elif action == 'migrate' and server.status == 'ACTIVE':
            server.live_migrate(host=rng.choice(hosts),
                                block_migration='auto')
        elif action == 'resize' and server.status == 'ACTIVE':
            flavor = rng.choice(client.flavors.list())
            server.resize(flavor)
        elif action == 'stop_start':
            (server.start if server.status == 'SHUTOFF' else server.stop)()
        elif action in ('disable', 'enable'):
            service = client.services.list(host=rng.choice(hosts))[0]
            if action == 'disable':
                client.services.disable_log_reason(service.id, 'random')
            else:
                client.services.enable(service.id)
        elif action in ('fail', 'recover'):
            _fail_or_recover(client, url, rng.choice(hosts), action)
        elif action == 'evacuate':
            down = [s.host for s in client.services.list(
                binary='nova-compute') if s.state == 'down']
            on_down = [s for s in servers_
                       if getattr(s, 'OS-EXT-SRV-ATTR:host') in down]
            if on_down:
                client.servers.evacuate(rng.choice(on_down))
        for pending in client.servers.list(limit=-1):
            if pending.status == 'VERIFY_RESIZE':
                pending.confirm_resize()
    except Exception as err:  # noqa: BLE001
        # Refusals (no room, wrong state) are part of the game.
        if getattr(err, 'code', None) not in (400, 404, 409):
            raise


def _fail_or_recover(client, url, host, action, report=True):
    """A host failure as a cloud sees it: the host stops reporting, and
    the monitor that notices (Masakari's host monitor, say) forces its
    compute service down, the call Nova offers such monitors, so that
    evacuations may begin; a recovery undoes both. With ``report``
    False, no one tells Nova: a missed heartbeat is not notified, so only
    a resync shows the host down."""
    requests.post('%s/simulator/hosts/%s/%s' % (url, host, action),
                  timeout=10).raise_for_status()
    if report:
        service = client.services.list(host=host,
                                       binary='nova-compute')[0]
        client.services.force_down(service.id, action == 'fail')


def _difference(expected, found):
    missing = set(expected[1]) ^ set(found[1])
    wrong = {u: (expected[1].get(u), found[1].get(u))
             for u in set(expected[1]) & set(found[1])
             if expected[1][u] != found[1][u]}
    nodes = {h: (expected[0].get(h), found[0].get(h))
             for h in set(expected[0]) | set(found[0])
             if expected[0].get(h) != found[0].get(h)}
    return ('model differs: servers missing or extra %s, different %s, '
            'nodes %s' % (sorted(missing)[:5], dict(list(wrong.items())[:5]),
                          nodes))


# _agree(url, engines, timeout): every engine's model is the cloud's.
_agree = functools.partial(wait_until_agree, cloud_state=cloud_state,
                           model_state=model_state, difference=_difference,
                           every=0.2)


def test_two_engines_follow_the_cloud_and_resync_repairs(
        tmp_path, nova_conf, rabbit_here):
    spec = scenario.generate(hosts=6, servers=60, seed=11)
    # Fast migrations: the test waits for none.
    spec['bandwidth_mb_per_s'] = 10 ** 6
    # Evacuations as fast as the migrations: while one is under way the
    # model puts the server on its destination, Nova on its source.
    spec['evacuate_seconds'] = 0.05
    with services.simulator(tmp_path, spec,
                            transport_url=rabbit_here) as url:
        nova_conf(url)
        with model_engine.two_engines('compute') as engines:
            client = nova(url)
            hosts = ['compute-%04d' % i for i in range(6)]
            rng = random.Random(5)
            for _ in range(OPERATIONS):
                _random_operation(client, url, rng, hosts)
            # Within 2 s of the last notification.
            _agree(url, engines, timeout=2)
            assert all(e.dispatcher.failed == 0 for e in engines)

            with notifications_dropped(url):
                for _ in range(50):
                    _random_operation(client, url, rng, hosts)
                # And a host that fails with no one to report it.
                up = [s.host for s in client.services.list(
                    binary='nova-compute') if s.state == 'up']
                _fail_or_recover(client, url, up[0], 'fail', report=False)
                time.sleep(1)
                assert model_state(engines[0].model) != cloud_state(url)
            for engine in engines:
                engine.collectors.resync('compute')
            _agree(url, engines, timeout=5)
