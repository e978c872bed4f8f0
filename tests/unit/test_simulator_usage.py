"""The simulator's Placement usages come from an index of the servers on
each host, kept as servers move: after any mix of boots, deletions,
migrations, resizes (confirmed, reverted and pending), evacuations (with
the allocations they claim on their destination and leave on their
source) and shelving, every host's usage is what a scan of every server
gives."""

import random
import time

from watcher_ha.simulator import cloud as cloud_mod
from watcher_ha.simulator import evacuation
from watcher_ha.simulator import hosts as hosts_mod
from watcher_ha.simulator import scenario


def scanned(cloud, host):
    """Placement's usage of ``host``, from every server in the cloud."""
    totals = dict.fromkeys(cloud_mod.RESOURCES, 0)
    for server in cloud.servers.values():
        held = []
        if (server.host == host or server.evacuating_to == host
                or host in server.left_on):
            held.append(server.flavor)
        if server.source_host == host and server.vm_state == 'resized':
            held.append(server.old_flavor)
        for flavor in held:
            for resource, amount in flavor.needs().items():
                totals[resource] += amount
    return totals


def settle(cloud):
    """Wait for the migrations under way (timers) to finish."""
    deadline = time.monotonic() + 10
    while any(timer.is_alive() for timer in cloud.timers):
        assert time.monotonic() < deadline, 'migrations did not finish'
        time.sleep(0.01)


def test_usages_follow_servers_as_they_move():
    spec = scenario.generate(hosts=5, servers=40, seed=21)
    spec['bandwidth_mb_per_s'] = 10 ** 7
    spec['evacuate_seconds'] = 0.001
    cloud = scenario.build(spec)
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
        except cloud_mod.Refused:
            continue
        done.add(action)
        settle(cloud)
        for host in hosts:
            assert cloud.used(host) == scanned(cloud, host), (step, action)
    # Each kind of move happened at least once.
    assert {'boot', 'delete', 'live', 'resize', 'migrate', 'confirm',
            'revert', 'evacuate', 'shelve', 'unshelve'} <= done
