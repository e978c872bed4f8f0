"""The simulator's networks, as Nova shows them: a server created with
``auto`` gets a port on the cloud's network, a list a port on each
network it names, in order, ``none`` no port; a network Neutron does
not have is refused as Nova refuses it; ``addresses`` and os-interface
show the ports (os-interface also for a server whose host is down);
the image asked for is the server's."""

from tests.helpers.simulator_calls import microversion
from tests.helpers.simulator_calls import request
from watcher_ha.simulator.nova import hosts

BLUE = '0b000000-0000-4000-8000-000000000001'
GREEN = '0b000000-0000-4000-8000-000000000002'
IMAGE = '0c000000-0000-4000-8000-000000000001'
SPEC = {
    'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8, 'memory_mb': 32768,
               'disk_gb': 500} for i in range(2)],
    'servers': [],
    'networks': [{'id': BLUE, 'name': 'blue', 'cidr': '10.1.0.0/24'},
                 {'id': GREEN, 'name': 'green', 'cidr': '10.2.0.0/24'}]}


def nova(sim, method, path, body=None, version='2.96'):
    return request(sim, method, '/compute/v2.1' + path, body,
                   microversion('compute', version))


def create(sim, networks, **more):
    return nova(sim, 'POST', '/servers', {'server': dict({
        'name': 'vm', 'flavorRef': 'm1.small', 'imageRef': IMAGE,
        'networks': networks}, **more)})


def test_each_network_asked_for_is_a_port_in_order(sim):
    made = create(sim, [{'uuid': GREEN}, {'uuid': BLUE}])
    assert made.status_int == 202, made.text
    uuid = made.json['server']['id']
    ports = nova(sim, 'GET', '/servers/%s/os-interface' % uuid).json[
        'interfaceAttachments']
    assert [p['net_id'] for p in ports] == [GREEN, BLUE]
    assert [p['fixed_ips'][0]['ip_address'] for p in ports] == [
        '10.2.0.2', '10.1.0.2']
    assert all(p['port_state'] == 'ACTIVE' and p['tag'] is None
               for p in ports)
    shown = nova(sim, 'GET', '/servers/' + uuid).json['server']
    assert sorted(shown['addresses']) == ['blue', 'green']
    assert shown['addresses']['blue'][0]['addr'] == '10.1.0.2'
    assert shown['image']['id'] == IMAGE
    # Before 2.70 an interface has no tag.
    assert 'tag' not in nova(sim, 'GET', '/servers/%s/os-interface' % uuid,
                             version='2.69').json[
        'interfaceAttachments'][0]
    # The addresses given out are not given again.
    other = create(sim, [{'uuid': BLUE}]).json['server']['id']
    assert nova(sim, 'GET', '/servers/' + other).json['server'][
        'addresses']['blue'][0]['addr'] == '10.1.0.3'


def test_auto_takes_the_first_network_and_none_takes_none(sim):
    auto = create(sim, 'auto').json['server']['id']
    assert [p['net_id'] for p in nova(
        sim, 'GET', '/servers/%s/os-interface' % auto).json[
        'interfaceAttachments']] == [BLUE]
    none = create(sim, 'none').json['server']['id']
    assert nova(sim, 'GET', '/servers/' + none).json['server'][
        'addresses'] == {}


def test_a_network_neutron_does_not_have_is_refused(sim):
    missing = '0b000000-0000-4000-8000-00000000000f'
    refused = create(sim, [{'uuid': missing}])
    assert refused.status_int == 400
    assert refused.json['badRequest']['message'] == \
        'Network %s could not be found.' % missing
    assert sim.cloud.servers == {}


def test_a_down_host_s_server_still_shows_its_ports(sim):
    uuid = create(sim, [{'uuid': GREEN}],
                  availability_zone='nova:compute-0').json['server']['id']
    hosts.lose_power(sim.cloud, 'compute-0')
    found = nova(sim, 'GET', '/servers/%s/os-interface' % uuid)
    assert found.status_int == 200
    assert [p['net_id'] for p in found.json['interfaceAttachments']] == [
        GREEN]
