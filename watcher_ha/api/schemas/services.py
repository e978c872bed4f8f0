"""What the API shows of a service (a running daemon)."""

import datetime

from oslo_config import cfg

from watcher_ha.api import fields as f
from watcher_ha.db import models

CONF = cfg.CONF

ACTIVE = 'ACTIVE'
FAILED = 'FAILED'


def status(row, output=None):
    """ACTIVE while the last heartbeat is younger than service_down_time."""
    seen = row['last_seen_up'] or row['updated_at'] or row['created_at']
    age = models.utcnow() - seen
    limit = datetime.timedelta(seconds=CONF.service_down_time)
    return ACTIVE if abs(age) <= limit else FAILED


SERVICE = f.Fields(
    'services',
    f.Field('id', f.INTEGER, in_list=True),
    f.Field('name', f.STRING, in_list=True),
    f.Field('host', f.STRING, in_list=True),
    f.Field('last_seen_up', f.NULLABLE_DATETIME,
            getter=f.naive_timestamp('last_seen_up')),
    f.Field('status', {'enum': [ACTIVE, FAILED]}, in_list=True,
            getter=status),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of('id')),
    f.Field('created_at', f.DATETIME, getter=f.timestamp('created_at')),
    f.Field('updated_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('updated_at')),
    f.Field('deleted_at', f.NULLABLE_DATETIME, getter=f.always_none),
)
