"""Every Nova notification of the reference captures, applied to the
cluster data model."""

import dataclasses
import datetime
import random

import pytest

from tests import nova_samples
from tests.helpers.nova_events import event
from tests.helpers.nova_events import model_with
from tests.helpers.nova_events import node
from tests.helpers.nova_events import T0
from watcher_ha.decision_engine.feed import nova_events
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state as model_state
from watcher_ha.decision_engine.model.collector import manager

LIVE = nova_samples.live()
DOCUMENTED = nova_samples.documented()

# Event types in the references that say nothing about where servers run
# or what compute nodes can hold. Each one is a decision: a new event type
# in the references fails test_every_reference_event_type_is_decided.
IGNORED = {
    'instance.exists',          # usage audit, nothing changed
    'instance.create.error', 'instance.reboot.error',
    'instance.rebuild.error', 'instance.resize.error',
    'instance.interface_attach.error', 'instance.volume_attach.error',
    'instance.volume_swap.error', 'instance.share_attach.error',
    'instance.share_detach.error',  # an .error is followed by an update
    'compute.exception', 'compute_task.build_instances.error',
    'compute_task.migrate_server.error',
    'compute_task.rebuild_server.error',
    'libvirt.connect.error', 'metrics.update', 'volume.usage',
    'flavor.create', 'flavor.update', 'flavor.delete',
    'keypair.create.start', 'keypair.create.end', 'keypair.delete.start',
    'keypair.delete.end', 'keypair.import.start', 'keypair.import.end',
    'scheduler.select_destinations.start',
    'scheduler.select_destinations.end',
    'server_group.create', 'server_group.delete',
    'server_group.add_member',
    'aggregate.create.start', 'aggregate.create.end',
    'aggregate.delete.start', 'aggregate.add_host.start',
    'aggregate.remove_host.start', 'aggregate.update_metadata.start',
    'aggregate.update_prop.start',
    'aggregate.cache_images.start', 'aggregate.cache_images.progress',
    'aggregate.cache_images.end',
}


def all_hosts(notification):
    data = notification['payload']['nova_object.data']
    publisher = notification.get('publisher_id', '').partition(':')[2]
    return {h for h in (data.get('host'), publisher) if h}


def reference_events():
    found = [('live/' + name, n) for name, n in sorted(LIVE.items())]
    found += [('samples/' + name, n) for name, n in DOCUMENTED]
    return found


def test_every_reference_event_type_is_decided():
    types = {n['event_type'] for _, n in reference_events()}
    undecided = sorted(t for t in types
                       if not nova_events.handles(t) and t not in IGNORED)
    assert undecided == []
    assert not {t for t in types if nova_events.handles(t)} & IGNORED


INSTANCE_REFERENCES = [(where, n) for where, n in reference_events()
                       if n['event_type'] in nova_events.PLACEMENT]


@pytest.mark.parametrize('where,notification', INSTANCE_REFERENCES,
                         ids=[w for w, _ in INSTANCE_REFERENCES])
def test_instance_event_applied(where, notification):
    data = notification['payload']['nova_object.data']
    flavor = data['flavor']['nova_object.data']
    model = model_with(*all_hosts(notification))
    before = model.generation
    missing = model.apply(event(notification))
    state = model.snapshot()
    gone = (notification['event_type'] == 'instance.delete.end'
            or data['state'] in elements.GONE_STATES)
    if gone:
        assert state.instance(data['uuid']) is None
        assert data['uuid'] in state.tombstones
        return
    instance = state.instance(data['uuid'])
    assert state.generation == before + 1
    assert instance.name == data['display_name']
    assert instance.state == data['state']
    assert (instance.vcpus, instance.memory_mb, instance.disk_gb) == (
        flavor['vcpus'], flavor['memory_mb'],
        flavor['root_gb'] + flavor['ephemeral_gb'])
    assert instance.project_id == data['tenant_id']
    assert instance.metadata_dict == data['metadata']
    assert instance.flavor_extra_specs_dict == flavor.get('extra_specs', {})
    assert instance.locked == data['locked']
    rule = nova_events.PLACEMENT[notification['event_type']]
    publisher = notification.get('publisher_id', '')
    if rule == nova_events.PUBLISHER and publisher.startswith(
            'nova-compute:'):
        assert instance.host == publisher.partition(':')[2]
    else:
        # KEEP on an unknown server: the payload is all there is.
        assert instance.host == data['host']
    if instance.host is not None:
        assert data['uuid'] in {i.uuid for i in
                                state.instances_on(instance.host)}
    assert missing == set()


def test_unknown_host_is_reported_for_fetching():
    notification = LIVE['instance.create.end']
    model = model_with()
    assert model.apply(event(notification)) == {
        notification['payload']['nova_object.data']['host']}


def _replay(names, hosts):
    """Apply live captures in the order Nova sent them."""
    model = model_with(*hosts)
    captured = sorted((nova_events.parse_time(LIVE[n]['metadata'][
        'timestamp']), n) for n in names)
    for stamp, name in captured:
        model.apply(event(LIVE[name], stamp))
    return model.snapshot()


def test_live_migration_ends_on_the_destination():
    """post.end names the source and comes after post_dest.end."""
    names = ['instance.create.end'] + [n for n in LIVE if n.startswith(
        'instance.live_migration_')]
    state = _replay(names, ['fake-compute-2', 'fake-compute-3'])
    uuid = LIVE['instance.live_migration_post.end']['payload'][
        'nova_object.data']['uuid']
    assert state.instance(uuid).host == 'fake-compute-2'
    assert state.instances_on('fake-compute-3') == []


LIVE_MIGRATION = ['instance.create.end'] + [
    n for n in LIVE if n.startswith('instance.live_migration_')]
EVACUATION = ['instance.evacuate', 'instance.rebuild_scheduled',
              'instance.rebuild.start', 'instance.power_off.start',
              'instance.power_off.end', 'instance.rebuild.end']
RESIZE = [n for n in LIVE if n.startswith('instance.resize')]


@pytest.mark.parametrize('names,hosts', [
    (LIVE_MIGRATION, ['fake-compute-2', 'fake-compute-3']),
    (EVACUATION, ['fake-compute-1', 'fake-compute-3']),
    (RESIZE, ['fake-compute-2', 'fake-compute-3']),
], ids=['live-migration', 'evacuation', 'resize'])
def test_a_move_ends_the_same_in_any_order(names, hosts):
    """Two listener processes, or Nova's computes, may deliver a move's
    events out of order: the model ends as the in-order replay does,
    also when the last events (a live migration's ``post.end``) name the
    source and arrive before the one that names the destination."""
    in_order = _replay(names, hosts).instances
    rng = random.Random(7)
    for _ in range(200):
        model = model_with(*hosts)
        shuffled = list(names)
        rng.shuffle(shuffled)
        for name in shuffled:
            model.apply(event(LIVE[name], nova_events.parse_time(
                LIVE[name]['metadata']['timestamp'])))
        found = model.snapshot().instances
        assert {u: (i.host, i.state, i.stamp) for u, i in found.items()} == {
            u: (i.host, i.state, i.stamp) for u, i in in_order.items()}, (
            shuffled)


def test_evacuation_ends_on_the_rebuilding_compute():
    names = ['instance.evacuate', 'instance.rebuild_scheduled',
             'instance.rebuild.start', 'instance.power_off.start',
             'instance.power_off.end', 'instance.rebuild.end']
    state = _replay(names, ['fake-compute-1', 'fake-compute-3'])
    uuid = LIVE['instance.rebuild.end']['payload']['nova_object.data'][
        'uuid']
    assert state.instance(uuid).host == 'fake-compute-3'
    assert state.instance(uuid).state == 'stopped'


def test_an_evacuation_under_way_leaves_the_server_on_its_failed_host():
    # Nova moves it when the rebuild ends; one that never ends (its
    # destination died meanwhile) leaves it where Nova shows it.
    names = ['instance.evacuate', 'instance.rebuild_scheduled',
             'instance.rebuild.start']
    state = _replay(names, ['fake-compute-1', 'fake-compute-3'])
    uuid = LIVE['instance.rebuild.start']['payload']['nova_object.data'][
        'uuid']
    assert state.instance(uuid).host == 'fake-compute-1'


def test_resize_follows_the_server_to_its_new_host():
    names = [n for n in LIVE if n.startswith('instance.resize')]
    state = _replay(names, ['fake-compute-2', 'fake-compute-3'])
    uuid = LIVE['instance.resize.end']['payload']['nova_object.data']['uuid']
    assert state.instance(uuid).host == 'fake-compute-3'
    assert state.instance(uuid).state == 'active'


def test_shelve_offload_unplaces_and_unshelve_places_again():
    names = ['instance.shelve.start', 'instance.shelve.end',
             'instance.shelve_offload.start', 'instance.shelve_offload.end']
    state = _replay(names, ['fake-compute-1', 'fake-compute-2'])
    uuid = LIVE['instance.shelve.end']['payload']['nova_object.data']['uuid']
    assert state.instance(uuid).host is None
    assert state.instances_on('fake-compute-1') == []
    state = _replay(names + ['instance.unshelve.start',
                             'instance.unshelve.end'],
                    ['fake-compute-1', 'fake-compute-2'])
    assert state.instance(uuid).host == 'fake-compute-2'


def test_older_and_duplicate_events_change_nothing():
    model = model_with('fake-compute-2')
    newer = LIVE['instance.power_on.end']
    older = LIVE['instance.power_on.start']
    model.apply(event(newer, T0 + datetime.timedelta(seconds=2)))
    uuid = newer['payload']['nova_object.data']['uuid']
    model.apply(event(older, T0 + datetime.timedelta(seconds=1)))
    assert model.snapshot().instance(uuid).state == 'active'
    model.apply(event(newer, T0 + datetime.timedelta(seconds=2)))
    assert model.snapshot().instance(uuid).state == 'active'


def test_a_late_update_does_not_resurrect_a_deleted_server():
    """Nova sends instance.update for servers it already deleted."""
    model = model_with('fake-compute-3')
    deleted = LIVE['instance.delete.end']
    uuid = deleted['payload']['nova_object.data']['uuid']
    late = dict(LIVE['instance.delete.start'])
    model.apply(event(deleted, T0 + datetime.timedelta(seconds=5)))
    model.apply(event(late, T0 + datetime.timedelta(seconds=1)))
    assert model.snapshot().instance(uuid) is None
    assert model.snapshot().instances_on('fake-compute-3') == []


def test_delete_before_create_leaves_no_ghost():
    model = model_with('fake-compute-3')
    created = LIVE['instance.create.end']
    uuid = created['payload']['nova_object.data']['uuid']
    deleted = {'event_type': 'instance.delete.end', 'publisher_id': '',
               'payload': {'nova_object.data': dict(
                   created['payload']['nova_object.data'],
                   state='deleted')}}
    model.apply(event(deleted, T0 + datetime.timedelta(seconds=9)))
    model.apply(event(created, T0 + datetime.timedelta(seconds=1)))
    assert model.snapshot().instance(uuid) is None


def _deleted(uuid):
    data = LIVE['instance.create.end']['payload']['nova_object.data']
    return {'event_type': 'instance.delete.end', 'publisher_id': '',
            'payload': {'nova_object.data': dict(data, uuid=uuid,
                                                  state='deleted')}}


def test_a_delete_wins_whatever_the_clocks_say():
    """Each Nova service stamps with its own clock: a delete stamped
    just before the last update it follows still deletes, and no update
    stamped after it brings the server back."""
    model = model_with('fake-compute-3')
    updated = LIVE['instance.update']
    uuid = updated['payload']['nova_object.data']['uuid']
    model.apply(event(updated, T0 + datetime.timedelta(seconds=5)))
    model.apply(event(_deleted(uuid), T0 + datetime.timedelta(
        seconds=4, microseconds=995000)))
    assert model.snapshot().instance(uuid) is None
    model.apply(event(updated, T0 + datetime.timedelta(seconds=6)))
    assert model.snapshot().instance(uuid) is None


def test_a_restore_brings_back_a_soft_deleted_server():
    samples = dict(DOCUMENTED)
    soft, restored = (samples['instance-soft_delete-end'],
                      samples['instance-restore-end'])
    uuid = soft['payload']['nova_object.data']['uuid']
    model = model_with(*all_hosts(soft), *all_hosts(restored))
    model.apply(event(soft, T0 + datetime.timedelta(seconds=1)))
    assert model.snapshot().instance(uuid) is None
    model.apply(event(restored, T0 + datetime.timedelta(seconds=2)))
    assert model.snapshot().instance(uuid) is not None


def test_a_resync_keeps_recent_tombstones_and_forgets_old_ones():
    """A server deleted before a resync read Nova is not in the fresh
    state; a late update about it must not bring it back. Tombstones
    older than the previous read are dropped, so they do not pile up."""
    model = model_with('fake-compute-3')
    updated = LIVE['instance.update']
    uuid = updated['payload']['nova_object.data']['uuid']
    model.apply(event(_deleted(uuid), T0 + datetime.timedelta(seconds=5)))
    model.apply(event(_deleted('old-one'), T0 - datetime.timedelta(
        hours=2)))

    def resync(read_at):
        model.begin_resync(read_at)
        fresh = model_state.ClusterState().changes()
        fresh.put_node(node('fake-compute-3'))
        model.finish_resync(fresh.state())
    resync(T0 + datetime.timedelta(seconds=10))
    model.apply(event(updated, T0 + datetime.timedelta(seconds=1)))
    assert model.snapshot().instance(uuid) is None
    assert set(model.snapshot().tombstones) == {uuid, 'old-one'}
    # The next resync keeps only the removals since the previous read.
    resync(T0 + datetime.timedelta(hours=1))
    assert set(model.snapshot().tombstones) == set()


def test_service_update_disables_and_forces_down():
    notification = LIVE['service.update']
    data = notification['payload']['nova_object.data']
    model = model_with(data['host'])
    assert model.apply(event(notification)) == set()
    compute = model.snapshot().node(data['host'])
    assert (compute.status, compute.disabled_reason, compute.state) == (
        'disabled', data['disabled_reason'], 'up')
    assert compute.vcpus == 8     # capacity is not in the payload: kept
    forced = {'event_type': 'service.update', 'publisher_id': '',
              'payload': {'nova_object.data': dict(data, forced_down=True,
                                                   disabled=False)}}
    model.apply(event(forced, T0 + datetime.timedelta(seconds=1)))
    assert model.snapshot().node(data['host']).state == 'down'
    assert model.snapshot().node(data['host']).status == 'enabled'


def test_a_service_silent_for_long_stays_down_when_disabled():
    """A host that died without being forced down, seen down by a
    resync: disabling its service (an update naming its last report, long
    ago) leaves it down; a service that reported just before is up."""
    notification = LIVE['service.update']
    data = notification['payload']['nova_object.data']
    sent = nova_events.parse_time(notification['metadata']['timestamp'])
    model = model_with(data['host'])
    model.apply(event(notification, sent))
    assert model.snapshot().node(data['host']).state == 'up'
    late = sent + datetime.timedelta(
        seconds=nova_events.SERVICE_DOWN_TIME + 5)
    model.apply(event(notification, late))
    assert model.snapshot().node(data['host']).state == 'down'


@pytest.mark.parametrize('where,notification', [
    (w, n) for w, n in reference_events()
    if n['event_type'] in nova_events.SERVICE_EVENTS])
def test_service_events(where, notification):
    data = notification['payload']['nova_object.data']
    model = model_with()
    if notification['event_type'] == 'service.delete':
        model = model_with(data['host'])
        model.apply(event(notification))
        assert model.snapshot().node(data['host']) is None
        return
    missing = model.apply(event(notification))
    if data['binary'] == 'nova-compute':
        assert missing == {data['host']}
        assert model.snapshot().node(data['host']).status == (
            'disabled' if data['disabled'] else 'enabled')
    else:
        assert len(model.snapshot().nodes) == 0


@pytest.mark.parametrize('where,notification', [
    (w, n) for w, n in reference_events()
    if n['event_type'] in nova_events.AGGREGATE_EVENTS])
def test_aggregate_events(where, notification):
    data = notification['payload']['nova_object.data']
    members = set(data['hosts'] or ())
    model = model_with('outsider', *members)
    if notification['event_type'] != 'aggregate.add_host.end':
        # It was there before.
        model.update(lambda c: [c.put_node(dataclasses.replace(
            model.snapshot().node(h), aggregates=frozenset([data['name']])))
            for h in ['outsider', *members]])
    model.apply(event(notification))
    state = model.snapshot()
    inside = notification['event_type'] != 'aggregate.delete.end'
    for hostname in members:
        assert (data['name'] in state.node(hostname).aggregates) == inside
    assert data['name'] not in state.node('outsider').aggregates
    zone = (data.get('metadata') or {}).get('availability_zone')
    if zone and inside and members:
        assert {state.node(h).availability_zone for h in members} == {zone}


def test_an_older_aggregate_event_does_not_undo_a_newer_one():
    """Each aggregate event names all its members: the newest wins,
    whatever order they arrive in."""
    added = next(n for _, n in reference_events()
                 if n['event_type'] == 'aggregate.add_host.end')
    data = added['payload']['nova_object.data']
    name = data['name']

    def membership(hosts, event_type='aggregate.add_host.end'):
        return {'event_type': event_type, 'publisher_id': 'nova-api:ctl',
                'payload': {'nova_object.data': dict(data, hosts=hosts)}}
    model = model_with('host-a', 'host-b')
    model.apply(event(membership(['host-a', 'host-b']),
                      T0 + datetime.timedelta(seconds=2)))
    model.apply(event(membership(['host-a'], 'aggregate.remove_host.end'),
                      T0 + datetime.timedelta(seconds=1)))
    state = model.snapshot()
    assert name in state.node('host-b').aggregates
    assert state.aggregates[name].stamp == T0 + datetime.timedelta(seconds=2)


def _aggregate_event(event_type, name, hosts, zone=None, uuid='agg-uuid'):
    metadata = {'availability_zone': zone} if zone else {}
    return {'event_type': event_type, 'publisher_id': 'nova-api:ctl',
            'payload': {'nova_object.data': {
                'name': name, 'uuid': uuid, 'hosts': hosts, 'id': 1,
                'metadata': metadata}}}


def test_a_node_leaving_its_zones_aggregate_gets_its_zone_from_nova():
    """Its zone is now Nova's default_availability_zone, which only Nova
    knows: the node is named for fetching, and the fetch sets it."""
    model = cluster.ClusterModel(apply_event=nova_events.apply)

    def read_from_nova(changes):
        for hostname in ('host-a', 'host-b'):
            changes.put_node(dataclasses.replace(node(hostname),
                                                 uuid='u-' + hostname))
    model.update(read_from_nova)
    later = iter(T0 + datetime.timedelta(seconds=i) for i in range(1, 9))
    model.apply(event(_aggregate_event(
        'aggregate.update_metadata.end', 'rack', ['host-a', 'host-b'],
        zone='az1'), next(later)))
    model.apply(event(_aggregate_event(
        'aggregate.add_host.end', 'gpu', ['host-b'], uuid='gpu-uuid'),
        next(later)))
    assert model.snapshot().node('host-b').availability_zone == 'az1'
    # Out of the zoned aggregate (still in gpu, which sets no zone).
    missing = model.apply(event(_aggregate_event(
        'aggregate.remove_host.end', 'rack', ['host-a'], zone='az1'),
        next(later)))
    assert missing == {'host-b'}
    assert model.snapshot().node('host-b').availability_zone is None
    assert model.snapshot().node('host-b').aggregates == {'gpu'}
    fetched = dataclasses.replace(node('host-b'), uuid='u-b',
                                  availability_zone='nova')
    model.update(lambda changes: manager._add_if_missing(changes, fetched))
    assert model.snapshot().node('host-b').availability_zone == 'nova'
    assert model.snapshot().node('host-b').aggregates == {'gpu'}
    # The aggregate drops its zone: its members' zones are Nova's again.
    missing = model.apply(event(_aggregate_event(
        'aggregate.update_metadata.end', 'rack', ['host-a']), next(later)))
    assert missing == {'host-a'}
    # A zone set through the aggregate's properties (update_prop).
    missing = model.apply(event(_aggregate_event(
        'aggregate.update_prop.end', 'rack', ['host-a'], zone='az2'),
        next(later)))
    assert missing == set()
    assert model.snapshot().node('host-a').availability_zone == 'az2'


def test_a_renamed_aggregate_is_renamed_on_its_members():
    model = model_with('host-a')
    model.apply(event(_aggregate_event(
        'aggregate.add_host.end', 'old-name', ['host-a'], zone='az1'),
        T0 + datetime.timedelta(seconds=1)))
    model.apply(event(_aggregate_event(
        'aggregate.update_prop.end', 'new-name', ['host-a'], zone='az1'),
        T0 + datetime.timedelta(seconds=2)))
    state = model.snapshot()
    assert state.node('host-a').aggregates == {'new-name'}
    assert state.node('host-a').availability_zone == 'az1'
    assert set(state.aggregates) == {'new-name'}


def test_snapshot_is_untouched_by_later_updates():
    model = model_with('fake-compute-3')
    model.apply(event(LIVE['instance.create.end']))
    before = model.snapshot()
    uuid = LIVE['instance.create.end']['payload']['nova_object.data']['uuid']
    deleted = {'event_type': 'instance.delete.end', 'publisher_id': '',
               'payload': {'nova_object.data': dict(
                   LIVE['instance.create.end']['payload']['nova_object.data'],
                   state='deleted')}}
    model.apply(event(deleted, T0 + datetime.timedelta(seconds=1)))
    assert before.instance(uuid) is not None
    assert [i.uuid for i in before.instances_on('fake-compute-3')] == [uuid]
    assert model.snapshot().instance(uuid) is None
    assert model.generation == before.generation + 1


def test_resync_keeps_what_arrived_while_it_ran():
    model = model_with('fake-compute-2', 'fake-compute-3')
    created = LIVE['instance.create.end']
    uuid = created['payload']['nova_object.data']['uuid']
    read_at = T0 + datetime.timedelta(seconds=10)
    model.begin_resync()
    # Arrives while the resync reads Nova.
    model.apply(event(created, read_at + datetime.timedelta(seconds=1)))
    stale = LIVE['instance.power_off.end']
    model.apply(event(stale, read_at - datetime.timedelta(seconds=30)))
    fresh = model_state.ClusterState().changes()
    fresh.put_node(node('fake-compute-2'))
    fresh.put_node(node('fake-compute-3'))
    off_uuid = stale['payload']['nova_object.data']['uuid']
    fresh.put_instance(elements.Instance(uuid=off_uuid, host='fake-compute-2',
                                         state='active', stamp=read_at))
    generation = model.generation
    model.finish_resync(fresh.state())
    state = model.snapshot()
    assert state.instance(uuid).host == 'fake-compute-3'
    # Older than the fresh read: the read wins.
    assert state.instance(off_uuid).state == 'active'
    assert state.generation > generation
    assert model.ready and model.info()['seconds_since_resync'] < 5


def test_wait_ready_fails_clearly_before_the_first_sync():
    model = cluster.ClusterModel()
    with pytest.raises(cluster.ModelNotReady, match='still being built'):
        model.wait_ready(0.01)


def test_a_batch_applies_as_its_events_one_by_one_would():
    names = sorted(n for n in LIVE if nova_events.handles(n)
                   or n in nova_events.PLACEMENT)
    hosts = set().union(*(all_hosts(LIVE[n]) for n in names))
    events = [event(LIVE[n], T0 + datetime.timedelta(seconds=i))
              for i, n in enumerate(names)]
    one_by_one = model_with(*hosts)
    for each in events:
        one_by_one.apply(each)
    batched = model_with(*hosts)
    generation = batched.generation
    assert batched.apply_many(events) == set()
    state = batched.snapshot()
    assert state.instances == one_by_one.snapshot().instances
    assert state.nodes == one_by_one.snapshot().nodes
    assert state.placement == one_by_one.snapshot().placement
    # One change, one new state.
    assert batched.generation == generation + 1
    assert batched.notifications_applied == len(events)


def test_a_failing_batch_changes_nothing():
    model = model_with('fake-compute-3')
    before = model.snapshot()
    broken = nova_events.Event('instance.update', 'nova-compute:x',
                               {'nova_object.data': {'uuid': 'u',
                                                     'flavor': 'garbage'}},
                               T0)
    with pytest.raises(AttributeError):
        model.apply_many([event(LIVE['instance.create.end']), broken])
    assert model.snapshot() is before
    assert model.notifications_applied == 0


def test_a_batch_arriving_during_a_resync_is_replayed():
    model = model_with('fake-compute-3')
    created = LIVE['instance.create.end']
    uuid = created['payload']['nova_object.data']['uuid']
    model.begin_resync()
    model.apply_many([event(created, T0 + datetime.timedelta(seconds=1)),
                      event(LIVE['instance.update'],
                            T0 + datetime.timedelta(seconds=2))])
    fresh = model_state.ClusterState().changes()
    fresh.put_node(node('fake-compute-3'))
    model.finish_resync(fresh.state())
    assert model.snapshot().instance(uuid) is not None


@pytest.mark.parametrize('text, expected', [
    ('2026-11-22 06:21:07.897434',
     datetime.datetime(2026, 11, 22, 6, 21, 7, 897434)),
    ('2026-11-22T06:21:07Z', datetime.datetime(2026, 11, 22, 6, 21, 7)),
    ('2026-11-22 06:21:07', datetime.datetime(2026, 11, 22, 6, 21, 7)),
    ('2026-11-22T07:21:07.5+01:00',
     datetime.datetime(2026, 11, 22, 6, 21, 7, 500000)),
    ('yesterday', elements.EPOCH),
    ('', elements.EPOCH),
    (None, elements.EPOCH),
])
def test_envelope_timestamps_are_read_as_naive_utc(text, expected):
    assert nova_events.parse_time(text) == expected


def test_a_server_is_dated_by_its_created_at():
    notification = LIVE['instance.update']
    model = model_with()
    model.apply(event(notification))
    uuid = notification['payload']['nova_object.data']['uuid']
    assert model.snapshot().instance(uuid).created_at == \
        datetime.datetime(2026, 11, 22, 6, 20, 32)


def test_placements_allocation_holds_until_the_flavor_changes():
    """Notifications do not carry Placement's allocations: an event
    keeps what the last read found while the server keeps its flavor,
    and forgets it (the flavor's request stands for it) once the flavor
    is another."""
    notification = LIVE['instance.update']
    data = notification['payload']['nova_object.data']
    flavor = data['flavor']['nova_object.data']
    read = elements.Instance(
        uuid=data['uuid'], vcpus=flavor['vcpus'],
        memory_mb=flavor['memory_mb'], disk_gb=flavor['root_gb'],
        allocations=elements.frozen_mapping({'VCPU': 1, 'CUSTOM_GPU': 1}),
        stamp=T0 - datetime.timedelta(minutes=1))
    model = model_with(instances=[read])
    model.apply(event(notification))
    kept = model.snapshot().instance(data['uuid'])
    assert kept.allocation('CUSTOM_GPU') == 1
    resized = dict(notification, payload={'nova_object.data': dict(
        data, flavor={'nova_object.data': dict(flavor, vcpus=4)})})
    model.apply(event(resized, T0 + datetime.timedelta(minutes=1)))
    after = model.snapshot().instance(data['uuid'])
    assert after.allocations is None
    assert after.allocation('CUSTOM_GPU') == 0
    assert after.allocation('VCPU') == 4
