"""The simulator's Placement usages come from an index of the servers on
each host, kept as servers move: after any mix of boots, deletions,
migrations, resizes (confirmed, reverted and pending), evacuations (with
the allocations they claim on their destination and leave on their
source) and shelving, every host's usage is what a scan of every server
gives."""

import random

import pytest

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import scenario
from watcher_ha.simulator.nova import model
from watcher_ha.simulator.nova import evacuation
from watcher_ha.simulator.nova import hosts as hosts_mod


def scanned(cloud, host):
    """Placement's usage of ``host``, from every server in the cloud."""
    totals = dict.fromkeys(model.RESOURCES, 0)
    for server in cloud.servers.values():
        held = []
        if (server.host == host or server.evacuating_to == host
                or host in server.left_on):
            held.append(server.needs())
        if server.source_host == host and server.vm_state == 'resized':
            held.append(server.needs(server.old_flavor))
        for needs in held:
            for resource, amount in needs.items():
                totals[resource] += amount
    return totals


def settle(cloud):
    """Let the migrations under way (timers) finish."""
    cloud.clock.advance(10)
    assert cloud.clock.pending == 0, 'migrations did not finish'


def test_usages_follow_servers_as_they_move():
    spec = scenario.generate(hosts=5, servers=40, seed=21)
    spec['bandwidth_mb_per_s'] = 10 ** 7
    spec['evacuate_seconds'] = 0.001
    cloud = scenario.build(spec, clock=clock_mod.FakeClock())
    rng = random.Random(4)
    hosts = sorted(cloud.hosts)
    flavors = sorted(cloud.flavors)
    done = set()
    def host_fails_or_recovers(failed):
        host = rng.choice(hosts)
        fail = rng.choice([hosts_mod.lose_power, hosts_mod.crash,
                           hosts_mod.partition])
        (fail if failed else hosts_mod.recover)(cloud, host)
        cloud.update_service(host, forced_down=failed)
    actions = {
        'boot': lambda uuid, step: cloud.create_server(
            'b-%d' % step, rng.choice(flavors)),
        'delete': lambda uuid, step: cloud.delete_server(uuid),
        'live': lambda uuid, step: cloud.live_migrate(uuid),
        'resize': lambda uuid, step: cloud.cold_migrate(
            uuid, flavor=rng.choice(flavors)),
        'migrate': lambda uuid, step: cloud.cold_migrate(uuid),
        'confirm': lambda uuid, step: cloud.confirm_resize(uuid),
        'revert': lambda uuid, step: cloud.revert_resize(uuid),
        'evacuate': lambda uuid, step: evacuation.evacuate(cloud, uuid),
        'shelve': lambda uuid, step: cloud.shelve(uuid),
        'unshelve': lambda uuid, step: cloud.unshelve(uuid),
        'fail': lambda uuid, step: host_fails_or_recovers(True),
        'recover': lambda uuid, step: host_fails_or_recovers(False),
    }
    for step in range(400):
        # In creation order (uuids are random): the same run every time.
        uuid = rng.choice([u for u in cloud.order if u in cloud.servers])
        action = rng.choice(sorted(actions))
        try:
            actions[action](uuid, step)
        except model.Refused:
            continue
        done.add(action)
        settle(cloud)
        for host in hosts:
            assert cloud.used(host) == scanned(cloud, host), (step, action)
    # Each kind of move happened at least once.
    assert {'boot', 'delete', 'live', 'resize', 'migrate', 'confirm',
            'revert', 'evacuate', 'shelve', 'unshelve'} <= done


def test_allocations_are_what_nova_asks_placement_for():
    """A server booted from a volume holds no root disk on its host, swap
    counts as disk (whole GB, rounded up), and a flavor's resources:
    extra specs override its amounts: Placement's usages and the room
    the simulator's scheduler sees follow Nova's request spec, not the
    flavor's fields."""
    cloud = scenario.build({
        'flavors': [
            {'id': '1', 'name': 'plain', 'vcpus': 2, 'ram': 4096,
             'disk': 40, 'ephemeral': 5, 'swap': 1500},
            {'id': '2', 'name': 'override', 'vcpus': 2, 'ram': 4096,
             'disk': 40, 'extra_specs': {'resources:VCPU': '6',
                                         'resources:DISK_GB': '0'}}],
        'hosts': [{'name': 'h1', 'vcpus': 16, 'memory_mb': 65536,
                   'disk_gb': 100, 'vcpu_ratio': 1.0}],
        'servers': [
            {'name': 'image', 'flavor': 'plain', 'host': 'h1'},
            {'name': 'volume', 'flavor': 'plain', 'host': 'h1',
             'boot_from_volume': True},
            {'name': 'override', 'flavor': 'override', 'host': 'h1'}]})
    needs = {s.name: s.needs() for s in cloud.servers.values()}
    assert needs == {
        'image': {'vcpus': 2, 'memory_mb': 4096, 'disk_gb': 47},
        'volume': {'vcpus': 2, 'memory_mb': 4096, 'disk_gb': 7},
        'override': {'vcpus': 6, 'memory_mb': 4096, 'disk_gb': 0}}
    assert cloud.used('h1') == {'vcpus': 10, 'memory_mb': 12288,
                                'disk_gb': 54}
    # 46 GB of disk are left: an image-backed 'plain' (47) does not fit,
    # the same flavor booted from a volume (7) does.
    with pytest.raises(model.Refused, match='No valid host'):
        cloud.create_server('more', 'plain', host='h1')
    cloud.create_server('more', 'plain', host='h1', root_volume='vol-1')
