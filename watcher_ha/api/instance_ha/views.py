"""What the instance-ha API shows of each resource: every output field
declared once, in Masakari's order, with the version it appears in and
whether only a GET of the one resource shows it.

Rows are deleted outright here, so ``deleted`` is always false and
``deleted_at`` always null: Masakari's soft-delete columns, kept on the
wire for its clients.
"""

import dataclasses
import typing

TIME_FORMAT = '%Y-%m-%dT%H:%M:%S.%f'


def _time(value):
    return None if value is None else value.strftime(TIME_FORMAT)


@dataclasses.dataclass(frozen=True)
class Field:
    name: str
    value: typing.Callable = None    # row -> shown value; default row[name]
    since: tuple = (1, 0)
    show_only: bool = False

    def of(self, row):
        return row[self.name] if self.value is None else self.value(row)


def _column(name, convert):
    return lambda row: convert(row[name])


def timestamps():
    return (Field('created_at', _column('created_at', _time)),
            Field('updated_at', _column('updated_at', _time)),
            Field('deleted_at', lambda row: None),
            Field('deleted', lambda row: False))


SEGMENT = (
    Field('id'), Field('uuid'), Field('name'), Field('service_type'),
    Field('enabled'), Field('description'), Field('recovery_method'),
    *timestamps(),
)


def _segment_of_host(row):
    return show(SEGMENT, row['failover_segment'], None)


HOST = (
    Field('id'), Field('uuid'), Field('name'),
    Field('failover_segment_id',
          lambda row: row['failover_segment']['uuid']),
    Field('failover_segment', _segment_of_host),
    Field('type'), Field('reserved'), Field('control_attributes'),
    Field('on_maintenance'),
    *timestamps(),
)

NOTIFICATION = (
    Field('id'), Field('notification_uuid', _column('uuid', str)),
    Field('generated_time', _column('generated_time', _time)),
    Field('source_host_uuid'), Field('type'), Field('payload'),
    Field('status', _column('state', str)),
    # The steps of the notification's recovery, as the handler found them.
    Field('recovery_workflow_details', since=(1, 1), show_only=True),
    Field('failover_segment_uuid'), Field('message'),
    *timestamps(),
)

VMOVE = (
    Field('id'), Field('uuid'), Field('notification_uuid'),
    Field('instance_uuid'), Field('instance_name'), Field('source_host'),
    Field('dest_host'),
    Field('start_time', _column('start_time', _time)),
    Field('end_time', _column('end_time', _time)),
    Field('type'), Field('status'), Field('message'),
    *timestamps(),
)


def show(fields, row, version, shown_alone=False):
    """``row`` as the API shows it at ``version`` (None: every field);
    ``shown_alone``: answering a GET of this one resource."""
    shown = {}
    for field in fields:
        if field.show_only and not shown_alone:
            continue
        if version is not None and (version.major,
                                    version.minor) < field.since:
            continue
        shown[field.name] = field.of(row)
    return shown
