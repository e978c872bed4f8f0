"""claim_reserved_hosts against the simulator's Compute and Placement
APIs, and the give-back at a recovery's end.

It packs the failed host's servers by what Placement holds for them and
what the reserved hosts have free there when it claims: a server booted
from a volume takes no root disk on its new host, and a reserved host
that something was placed on since the plan was made has less room than
the plan thought. With join_aggregates it puts the hosts it holds in the
failed host's aggregates, so that servers kept to the failed host's zone
can be evacuated onto them, and a host given back unused leaves them
again."""

import pytest
import requests
import sqlalchemy as sa

from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.cloud import nova_of_this_process
from tests.functional.cloud import overridden
from tests.helpers.segments import reserved_host_segment
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import claim_reserved_hosts
from watcher_ha.applier.actions import evacuate
from watcher_ha.applier.actions import force_host_down
from watcher_ha.applier.actions import nova_base
from watcher_ha.applier.actions import settle_recovery
from watcher_ha.cloud import reserved_pool
from watcher_ha.common import context as watcher_context
from watcher_ha.db import engine
from watcher_ha.db import failover_segments
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.db import reserved_hosts

NOTIFICATION = '5b1f3c55-0000-4000-8000-00000000c1a1'
FAILED, RESERVED = 'failed-1', ('reserved-1', 'reserved-2')
LARGE = {'vcpus': 4, 'memory_mb': 8192, 'disk_gb': 80}
# A reserved host's room for the zone tests: all of them fit.
LARGE_ROOM = {'vcpus': 512, 'memory_mb': 97536, 'disk_gb': 1000}


@pytest.fixture(scope='module')
def cloud(conf, tmp_path_factory):
    """The failed host with four large servers booted from volumes (80
    GB of root disk each by their flavor, none in Placement) and two
    reserved hosts of 100 GB; [nova] and [placement] of this process on
    the simulator. Yields (novaclient, {host: provider uuid})."""
    spec = {
        'flavors': [{'id': '4', 'name': 'm1.large', 'vcpus': 4,
                     'ram': 8192, 'disk': 80},
                    {'id': '9', 'name': 'huge', 'vcpus': 8, 'ram': 80000,
                     'disk': 10}],
        'hosts': [{'name': name, 'vcpus': 32, 'memory_mb': 65536,
                   'disk_gb': 100, 'reserved': name in RESERVED}
                  for name in (FAILED,) + RESERVED],
        'servers': [{'name': 'vm-%d' % index, 'flavor': 'm1.large',
                     'host': FAILED, 'boot_from_volume': True}
                    for index in range(4)]}
    with services.simulator(tmp_path_factory.mktemp('sim'), spec) as url, \
            nova_of_this_process(url), overridden((
                ('auth_type', 'none', 'placement'),
                ('endpoint_override', url + '/placement', 'placement'))):
        client = nova(url)
        providers = {h.hypervisor_hostname: h.id
                     for h in client.hypervisors.list()}
        yield client, providers


@pytest.fixture
def segment(db):
    return reserved_host_segment([FAILED], RESERVED)['uuid']


def claim(client, segment_uuid, providers=None, capacity=None, **more):
    """Run the claim as a plan made on the data model has it: the
    servers by their flavors, the reserved hosts empty; the names it
    holds."""
    servers = {s.id: LARGE for s in client.servers.list()
               if nova_base.host_of(s) == FAILED}
    parameters = {
        'notification_uuid': NOTIFICATION, 'segment_uuid': segment_uuid,
        'source_node': FAILED, 'servers': servers,
        'capacity': capacity or {
            name: {'vcpus': 512, 'memory_mb': 97536, 'disk_gb': 100}
            for name in RESERVED}}
    if providers is not None:
        parameters['providers'] = providers
    parameters.update(more)
    claim_reserved_hosts.ClaimReservedHosts(
        parameters, context=watcher_context.admin_context(),
        fence=lambda: None).execute()
    return reserved_hosts.held_by(watcher_context.admin_context(),
                                  NOTIFICATION)


def destinations():
    with engine.get_engine().connect() as conn:
        rows = conn.execute(sa.select(models.VMove.status,
                                      models.VMove.dest_host)).all()
    return sorted(rows, key=lambda row: (row[0], row[1] or ''))


def test_servers_booted_from_volumes_fit_on_one_reserved_host(cloud,
                                                              segment):
    client, providers = cloud
    assert claim(client, segment, providers) == ['reserved-1']
    assert destinations() == [('pending', 'reserved-1')] * 4


def test_the_moves_are_written_in_one_batch_behind_one_fence(cloud,
                                                             segment):
    """One write, and one fence before it, for every server's move (not
    one each: a hundred servers took seconds)."""
    client, providers = cloud
    writes, fences = [], []

    def note(conn, cursor, statement, parameters, context, executemany):
        if statement.split()[0] in ('INSERT', 'UPDATE') and \
                'vmoves' in statement.split('(')[0]:
            writes.append(statement)
    sa.event.listen(engine.get_engine(), 'before_cursor_execute', note)
    try:
        servers = {s.id: LARGE for s in client.servers.list()
                   if nova_base.host_of(s) == FAILED}
        claim_reserved_hosts.ClaimReservedHosts({
            'notification_uuid': NOTIFICATION, 'segment_uuid': segment,
            'source_node': FAILED, 'servers': servers,
            'providers': providers,
            'capacity': {name: LARGE_ROOM for name in RESERVED}},
            context=watcher_context.admin_context(),
            fence=lambda: fences.append(len(writes))).execute()
    finally:
        sa.event.remove(engine.get_engine(), 'before_cursor_execute', note)
    assert len(servers) == 4
    assert destinations() == [('pending', 'reserved-1')] * 4
    assert len(writes) == 1, writes
    # Before the hosts are claimed, before a host is enabled in Nova,
    # before the moves: none between or after their writes.
    assert fences and set(fences) == {0}, fences


def test_by_the_flavors_alone_it_would_take_both_and_strand_two(
        cloud, segment):
    # A plan made before plans named the providers: the claim packs by
    # the flavors, as it did before it read Placement.
    client, _providers = cloud
    assert sorted(claim(client, segment)) == list(RESERVED)
    assert destinations() == [('failed', None)] * 2 + [
        ('pending', 'reserved-1'), ('pending', 'reserved-2')]


def test_an_attempt_that_left_servers_keeps_its_claims_for_the_next(
        cloud, segment):
    """settle_recovery fails an attempt that did not move every server,
    and the hosts it holds stay held: the next attempt puts the servers
    left on them, not on more reserved hosts."""
    client, providers = cloud
    assert claim(client, segment, providers) == ['reserved-1']
    settle = settle_recovery.SettleRecovery({
        'notification_uuid': NOTIFICATION, 'segment_uuid': segment,
        'source_node': FAILED}, context=watcher_context.admin_context(),
        fence=lambda: None)
    with pytest.raises(base.ActionError, match='were not moved off'):
        settle.execute()
    assert reserved_hosts.held_by(watcher_context.admin_context(),
                                  NOTIFICATION) == ['reserved-1']
    # The next attempt's claim keeps it, and takes nothing more.
    assert claim(client, segment, providers) == ['reserved-1']


def test_a_reserved_host_filled_since_the_plan_is_passed_over(cloud,
                                                              segment):
    client, providers = cloud
    # An admin booted a server onto reserved-1 by name (a reserved host
    # is disabled to the scheduler, not to that) since the plan was
    # made: 17,536 MB are left there, room for two of the four.
    squatter = client.servers.create('squatter', image=None, flavor='9',
                                     nics='none',
                                     availability_zone='nova:reserved-1')
    try:
        # By the plan, both are empty and the first by name is taken.
        assert claim(client, segment, providers) == ['reserved-2']
        assert destinations() == [('pending', 'reserved-2')] * 4
    finally:
        client.servers.delete(squatter)


@pytest.fixture
def zoned(tmp_path, segment):
    """The failed host in the aggregate of zone az1 with two servers
    booted in az1; the reserved hosts in Nova's default zone, reserved-2
    in an aggregate of zone az2. Yields (simulator URL, novaclient)."""
    spec = {
        'evacuate_seconds': 0.2,
        'flavors': [{'id': '4', 'name': 'm1.large', 'vcpus': 4,
                     'ram': 8192, 'disk': 80}],
        'hosts': [
            {'name': FAILED, 'vcpus': 32, 'memory_mb': 65536,
             'disk_gb': 1000, 'availability_zone': 'az1',
             'aggregates': ['rack-az1', 'gpu']},
            {'name': 'reserved-1', 'vcpus': 32, 'memory_mb': 65536,
             'disk_gb': 1000, 'reserved': True},
            {'name': 'reserved-2', 'vcpus': 32, 'memory_mb': 65536,
             'disk_gb': 1000, 'reserved': True, 'availability_zone': 'az2',
             'aggregates': ['rack-az2']}],
        'servers': [{'name': 'vm-%d' % index, 'flavor': 'm1.large',
                     'host': FAILED, 'pinned_availability_zone': 'az1'}
                    for index in range(2)]}
    with services.simulator(tmp_path, spec) as url, nova_of_this_process(url):
        yield url, nova(url)


def members(client):
    return {a.name: sorted(a.hosts) for a in client.aggregates.list()}


def zone_of(client, host):
    [service] = client.services.list(host=host, binary='nova-compute')
    return service.zone


def evacuate_all(url, client):
    requests.post('%s/simulator/hosts/%s/fail' % (url, FAILED),
                  timeout=10).raise_for_status()
    force_host_down.ForceHostDown({'resource_name': FAILED}).execute()
    for server in client.servers.list():
        action = evacuate.Evacuate({
            'resource_id': server.id, 'resource_name': server.name,
            'source_node': FAILED, 'destination_node': None,
            'destination_from_claim': True,
            'notification_uuid': NOTIFICATION},
            context=watcher_context.admin_context())
        try:
            action.execute()
        except base.ActionError:
            pass
    return sorted((nova_base.host_of(s), s.status)
                  for s in client.servers.list())


def test_held_hosts_join_the_failed_hosts_aggregates(zoned, segment):
    url, client = zoned
    held = claim(client, segment, join_aggregates=True,
                 capacity={'reserved-1': LARGE_ROOM})
    assert held == ['reserved-1']
    assert members(client) == {'rack-az1': [FAILED, 'reserved-1'],
                               'gpu': [FAILED, 'reserved-1'],
                               'rack-az2': ['reserved-2']}
    assert zone_of(client, 'reserved-1') == 'az1'
    # Run again (a take-over): joined once, no error.
    assert claim(client, segment, join_aggregates=True,
                 capacity={'reserved-1': LARGE_ROOM}) == ['reserved-1']
    assert members(client)['rack-az1'] == [FAILED, 'reserved-1']
    # The scheduler keeps the servers in az1: reserved-1 is in it now.
    assert evacuate_all(url, client) == [('reserved-1', 'ACTIVE')] * 2


def test_without_joining_the_zone_keeps_them_off_the_reserved_host(
        zoned, segment):
    url, client = zoned
    assert claim(client, segment,
                 capacity={'reserved-1': LARGE_ROOM}) == ['reserved-1']
    assert zone_of(client, 'reserved-1') == 'nova'
    assert evacuate_all(url, client) == [(FAILED, 'ERROR')] * 2


def test_a_host_of_another_zone_cannot_join_and_the_claim_says_why(
        zoned, segment):
    _url, client = zoned
    with pytest.raises(base.ActionError,
                       match='Nova refused to put reserved host '
                             'reserved-2 in aggregate rack-az1 of failed '
                             'host failed-1: .*availability zone'):
        claim(client, segment, join_aggregates=True,
              capacity={'reserved-2': LARGE_ROOM})


def test_a_host_given_back_leaves_what_it_joined_and_only_that(zoned,
                                                               segment):
    _url, client = zoned
    context = watcher_context.admin_context()
    claim(client, segment, join_aggregates=True,
          capacity={'reserved-1': LARGE_ROOM})
    # Unused (no server moved): back to the pool, out of the failed
    # host's aggregates, back in Nova's default zone, disabled.
    passed = []
    assert reserved_pool.give_back(context, client, NOTIFICATION,
                            fence=lambda: passed.append(1)) == [
                                'reserved-1']
    assert members(client) == {'rack-az1': [FAILED], 'gpu': [FAILED],
                               'rack-az2': ['reserved-2']}
    assert zone_of(client, 'reserved-1') == 'nova'
    [service] = client.services.list(host='reserved-1',
                                     binary='nova-compute')
    assert service.status == 'disabled'
    assert passed
    hosts = {h['name']: h for h in failover_segments.list_hosts(
        context, segment, query.Paging(), {})}
    assert (hosts['reserved-1']['reserved'],
            hosts['reserved-1']['claimed_by']) == (True, None)
