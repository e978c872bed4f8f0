"""What the API shows of a service (a running daemon)."""

from watcher_ha.api import fields as f
from watcher_ha.db import services


SERVICE = f.Fields(
    'services',
    f.Field('id', f.INTEGER, in_list=True),
    f.Field('name', f.STRING, in_list=True),
    f.Field('host', f.STRING, in_list=True),
    f.Field('last_seen_up', f.NULLABLE_DATETIME,
            getter=f.naive_timestamp('last_seen_up')),
    f.Field('status', {'enum': [services.ACTIVE, services.FAILED]},
            in_list=True, getter=lambda row, output: row['status']),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of('id')),
    f.Field('created_at', f.DATETIME, getter=f.timestamp('created_at')),
    f.Field('updated_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('updated_at')),
    f.Field('deleted_at', f.NULLABLE_DATETIME, getter=f.always_none),
    # A decision engine's continuous audits; null for other daemons.
    f.Field('continuous_audits', {'type': ['array', 'null'],
                                  'items': f.UUID},
            since='watcher-ha 1.1',
            getter=lambda row, output: row['continuous_audits']),
    # A decision engine's data models as of its last heartbeat; null for
    # other daemons.
    f.Field('data_models', {'type': ['array', 'null'], 'items': {
        'type': 'object',
        'required': ['name', 'generation', 'ready', 'seconds_since_resync',
                     'seconds_since_notification'],
        'properties': {'name': f.STRING, 'generation': f.INTEGER,
                       'ready': f.BOOLEAN,
                       'seconds_since_resync': {'type': ['number', 'null']},
                       'seconds_since_notification': {
                           'type': ['number', 'null']}}}},
            since='watcher-ha 1.1',
            getter=lambda row, output: row['data_models']),
)
