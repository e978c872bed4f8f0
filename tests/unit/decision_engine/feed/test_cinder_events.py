"""Cinder's notifications (legacy payloads, as Cinder's volume_utils
makes them) applied to the storage data model."""

import dataclasses
import datetime

import pytest

from watcher_ha.decision_engine.feed import cinder_events
from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import nova_events
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import storage_elements
from watcher_ha.decision_engine.model import storage_state

T0 = datetime.datetime(2026, 11, 25, 12, 0, 0)
POOL = 'stor1@lvm-fast#pool1'
OTHER_POOL = 'stor2@lvm-fast#pool1'
FAST = 'type-fast-id'
VOLUME = '4f3b1c4e-0a6e-4c55-9f7c-1f1d6a0c0001'
SERVER = 'a1b2c3d4-0000-4000-8000-000000000001'


def seconds(n):
    return T0 + datetime.timedelta(seconds=n)


def volume_payload(uuid=VOLUME, status='available', size=10, host=POOL,
                   volume_type=FAST, attachments=(), bootable=False,
                   **extra):
    """A payload as Cinder's _usage_from_volume makes it."""
    payload = {
        'tenant_id': 'p1', 'host': host, 'user_id': 'u1',
        'availability_zone': 'nova', 'volume_id': uuid,
        'volume_type': volume_type, 'display_name': 'v1',
        'launched_at': '2026-11-25T12:00:00.123456+00:00',
        'created_at': '2026-11-25T12:00:00.123456+00:00',
        'status': status, 'snapshot_id': None, 'size': size,
        'replication_status': None, 'replication_extended_status': None,
        'replication_driver_data': None,
        'metadata': [{'key': 'tier', 'value': 'gold', 'deleted': False}],
        'volume_attachment': [
            {'id': attachment, 'volume_id': uuid, 'instance_uuid': server,
             'attached_host': 'compute-0000', 'mountpoint': '/dev/vdb',
             'attach_time': '2026-11-25T12:00:00', 'detach_time': None,
             'attach_status': status_, 'attach_mode': 'rw',
             'connection_info': None, 'connector': None}
            for server, attachment, status_ in attachments],
    }
    if bootable:
        payload['glance_metadata'] = {'image_id': 'image-1'}
    payload.update(extra)
    return payload


def volume_event(event_type, stamp=T0, **values):
    return nova_events.Event(event_type, 'volume.stor1@lvm-fast',
                             volume_payload(**values), stamp)


def capacity_event(name=POOL, stamp=T0, total=1000.0, allocated=10.0,
                   **values):
    payload = {'name_to_id': name, 'total': total,
               'free': total - allocated, 'allocated': allocated,
               'provisioned': allocated,
               'virtual_free': total - allocated,
               'reported_at': '2026-11-25T12:00:00.123456+00:00'}
    payload.update(values)
    return nova_events.Event('capacity.pool', 'capacity.sim-scheduler',
                             payload, stamp)


def known_state(**volumes):
    """A state with one backend, two pools, the fast type, and
    ``volumes`` {uuid: Volume}."""
    changes = storage_state.StorageState().changes()
    changes.put_volume_type(storage_elements.VolumeType(
        FAST, 'lvm-fast', 'lvm-fast'))
    changes.put_node(storage_elements.StorageNode(
        'stor1@lvm-fast', zone='nova', volume_types=('lvm-fast',),
        stamp=T0 - datetime.timedelta(hours=1)))
    for name in (POOL, OTHER_POOL):
        changes.put_pool(storage_elements.Pool(
            name, total_capacity_gb=1000.0, free_capacity_gb=1000.0,
            allocated_capacity_gb=0.0, volume_backend_name='lvm-fast',
            stamp=T0 - datetime.timedelta(hours=1)))
    for volume in volumes.values():
        changes.put_volume(volume)
    return changes.state()


def model(state=None):
    made = cluster.ClusterModel('storage', apply_event=cinder_events.apply,
                                empty=state or known_state())
    return made


def test_a_created_volume_is_in_its_pool_with_its_type_name():
    made = model()
    assert made.apply(volume_event('volume.create.start',
                                   status='creating')) == set()
    assert made.apply(volume_event('volume.create.end', stamp=seconds(1),
                                   bootable=True)) == set()
    snapshot = made.snapshot()
    volume = snapshot.volume(VOLUME)
    assert (volume.status, volume.size, volume.pool) == ('available', 10,
                                                         POOL)
    assert (volume.volume_type, volume.volume_type_id) == ('lvm-fast', FAST)
    assert volume.bootable and volume.project_id == 'p1'
    assert volume.metadata_dict == {'tier': 'gold'}
    assert [v.uuid for v in snapshot.volumes_in(POOL)] == [VOLUME]
    assert snapshot.allocated(POOL) == 10


def test_attachments_are_the_attached_rows_only():
    made = model()
    made.apply(volume_event('volume.attach.end', status='in-use',
                            attachments=[(SERVER, 'att-1', 'attached'),
                                         ('other', 'att-2', 'attaching')]))
    volume = made.snapshot().volume(VOLUME)
    assert volume.attachments == ((SERVER, 'att-1'),)
    assert volume.attached_servers == [SERVER]
    made.apply(volume_event('volume.detach.end', stamp=seconds(1)))
    assert made.snapshot().volume(VOLUME).attachments == ()


def test_resize_and_retype_take_the_payload():
    made = model()
    made.apply(volume_event('volume.create.end'))
    made.apply(volume_event('volume.resize.end', stamp=seconds(1),
                            size=20))
    assert made.snapshot().volume(VOLUME).size == 20
    made.update(lambda changes: changes.put_volume_type(
        storage_elements.VolumeType('type-any-id', 'any')))
    made.apply(volume_event('volume.retype', stamp=seconds(2), size=20,
                            volume_type='type-any-id', host=OTHER_POOL))
    volume = made.snapshot().volume(VOLUME)
    assert (volume.volume_type, volume.pool) == ('any', OTHER_POOL)
    assert made.snapshot().volumes_in(POOL) == []
    assert [v.uuid for v in made.snapshot().volumes_in(OTHER_POOL)] == [
        VOLUME]


def test_an_unknown_type_or_pool_is_named_to_be_read():
    made = model()
    missing = made.apply(volume_event('volume.create.end',
                                      volume_type='new-type',
                                      host='stor9@x#p'))
    assert missing == {(cinder_events.VOLUME_TYPE, 'new-type'),
                       (cinder_events.POOL, 'stor9@x#p')}
    volume = made.snapshot().volume(VOLUME)
    assert (volume.volume_type, volume.volume_type_id) == (None, 'new-type')


def test_an_older_event_changes_nothing():
    made = model()
    made.apply(volume_event('volume.resize.end', stamp=seconds(5), size=30))
    made.apply(volume_event('volume.create.end', stamp=seconds(1), size=10))
    assert made.snapshot().volume(VOLUME).size == 30


def test_a_deleted_volume_never_comes_back():
    made = model()
    made.apply(volume_event('volume.create.end'))
    made.apply(volume_event('volume.delete.end', stamp=seconds(2),
                            status='deleting'))
    assert made.snapshot().volume(VOLUME) is None
    # A late event, stamped before or (another service's clock) after.
    made.apply(volume_event('volume.delete.start', stamp=seconds(1),
                            status='deleting'))
    made.apply(volume_event('volume.attach.end', stamp=seconds(9),
                            status='in-use'))
    snapshot = made.snapshot()
    assert snapshot.volume(VOLUME) is None
    assert snapshot.volumes_in(POOL) == []
    assert snapshot.tombstones[VOLUME].final


def test_the_tombstone_outlives_a_resync_that_still_saw_the_volume():
    """A resync whose read began before the deletion may still list the
    volume; the deletion, replayed, removes it, and a late event after
    the swap does not bring it back."""
    made = model()
    made.apply(volume_event('volume.create.end'))
    made.begin_resync(seconds(1))
    made.apply(volume_event('volume.delete.end', stamp=seconds(2)))
    read = known_state(**{VOLUME: storage_elements.Volume(
        VOLUME, size=10, pool=POOL, stamp=seconds(1))})
    made.finish_resync(read)
    assert made.snapshot().volume(VOLUME) is None
    made.apply(volume_event('volume.detach.end', stamp=seconds(3)))
    assert made.snapshot().volume(VOLUME) is None
    # And the next resync, which does not see it, keeps the tombstone.
    made.begin_resync(seconds(4))
    made.finish_resync(known_state())
    made.apply(volume_event('volume.update.end', stamp=seconds(5)))
    assert made.snapshot().volume(VOLUME) is None


def test_capacity_updates_the_pool_and_keeps_what_the_read_gave():
    made = model(known_state(**{VOLUME: storage_elements.Volume(
        VOLUME, size=10, pool=POOL, stamp=T0)}))
    assert made.apply(capacity_event(allocated=10.0)) == set()
    pool = made.snapshot().pool(POOL)
    assert (pool.total_capacity_gb, pool.free_capacity_gb,
            pool.allocated_capacity_gb) == (1000.0, 990.0, 10.0)
    assert pool.volume_backend_name == 'lvm-fast'
    # Older: ignored.
    made.apply(capacity_event(stamp=seconds(-5), allocated=500.0))
    assert made.snapshot().pool(POOL).allocated_capacity_gb == 10.0


def test_an_allocation_the_volumes_do_not_explain_names_the_pool():
    """A migration sends no volume event: the source pool's capacity
    drops while the model still has the volume there."""
    made = model(known_state(**{VOLUME: storage_elements.Volume(
        VOLUME, size=10, pool=POOL, stamp=T0)}))
    assert made.apply(capacity_event(allocated=0.0, stamp=seconds(1))) == {
        (cinder_events.POOL, POOL)}
    assert made.apply(capacity_event(name='stor3@new#p',
                                     stamp=seconds(1))) == {
        (cinder_events.POOL, 'stor3@new#p')}


@pytest.mark.parametrize('value,expected', [
    ('unknown', None), ('infinite', None), (None, None), ('12.5', 12.5),
    (7, 7), (True, None)])
def test_capacities_cinder_cannot_count_are_unknown(value, expected):
    assert storage_elements.capacity(value) == expected


def test_the_handler_takes_volume_and_capacity_publishers_only():
    handler = dispatch.Handler('storage', cinder_events.PUBLISHER,
                               cinder_events.EVENT_TYPES, None)
    assert handler.wants(volume_event('volume.create.end'))
    assert handler.wants(capacity_event())
    assert not handler.wants(nova_events.Event(
        'volume.usage', 'nova-compute:h1', {}, T0))
    assert handler.wants(nova_events.Event(
        'scheduler.create_volume', 'scheduler.h1', {}, T0))
    assert not handler.wants(nova_events.Event(
        'scheduler.create_volume', 'nova-scheduler:h1', {}, T0))


def test_a_burst_applies_as_one_change_in_order():
    made = model()
    before = made.generation
    made.apply_many([
        volume_event('volume.create.start', status='creating'),
        volume_event('volume.create.end', stamp=seconds(1)),
        volume_event('volume.resize.start', stamp=seconds(2),
                     status='extending'),
        volume_event('volume.resize.end', stamp=seconds(3), size=15),
        capacity_event(stamp=seconds(3), allocated=15.0)])
    assert made.generation == before + 1
    volume = made.snapshot().volume(VOLUME)
    assert (volume.status, volume.size) == ('available', 15)


def test_a_payload_without_a_volume_id_changes_nothing():
    made = model()
    before = made.snapshot()
    made.apply(nova_events.Event('volume.create.end', 'volume.h', {}, T0))
    assert made.snapshot() is before


def test_volume_metadata_from_rows_or_mapping():
    assert cinder_events.metadata([{'key': 'a', 'value': '1'},
                                   {'key': 'b', 'value': '2',
                                    'deleted': True}]) == (('a', '1'),)
    assert cinder_events.metadata({'b': '2', 'a': '1'}) == (('a', '1'),
                                                           ('b', '2'))
    assert cinder_events.metadata(None) == ()


def test_states_are_immutable_snapshots():
    made = model()
    made.apply(volume_event('volume.create.end'))
    snapshot = made.snapshot()
    made.apply(volume_event('volume.resize.end', stamp=seconds(1), size=99))
    assert snapshot.volume(VOLUME).size == 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.volume(VOLUME).size = 5


def scheduler_failure(method, uuid=VOLUME, status='error', stamp=T0):
    """As Cinder's scheduler manager sends it (_set_volume_state_and_
    notify), request spec abridged."""
    properties = {'size': 7, 'volume_type_id': FAST,
                  'display_name': 'big', 'project_id': 'p1',
                  'availability_zone': 'nova', 'status': 'creating',
                  'metadata': {}}
    return nova_events.Event(
        'scheduler.' + method, 'scheduler.sim-scheduler',
        {'request_spec': {'volume_id': uuid,
                          'volume_properties': properties},
         'volume_properties': properties, 'volume_id': uuid,
         'state': {'status': status}, 'method': method,
         'reason': 'No valid backend was found.'}, stamp)


def test_a_volume_no_backend_takes_is_in_error_in_no_pool():
    made = model()
    assert made.apply(scheduler_failure('create_volume')) == set()
    volume = made.snapshot().volume(VOLUME)
    assert (volume.status, volume.pool, volume.size, volume.volume_type,
            volume.name) == ('error', None, 7, 'lvm-fast', 'big')
    assert made.snapshot().unplaced_volumes() == [volume]


def test_a_failed_retype_sets_the_status_only():
    made = model()
    made.apply(volume_event('volume.create.end'))
    made.apply(scheduler_failure('retype', status='available',
                                 stamp=seconds(1)))
    volume = made.snapshot().volume(VOLUME)
    assert (volume.status, volume.size, volume.pool) == ('available', 10,
                                                         POOL)
    # Of a volume the model does not know: nothing to build it from.
    made.apply(scheduler_failure('retype', uuid='other'))
    assert made.snapshot().volume('other') is None
