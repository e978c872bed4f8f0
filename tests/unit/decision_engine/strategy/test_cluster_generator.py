"""The generated clusters of the strategy benchmark have the shape they
are made for, and the same seed gives the same cluster."""

import collections

from tests import cluster_generator
from tests import strategy_clusters


def _cluster(seed=1):
    return cluster_generator.generate(60, 1200, seed)


def test_the_same_seed_gives_the_same_cluster_another_a_different_one():
    assert _cluster() == _cluster()
    assert _cluster(2)['instances'] != _cluster()['instances']


def test_every_server_fits_where_it_is_placed():
    cluster = _cluster()
    hosts = {h['name']: h for h in cluster['hosts']}
    used = collections.defaultdict(lambda: [0, 0, 0])
    for server in cluster['instances']:
        for r, key in enumerate(('vcpus', 'memory_mb', 'disk_gb')):
            used[server['host']][r] += server[key]
    for name, (vcpus, memory_mb, disk_gb) in used.items():
        capacity = cluster_generator._capacity(hosts[name])
        assert vcpus <= capacity[0]
        assert memory_mb <= capacity[1]
        assert disk_gb <= capacity[2]
    assert len(cluster['instances']) == 1200


def test_the_cluster_has_the_shapes_the_strategies_met_badly():
    cluster = _cluster()
    hosts = cluster['hosts']
    assert len({(h['vcpus'], h['memory_mb']) for h in hosts}) >= 4
    assert any(h['status'] == 'disabled' for h in hosts)
    count = collections.Counter(i['host'] for i in cluster['instances'])
    memory = collections.Counter()
    for server in cluster['instances']:
        memory[server['host']] += server['memory_mb']
    assert any(not count[h['name']] for h in hosts)
    cpu = cluster['metrics']['hosts']
    # Idle but full: under 5 % CPU with over 90 % of the memory given out.
    idle_and_full = [
        h for h in hosts if count[h['name']]
        and cpu[h['name']]['host_cpu_usage'] < 5.0
        and memory[h['name']] > 0.9 * cluster_generator._capacity(h)[1]]
    assert idle_and_full
    assert any(v['host_cpu_usage'] > 60.0 for v in cpu.values())


def test_our_model_reads_a_generated_cluster():
    cluster = _cluster()
    snapshot, values = strategy_clusters.from_reference(cluster)
    assert len(snapshot.nodes) == 60
    assert len(snapshot.instances) == 1200
    assert len(values['instance_cpu_usage']) == 1200
    assert len(values['host_cpu_usage']) == 60
