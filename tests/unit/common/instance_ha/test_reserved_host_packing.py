"""The fewest reserved hosts that hold a failed host's servers."""

from watcher_ha.common.instance_ha import packing

SMALL = packing.Size(vcpus=1, memory_mb=2048, disk_gb=20)
LARGE = packing.Size(vcpus=8, memory_mb=16384, disk_gb=160)


def free(vcpus, memory_mb, disk_gb=1000):
    return {'vcpus': vcpus, 'memory_mb': memory_mb, 'disk_gb': disk_gb}


def test_one_host_that_holds_everything_is_enough():
    servers = {'a': SMALL, 'b': SMALL, 'c': LARGE}
    result = packing.fewest_hosts(servers, {
        'r1': free(32, 65536), 'r2': free(32, 65536)})
    assert result.hosts == ('r1',)
    assert set(result.placement.values()) == {'r1'}
    assert result.unplaced == ()


def test_too_small_a_host_takes_a_second_one():
    servers = {'a': LARGE, 'b': LARGE}
    result = packing.fewest_hosts(servers, {
        'small': free(8, 20000), 'tiny': free(2, 4096),
        'other': free(8, 20000)})
    assert sorted(result.hosts) == ['other', 'small']
    assert sorted(result.placement) == ['a', 'b']
    assert result.placement['a'] != result.placement['b']


def test_the_largest_host_is_tried_first():
    result = packing.fewest_hosts({'a': SMALL}, {
        'r1': free(4, 8192), 'r2': free(64, 262144)})
    assert result.hosts == ('r2',)


def test_hosts_held_already_are_filled_first():
    # A recovery run again keeps what it holds and adds only what it
    # still needs.
    servers = {'a': LARGE, 'b': LARGE}
    result = packing.fewest_hosts(servers, {
        'held': free(8, 16384), 'big': free(64, 262144)}, held=('held',))
    assert result.hosts == ('held', 'big')
    assert sorted(result.placement.values()) == ['big', 'held']


def test_what_fits_nowhere_is_named_and_the_rest_placed():
    servers = {'a': SMALL, 'huge': packing.Size(128, 10 ** 6, 10)}
    result = packing.fewest_hosts(servers, {'r1': free(8, 16384)})
    assert result.placement == {'a': 'r1'}
    assert result.unplaced == ('huge',)
    assert result.hosts == ('r1',)


def test_no_server_needs_no_host():
    assert packing.fewest_hosts({}, {'r1': free(8, 16384)}).hosts == ()


def test_the_same_input_chooses_the_same_hosts():
    servers = {'s%d' % i: SMALL for i in range(30)}
    hosts = {'r%d' % i: free(8, 16384) for i in range(10)}
    first = packing.fewest_hosts(servers, hosts)
    assert first == packing.fewest_hosts(dict(reversed(servers.items())),
                                         dict(reversed(hosts.items())))
    # 8 GiB per host holds 8 of the 30 servers (2 GiB each): 4 hosts.
    assert len(first.hosts) == 4
