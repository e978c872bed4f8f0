"""The simulator as a real process, driven by the unmodified
python-novaclient and openstacksdk (compute and bare metal) through
Keystone password auth, with its notifications on a real RabbitMQ checked
against a real Nova's."""

import threading
import time

import openstack
import oslo_messaging
import pytest
import requests
from keystoneauth1 import adapter
from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session
from novaclient import exceptions as nova_exc

from tests import nova_samples
from tests.functional import cloud
from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.fixtures import wait_for
from watcher_ha.simulator import notifications

LIVE = nova_samples.live()
DOCUMENTED = {n['event_type']: n for _, n in nova_samples.documented()}


def host_of(server):
    return getattr(server, 'OS-EXT-SRV-ATTR:host')


def settled(client, uuid):
    server = client.servers.get(uuid)
    return server if getattr(server, 'OS-EXT-STS:task_state') is None \
        else None


SPEC = cloud.SMALL


def connect(url):
    return openstack.connect(
        auth_url=url + '/identity/v3', username='admin', password='admin',
        project_name='admin', user_domain_name='Default',
        project_domain_name='Default', region_name='RegionOne')


def test_novaclient_drives_the_simulator(tmp_path):
    with services.simulator(tmp_path, SPEC) as url:
        client = nova(url)
        hypervisors = client.hypervisors.list(detailed=True)
        assert sorted(h.hypervisor_hostname for h in hypervisors) == [
            'compute-%04d' % i for i in range(4)]
        everything = client.servers.list(search_opts={'all_tenants': True},
                                         limit=-1)
        assert len(everything) == 12
        # Paging as Nova pages: limit and marker.
        first = client.servers.list(limit=5)
        rest = client.servers.list(marker=first[-1].id, limit=100)
        assert [s.id for s in first + rest] == [s.id for s in everything]

        # Live migration: the server reaches the destination.
        server = next(s for s in everything if s.status == 'ACTIVE')
        source = host_of(server)
        target = next(h.hypervisor_hostname for h in hypervisors
                      if h.hypervisor_hostname != source)
        server.live_migrate(host=target, block_migration='auto')
        moved = wait_for(lambda: settled(client, server.id), what='migration')
        assert host_of(moved) == target

        # Disabled hosts get nothing; unknown hosts are a 400.
        service = client.services.list(host=source,
                                       binary='nova-compute')[0]
        client.services.disable_log_reason(service.id, 'maintenance')
        back = client.services.list(host=source)[0]
        assert (back.status, back.disabled_reason) == ('disabled',
                                                       'maintenance')
        with pytest.raises(nova_exc.BadRequest):
            moved.live_migrate(host=source, block_migration='auto')
        with pytest.raises(nova_exc.BadRequest):
            moved.live_migrate(host='no-such-host', block_migration='auto')
        client.services.enable(service.id)
        assert client.services.list(host=source)[0].status == 'enabled'

        # Evacuate is refused while the source is up (400, as Nova), allowed
        # once it is forced down; it takes time, and at 2.96 the server
        # ends stopped.
        victim = next(s for s in client.servers.list()
                      if host_of(s) == target and s.status == 'ACTIVE')
        with pytest.raises(nova_exc.BadRequest):
            victim.evacuate()
        down = client.services.list(host=target)[0]
        client.services.force_down(down.id, True)
        assert client.services.list(host=target)[0].state == 'down'
        victim.evacuate()
        assert client.servers.get(victim.id).status == 'REBUILD'
        evacuated = wait_for(lambda: settled(client, victim.id),
                             what='evacuation')
        assert host_of(evacuated) not in (target, None)
        assert evacuated.status == 'SHUTOFF'

        # Resize then confirm.
        medium = next(f for f in client.flavors.list()
                      if f.name == 'm1.large')
        small = next(s for s in client.servers.list()
                     if s.status == 'ACTIVE'
                     and s.flavor['original_name'] != 'm1.large')
        small.resize(medium)
        wait_for(lambda: client.servers.get(small.id).status
                 == 'VERIFY_RESIZE', what='VERIFY_RESIZE')
        with pytest.raises(nova_exc.Conflict):
            client.servers.get(small.id).live_migrate(
                host=None, block_migration='auto')
        small.confirm_resize()
        resized = client.servers.get(small.id)
        assert (resized.status, resized.flavor['original_name']) == (
            'ACTIVE', 'm1.large')
        with pytest.raises(nova_exc.NotFound):
            client.servers.get('00000000-0000-4000-8000-000000000000')


def test_wrong_password_is_401(tmp_path):
    with services.simulator(tmp_path, SPEC) as url:
        from keystoneauth1 import exceptions as ks_exc
        with pytest.raises(ks_exc.Unauthorized):
            nova(url, password='wrong').servers.list()


def test_openstacksdk_and_auth_none(tmp_path):
    with services.simulator(tmp_path, SPEC) as url:
        conn = connect(url)
        hosts = [h.name for h in conn.compute.hypervisors()]
        assert len(hosts) == 4
        assert len(list(conn.compute.servers(all_projects=True))) == 12
        service = next(iter(conn.compute.services(host=hosts[0])))
        conn.compute.disable_service(service, hosts[0], 'nova-compute',
                                     disabled_reason='sdk')
        assert next(iter(conn.compute.services(
            host=hosts[0]))).status == 'disabled'
        # auth_type none with an endpoint override: no token at all.
        compute = adapter.Adapter(
            ks_session.Session(auth=noauth.NoAuth()),
            endpoint_override=url + '/compute/v2.1')
        assert len(compute.get('/servers').json()['servers']) == 12
        placement = adapter.Adapter(
            ks_session.Session(auth=noauth.NoAuth()),
            endpoint_override=url + '/placement')
        providers = placement.get('/resource_providers').json()[
            'resource_providers']
        inventory = placement.get('/resource_providers/%s/inventories'
                                  % providers[0]['uuid']).json()
        assert set(inventory['inventories']) == {'VCPU', 'MEMORY_MB',
                                                 'DISK_GB'}


def test_openstacksdk_fences_through_the_baremetal_api(tmp_path):
    spec = dict(SPEC, power_seconds=0.3, boot_seconds=0.3,
                evacuate_seconds=0.3)
    with services.simulator(tmp_path, spec) as url:
        conn = connect(url)
        client = nova(url)
        assert sorted(n.name for n in conn.baremetal.nodes()) == [
            'compute-%04d' % i for i in range(4)]
        node = conn.baremetal.get_node('compute-0001')
        assert (node.power_state, node.provision_state) == ('power on',
                                                            'active')
        # Cut off, then forced down: Nova would evacuate now. Fence first.
        requests.post(url + '/simulator/hosts/compute-0001/partition',
                      timeout=10).raise_for_status()
        service = client.services.list(host='compute-0001')[0]
        client.services.force_down(service.id, True)
        conn.baremetal.set_node_power_state(node, 'power off', wait=True,
                                            timeout=30)
        assert conn.baremetal.get_node('compute-0001').power_state == \
            'power off'
        victims = [s for s in client.servers.list()
                   if host_of(s) == 'compute-0001']
        assert victims
        for victim in victims:
            victim.evacuate()
        def evacuated(server):
            found = settled(client, server.id)
            return found is not None and host_of(found) != 'compute-0001'
        wait_for(lambda: all(evacuated(v) for v in victims),
                 what='evacuations')
        state = requests.get(url + '/simulator/state', timeout=10).json()
        assert state['split_brain'] == []
        # An unreachable BMC: the power stays on, last_error says why.
        requests.put(url + '/simulator/faults',
                     json={'bmc_unreachable': ['compute-0002']},
                     timeout=10).raise_for_status()
        conn.baremetal.set_node_power_state('compute-0002', 'power off')
        def action_over():
            found = conn.baremetal.get_node('compute-0002')
            return found if found.target_power_state is None else None
        failed = wait_for(action_over, what='a failed power action')
        assert failed.power_state == 'power on'
        assert 'IPMI call failed' in failed.last_error


class Received:
    def __init__(self, transport_url):
        self.transport = transport = notifications.nova_transport(
            transport_url)
        self.items = []
        self.lock = threading.Lock()
        self.listener = oslo_messaging.get_notification_listener(
            transport, [oslo_messaging.Target(
                topic='versioned_notifications')], [self],
            executor='threading')
        self.listener.start()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        with self.lock:
            self.items.append((event_type, publisher_id, payload))

    def stop(self):
        self.listener.stop()
        self.listener.wait()
        self.transport.cleanup()


def _shape(value):
    """Keys and nova_object versions, recursively."""
    if isinstance(value, dict):
        if 'nova_object.name' in value:
            return (value['nova_object.name'], value['nova_object.version'],
                    _shape(value['nova_object.data']))
        return {key: _shape(item) for key, item in value.items()
                if isinstance(item, dict) and 'nova_object.name' in item} \
            | {'keys': tuple(sorted(value))}
    return None


def test_notifications_match_a_real_nova(tmp_path, own_rabbit):
    received = Received(own_rabbit)
    try:
        spec = dict(SPEC, evacuate_seconds=0.2)
        with services.simulator(tmp_path, spec,
                                transport_url=own_rabbit) as sim:
            client = nova(sim)
            hosts = sorted(h.hypervisor_hostname
                           for h in client.hypervisors.list())
            created = client.servers.create(
                'fresh', None, next(f for f in client.flavors.list()
                                    if f.name == 'm1.tiny'), nics='none')
            server = wait_for(lambda: settled(client, created.id))
            source = host_of(server)
            target = next(h for h in hosts if h != source)
            server.live_migrate(host=target, block_migration='auto')
            wait_for(lambda: settled(client, server.id))
            server.migrate()
            wait_for(lambda: client.servers.get(server.id).status
                     == 'VERIFY_RESIZE')
            server.confirm_resize()
            server.stop()
            server.start()
            server.lock()
            server.unlock()
            server.shelve()
            server.unshelve()
            wait_for(lambda: settled(client, server.id))
            service = client.services.list(host=hosts[0])[0]
            client.services.disable_log_reason(service.id, 'test')
            client.services.force_down(service.id, True)
            for victim in client.servers.list():
                if host_of(victim) == hosts[0] and victim.status in (
                        'ACTIVE', 'SHUTOFF'):
                    victim.evacuate()
                    break
            server.delete()
            time.sleep(2)
    finally:
        received.stop()
    seen = {}
    for event_type, publisher, payload in received.items:
        seen.setdefault(event_type, (publisher, payload))
    expected = {'instance.create.start', 'instance.create.end',
                'instance.update', 'instance.live_migration_pre.start',
                'instance.live_migration_post.end',
                'instance.live_migration_post_dest.end',
                'instance.resize_prep.start', 'instance.resize.end',
                'instance.resize_finish.end', 'instance.resize_confirm.end',
                'instance.power_off.end', 'instance.power_on.end',
                'instance.lock', 'instance.unlock', 'instance.shelve.end',
                'instance.shelve_offload.end', 'instance.unshelve.end',
                'instance.evacuate', 'instance.rebuild_scheduled',
                'instance.rebuild.start', 'instance.rebuild.end',
                'instance.delete.start', 'instance.delete.end',
                'service.update'}
    assert expected <= set(seen), sorted(expected - set(seen))
    for event_type, (publisher, payload) in sorted(seen.items()):
        reference = LIVE.get(event_type) or DOCUMENTED[event_type]
        assert _shape(payload) == _shape(reference['payload']), event_type
        assert publisher.split(':')[0] in ('nova-compute', 'nova-api',
                                           'nova-conductor'), publisher
