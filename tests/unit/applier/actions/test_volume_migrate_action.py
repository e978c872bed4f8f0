"""volume_migrate's parameters (Watcher 17's schema: swap, retype,
migrate; destination_node and destination_type a name or null), the
resource its started plan holds, and how recover() tells a volume
unchanged since the action began."""

import datetime

import pytest

from watcher_ha.common import holds
from watcher_ha.applier.actions import volume_migrate

VOLUME = '0a000000-0000-4000-8000-000000000001'


@pytest.mark.parametrize('parameters', [
    {'migration_type': 'swap'},
    {'migration_type': 'migrate', 'destination_node': 'h@b#p'},
    {'migration_type': 'retype', 'destination_type': 'fast',
     'destination_node': None, 'resource_name': 'data'},
])
def test_watchers_parameters_are_accepted(parameters):
    volume_migrate.VolumeMigrate.validate(dict(resource_id=VOLUME,
                                               **parameters))


@pytest.mark.parametrize('parameters, message', [
    ({'migration_type': 'move'}, 'migration_type'),
    ({'migration_type': 'migrate', 'destination_node': ''},
     'destination_node'),
    ({'migration_type': 'migrate', 'force': True}, 'force'),
    ({'resource_id': 'not-a-uuid', 'migration_type': 'migrate'},
     'resource_id'),
    ({'resource_id': VOLUME}, 'migration_type'),
])
def test_bad_parameters_are_refused_naming_what(parameters, message):
    parameters = dict({'resource_id': VOLUME}, **parameters)
    with pytest.raises(ValueError, match=message):
        volume_migrate.VolumeMigrate.validate(parameters)


def test_its_plan_holds_the_volume():
    assert volume_migrate.VolumeMigrate.resources({
        'resource_id': VOLUME, 'migration_type': 'migrate'}) == {
        (holds.VOLUME, VOLUME)}


def test_a_volume_changed_since_the_start_is_told_by_its_updated_at():
    start = datetime.datetime(2026, 11, 25, 12, 0, 0)
    changed = volume_migrate._changed_since
    assert not changed({'updated_at': '2026-11-25T11:59:59.999999'}, start)
    assert changed({'updated_at': '2026-11-25T12:00:00.000001'}, start)
    # An aware time is compared in UTC.
    assert not changed({'updated_at': '2026-11-25T12:30:00+01:00'}, start)
    assert changed({'updated_at': None}, start)


def test_a_type_fits_a_pool_whose_capabilities_agree():
    fast = {'extra_specs': {'volume_backend_name': 'fast'}}
    assert volume_migrate._fits(fast, {'volume_backend_name': 'fast'})
    assert not volume_migrate._fits(fast, {'volume_backend_name': 'slow'})
    assert volume_migrate._fits({'extra_specs': {}}, {})
