"""What the instance-ha API shows of each resource, declared as the Watcher
API's resources are (api/fields.py): every output field once, in
Masakari's order, with its JSON Schema and the version it appears in.
Lists show every field but those with ``in_list=False``, which only a GET
of the one resource shows.

Rows are deleted outright here, so ``deleted`` is always false and
``deleted_at`` always null: Masakari's soft-delete columns, kept on the
wire for its clients.
"""

import dataclasses

import microversion_parse

from watcher_ha.api import fields as f

TIME_FORMAT = '%Y-%m-%dT%H:%M:%S.%f'
# Masakari's timestamps carry no time zone: not JSON Schema date-times.
TIME = f.NULLABLE_STRING


@dataclasses.dataclass(frozen=True)
class Asked:
    """A request's instance-ha microversion, as api/fields.py asks it."""
    version: microversion_parse.Version

    def at_least(self, text):
        """``text``: 'X.Y'."""
        return self.version >= microversion_parse.parse_version_string(text)


# Every field, whatever the version: a resource shown inside another.
EVERY_FIELD = f.Output(version=None, detail=True, links=None)


def shown(name, schema, **options):
    """A field lists show too (as every instance-ha field is but one)."""
    return f.Field(name, schema, in_list=True, **options)


def _time(name):
    def get(row, output):
        value = row[name]
        return None if value is None else value.strftime(TIME_FORMAT)
    return get


def _text(name):
    return lambda row, output: str(row[name])


def timestamps():
    return (shown('created_at', TIME, getter=_time('created_at')),
            shown('updated_at', TIME, getter=_time('updated_at')),
            shown('deleted_at', TIME, getter=f.always_none),
            shown('deleted', f.BOOLEAN, getter=lambda row, output: False))


SEGMENT = f.Fields(
    'segments',
    shown('id', f.INTEGER), shown('uuid', f.UUID), shown('name', f.STRING),
    shown('service_type', f.STRING), shown('enabled', f.BOOLEAN),
    shown('description', f.NULLABLE_STRING),
    shown('recovery_method', f.STRING),
    *timestamps(),
)


def _segment_of_host(row, output):
    return SEGMENT.render(row['failover_segment'], EVERY_FIELD)


HOST = f.Fields(
    'hosts',
    shown('id', f.INTEGER), shown('uuid', f.UUID), shown('name', f.STRING),
    shown('failover_segment_id', f.UUID,
          getter=lambda row, output: row['failover_segment']['uuid']),
    shown('failover_segment', f.OBJECT, getter=_segment_of_host),
    shown('type', f.STRING), shown('reserved', f.BOOLEAN),
    shown('control_attributes', f.STRING),
    shown('on_maintenance', f.BOOLEAN),
    *timestamps(),
)

NOTIFICATION = f.Fields(
    'notifications',
    shown('id', f.INTEGER),
    shown('notification_uuid', f.UUID, getter=_text('uuid')),
    shown('generated_time', TIME, getter=_time('generated_time')),
    shown('source_host_uuid', f.NULLABLE_UUID), shown('type', f.STRING),
    shown('payload', f.OBJECT),
    shown('status', f.STRING, getter=_text('state')),
    # The steps of the notification's recovery, as the handler found them.
    f.Field('recovery_workflow_details', f.ARRAY, since='1.1'),
    shown('failover_segment_uuid', f.NULLABLE_UUID),
    shown('message', f.NULLABLE_STRING),
    *timestamps(),
)

VMOVE = f.Fields(
    'vmoves',
    shown('id', f.INTEGER), shown('uuid', f.UUID),
    shown('notification_uuid', f.UUID), shown('instance_uuid', f.UUID),
    shown('instance_name', f.NULLABLE_STRING),
    shown('source_host', f.NULLABLE_STRING),
    shown('dest_host', f.NULLABLE_STRING),
    shown('start_time', TIME, getter=_time('start_time')),
    shown('end_time', TIME, getter=_time('end_time')),
    shown('type', f.STRING), shown('status', f.STRING),
    shown('message', f.NULLABLE_STRING),
    *timestamps(),
)


def show(fields, row, version, shown_alone=False):
    """``row`` as the API shows it at ``version`` (the request's
    microversion_parse.Version); ``shown_alone``: answering a GET of this
    one resource."""
    return fields.render(row, f.Output(Asked(version), shown_alone,
                                       links=None))
