"""saving_energy: on hand-made clusters and Ironic nodes, how many hosts
it powers off or on and which; that it never touches a host holding a
server (in the model or in Placement), a protected host, a node on
maintenance or one already going where it would be sent; its
parameters; and, through the simulator's Bare Metal and Placement APIs
served on a socket, its reads of the cloud."""

import threading

import pytest
from oslo_config import cfg

from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.common import context as watcher_context
from watcher_ha.common import exception
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.db import failover_segments
from watcher_ha.db import reserved_hosts
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import saving_energy as se
from watcher_ha.service import wsgi_server
from watcher_ha.simulator import simulator
from watcher_ha.simulator.nova import hosts as sim_hosts

CONF = cfg.CONF
ON, OFF = 'power on', 'power off'


def bare_metal(name, power=ON, target=None, maintenance=False,
               compute=None):
    """The node of compute host ``name`` (uuid-<name> in the model)."""
    return se.BareMetalNode(
        uuid='node-' + name, name=name, power_state=power,
        target_power_state=target, maintenance=maintenance,
        compute_node_id=compute or 'uuid-' + name)


def cluster(empty=(), busy=(), **node_values):
    """Hosts ``busy`` with a server each, ``empty`` without;
    ``node_values``: {hostname: ComputeNode fields}."""
    nodes = [c.node(name, **node_values.get(name, {}))
             for name in (*busy, *empty)]
    servers = [c.server('vm-' + name, name) for name in busy]
    return c.build(nodes, servers)


def plan(snapshot, nodes, protected=(), watched=(), allocated=frozenset(),
         **parameters):
    """{hostname: 'on' or 'off'} the strategy decides."""
    checked = parameters_mod.check(se.SavingEnergy.parameters_spec,
                                   parameters)
    pools = se.sort_hosts(snapshot, nodes, frozenset(protected),
                          watched=frozenset(watched),
                          allocated=lambda computes: frozenset(allocated))
    return {host.hostname: state for host, state in se.decide(
        pools, checked['free_used_percent'],
        checked['min_free_hosts_num'])}


def names(*numbers, prefix='free'):
    return ['%s-%d' % (prefix, n) for n in numbers]


def test_the_empty_hosts_beyond_the_margin_are_powered_off():
    busy, empty = names(1, 2, prefix='busy'), names(1, 2, 3, 4)
    nodes = [bare_metal(n) for n in busy + empty]
    # Default margin: max(2 * 10 %, 1) = 1 host kept on.
    assert plan(cluster(empty, busy), nodes) == {
        'free-1': 'off', 'free-2': 'off', 'free-3': 'off'}
    assert plan(cluster(empty, busy), nodes, min_free_hosts_num=3) == {
        'free-1': 'off'}
    assert plan(cluster(empty, busy), nodes, min_free_hosts_num=4) == {}


def test_the_margin_grows_with_the_hosts_holding_servers():
    busy, empty = names(*range(20), prefix='busy'), names(*range(8))
    nodes = [bare_metal(n) for n in busy + empty]
    # int(max(20 * 25 %, 1)) = 5 kept on; int(max(20 * 12 %, 1)) = 2.
    assert len(plan(cluster(empty, busy), nodes,
                    free_used_percent=25)) == 3
    assert len(plan(cluster(empty, busy), nodes,
                    free_used_percent=12)) == 6


def test_hosts_out_of_service_are_powered_off_first():
    empty = names(1, 2, 3)
    snapshot = cluster(empty, ['busy'], **{
        'free-3': {'status': 'disabled'}})
    nodes = [bare_metal(n) for n in ['busy'] + empty]
    assert plan(snapshot, nodes, min_free_hosts_num=2) == {'free-3': 'off'}


def test_powered_off_hosts_are_powered_on_when_the_margin_is_short():
    off = names(1, 2, 3, 4)
    snapshot = cluster(off, ['busy'], **{
        # Nova still reports one up (a stale reading), one is disabled.
        'free-1': {'state': 'up'},
        'free-2': {'state': 'down', 'status': 'disabled'},
        'free-3': {'state': 'down'}, 'free-4': {'state': 'down'}})
    nodes = [bare_metal('busy')] + [bare_metal(n, OFF) for n in off]
    assert plan(snapshot, nodes, min_free_hosts_num=2) == {
        'free-3': 'on', 'free-4': 'on'}
    assert plan(snapshot, nodes, min_free_hosts_num=3) == {
        'free-3': 'on', 'free-4': 'on', 'free-2': 'on'}
    # As many as there are.
    assert plan(snapshot, nodes, min_free_hosts_num=9) == {
        name: 'on' for name in off}


def test_a_host_holding_anything_is_never_powered_off():
    empty = names(1, 2, 3)
    snapshot = cluster(empty, ['busy'], **{
        # Placement counted something there beyond the model's servers.
        'free-1': {'memory_mb_held': 512}})
    nodes = [bare_metal(n) for n in ['busy'] + empty]
    # free-2 has an allocation in Placement now: held, as free-1 and
    # busy, so the margin is int(max(3 * 10 %, 0)) = 0.
    decided = plan(snapshot, nodes, allocated={'free-2'},
                   min_free_hosts_num=0)
    assert decided == {'free-3': 'off'}


def test_a_server_of_any_state_holds_its_host():
    snapshot = c.build(
        [c.node('shelving'), c.node('free-1')],
        [c.server('stopped', 'shelving', state='stopped')])
    nodes = [bare_metal('shelving'), bare_metal('free-1')]
    assert plan(snapshot, nodes, min_free_hosts_num=0) == {'free-1': 'off'}


def test_protected_hosts_and_ironic_maintenance_are_left_alone():
    empty = names(1, 2, 3, 4)
    snapshot = cluster(empty, ['busy'])
    nodes = [bare_metal('busy'), bare_metal('free-1'),
             bare_metal('free-2', maintenance=True),
             bare_metal('free-3'), bare_metal('free-4', OFF)]
    # free-3 is a reserved host of a failover segment (or claimed, or on
    # maintenance): neither powered off nor counted as free.
    assert plan(snapshot, nodes, protected={'free-3'},
                min_free_hosts_num=0) == {'free-1': 'off'}
    assert plan(snapshot, nodes, protected={'free-3', 'free-4'},
                min_free_hosts_num=3) == {}
    assert plan(snapshot, nodes, protected={'free-3'},
                min_free_hosts_num=3) == {'free-4': 'on'}


def test_a_failover_segments_host_counts_as_free_but_stays_on():
    off = names(1, 2, 3)
    snapshot = cluster(names(4, 5) + off, ['busy'])
    nodes = [bare_metal(n) for n in ['busy', 'free-4', 'free-5']] + [
        bare_metal(n, OFF) for n in off]
    # free-4 and free-5 are members of an enabled segment: powered off,
    # they would be reported failed. They are the margin, though.
    assert plan(snapshot, nodes, watched={'free-4', 'free-5'},
                min_free_hosts_num=0) == {}
    assert plan(snapshot, nodes, watched={'free-4', 'free-5'},
                min_free_hosts_num=2) == {}
    assert plan(snapshot, nodes, watched={'free-4'},
                min_free_hosts_num=1) == {'free-5': 'off'}
    # Powered off already, a member is powered on as any host.
    assert plan(snapshot, nodes, watched={'free-4', 'free-1'},
                min_free_hosts_num=3) == {'free-1': 'on'}


def test_a_node_with_a_power_action_under_way_counts_where_it_goes():
    snapshot = cluster(names(1, 2), ['busy'])
    # Going off: not a free powered-on host, and not powered on again.
    going_off = [bare_metal('busy'), bare_metal('free-1', ON, target=OFF),
                 bare_metal('free-2', OFF)]
    assert plan(snapshot, going_off) == {'free-2': 'on'}
    assert plan(snapshot, going_off, min_free_hosts_num=2) == {
        'free-2': 'on'}
    # Going on: free already, and not powered off again.
    going_on = [bare_metal('busy'), bare_metal('free-1', OFF, target=ON),
                bare_metal('free-2', ON)]
    assert plan(snapshot, going_on) == {'free-2': 'off'}
    assert plan(snapshot, going_on, min_free_hosts_num=0) == {
        'free-2': 'off'}


def test_unmapped_unknown_and_doubly_claimed_hosts_are_left_alone():
    empty = names(1, 2, 3, 4)
    snapshot = cluster(empty, ['busy'])
    nodes = [bare_metal('busy'),
             # Outside the model (or the audit's scope).
             bare_metal('elsewhere'),
             # Ironic cannot read its power.
             bare_metal('free-1', power=None),
             # Two nodes say they run free-2.
             bare_metal('free-2'),
             se.BareMetalNode(uuid='node-twin', power_state=ON,
                              compute_node_id='uuid-free-2'),
             bare_metal('free-3'), bare_metal('free-4')]
    assert plan(snapshot, nodes, min_free_hosts_num=0) == {
        'free-3': 'off', 'free-4': 'off'}


def test_watchers_parameters_and_defaults():
    spec = se.SavingEnergy.parameters_spec
    assert parameters_mod.check(spec, {}) == {
        'free_used_percent': 10.0, 'min_free_hosts_num': 1}
    assert {name: prop['type'] for name, prop in
            spec['properties'].items()} == {
        'free_used_percent': 'number', 'min_free_hosts_num': 'number'}


@pytest.mark.parametrize('given', [
    {'free_used_percent': -1}, {'min_free_hosts_num': -2},
    {'free_used_percent': 'ten'}, {'min_free_hosts_num': True},
])
def test_bad_parameters_are_refused_naming_them(given):
    with pytest.raises(exception.Invalid, match=list(given)[0]):
        parameters_mod.check(se.SavingEnergy.parameters_spec, given)


# Against the simulator's APIs.

@pytest.fixture
def cloud(db, config):
    """The simulator, served on a socket, with [ironic] and [placement]
    of this process pointed at it: compute-0 holds vm-a, the others are
    empty."""
    sim = simulator.Simulator({
        'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8,
                   'memory_mb': 32768, 'disk_gb': 500} for i in range(5)],
        'servers': [{'name': 'vm-a', 'flavor': 'm1.small',
                     'host': 'compute-0'}]})
    sock = wsgi_server.bind('127.0.0.1', 0)
    server = wsgi_server._InheritedSocketServer(sock, sim, numthreads=2)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    url = 'http://127.0.0.1:%d' % sock.getsockname()[1]
    for group, path in (('ironic', '/baremetal'),
                        ('placement', '/placement')):
        config.config(group=group, auth_type='none',
                      endpoint_override=url + path)
    try:
        yield sim
    finally:
        server.stop()
        thread.join(5)
        sock.close()
        sim.stop()


def model_of(sim, empty_in_model=()):
    """The compute model of the simulated cloud, its servers left out
    of the model on the hosts ``empty_in_model`` (as a model that has not
    heard of them yet, or a scope that leaves them out)."""
    changes = state.ClusterState().changes()
    for host in sim.cloud.hosts.values():
        changes.put_node(elements.ComputeNode(
            hostname=host.name, uuid=host.uuid, vcpus=host.vcpus,
            memory_mb=host.memory_mb, disk_gb=host.disk_gb,
            state=host.state, status=host.status))
    for server in sim.cloud.servers.values():
        if server.host not in empty_in_model:
            changes.put_instance(elements.Instance(
                uuid=server.uuid, name=server.name, host=server.host))
    return changes.state()


def test_read_nodes_maps_each_node_to_its_compute_host(cloud,
                                                       monkeypatch):
    # Pages of two nodes: every page is read.
    monkeypatch.setattr(se, 'PAGE', 2)
    nodes = se.read_nodes()
    assert len(nodes) == 5
    by_host = {cloud.cloud.hosts[n.name].uuid: n for n in nodes}
    assert {n.compute_node_id: n for n in nodes} == by_host
    assert {n.power for n in nodes} == {se.ON}


def test_a_server_only_placement_knows_of_keeps_its_host_on(cloud):
    snapshot = model_of(cloud, empty_in_model={'compute-0'})
    with cloud.cloud.lock:
        sim_hosts.power_off(cloud.cloud, cloud.cloud.hosts['compute-4'])
    solution = strategy_runs.run(se.SavingEnergy, snapshot,
                                 min_free_hosts_num=1)
    decided = {a.input_parameters['resource_name']: a.input_parameters[
        'state'] for a in solution.actions}
    # compute-0 holds vm-a in Placement: a host with servers, never
    # powered off; of the three free powered-on hosts one stays on;
    # compute-4, off already, is not acted on.
    assert decided == {'compute-1': 'off', 'compute-2': 'off'}
    # Watcher's action and parameters: the node by its Ironic uuid.
    for action in solution.actions:
        hostname = action.input_parameters['resource_name']
        assert action.action_type == 'change_node_power_state'
        assert action.input_parameters == {
            'resource_id': cloud.ironic.node(hostname).uuid,
            'resource_name': hostname, 'state': 'off'}
    assert solution.indicator_values == {}


def test_reserved_and_segment_hosts_stay_on(cloud):
    """compute-3 belongs to an enabled failover segment, compute-4 is
    its reserved host: as the auditor sets it, compute-4 is protected;
    with no margin, only the two others are powered off."""
    context = watcher_context.admin_context()
    segment = failover_segments.create_segment(context, {
        'name': 'rack-1', 'service_type': 'COMPUTE',
        'recovery_method': 'reserved_host'})
    for name in ('compute-0', 'compute-3', 'compute-4'):
        failover_segments.create_host(context, segment['uuid'], {
            'name': name, 'type': 'COMPUTE', 'control_attributes': '',
            'reserved': name == 'compute-4'})
    solution = strategy_runs.run(
        se.SavingEnergy, model_of(cloud),
        protected=reserved_hosts.kept_for_failover(context),
        min_free_hosts_num=0)
    assert {a.input_parameters['resource_name']: a.input_parameters[
        'state'] for a in solution.actions} == {'compute-1': 'off',
                                                'compute-2': 'off'}


def test_without_ironic_the_audit_fails_saying_what_to_set(conf):
    snapshot = cluster(['free-1'])
    with pytest.raises(base.StrategyError, match=r'\[ironic\] auth_type'):
        strategy_runs.run(se.SavingEnergy, snapshot)


def test_an_unreachable_ironic_fails_the_audit(config):
    config.config(auth_type='none', group='ironic')
    config.config(endpoint_override='http://127.0.0.1:9/baremetal',
                  group='ironic')
    with pytest.raises(base.StrategyError, match='Ironic is '
                                                 'unreachable'):
        se.read_nodes()
