"""The services registry: which daemon runs where, and when it last
reported."""

import datetime

import sqlalchemy as sa
from oslo_config import cfg
from oslo_db import exception as db_exc

from watcher_ha.common import exception
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query

CONF = cfg.CONF

ACTIVE = 'ACTIVE'
FAILED = 'FAILED'


def status(row, members=None):
    """ACTIVE or FAILED. For a daemon in a coordination group (``members``:
    {binary: live members, or None when the backend cannot be read}), as
    the group sees it; otherwise, or when the group cannot be read, by its
    last heartbeat in the registry compared with service_down_time."""
    live = (members or {}).get(row['name'])
    if live is not None:
        return ACTIVE if row['host'] in live else FAILED
    age = models.utcnow() - last_report(row)
    limit = datetime.timedelta(seconds=CONF.service_down_time)
    return ACTIVE if abs(age) <= limit else FAILED


def last_report(row):
    """When the service last reported (registered, if never since)."""
    return row['last_seen_up'] or row['updated_at'] or row['created_at']


VIEW = query.View(
    model=models.Service,
    not_found=exception.ServiceNotFound, not_found_arg='service',
    lookup=('id', 'name'),
)


@engine.retry_on_deadlock
def heartbeat(context, name, host, details=None):
    """Record that ``name`` on ``host`` is alive (registering it the first
    time), with what it reports (``details``); safe when two processes of
    one host race."""
    now = models.utcnow()
    table = models.Service
    values = dict(last_seen_up=now, updated_at=now)
    if details is not None:
        values['details'] = details
    with engine.writer.using(context) as session:
        updated = session.execute(sa.update(table).where(
            table.host == host, table.name == name).values(
                **values)).rowcount
        if updated:
            return
        try:
            with session.begin_nested():
                session.execute(sa.insert(table).values(
                    name=name, host=host, created_at=now, **values))
        except db_exc.DBDuplicateEntry:
            session.execute(sa.update(table).where(
                table.host == host, table.name == name).values(**values))


def all_services(context):
    with engine.reader.connection.using(context) as conn:
        return [dict(row._mapping) for row in conn.execute(
            sa.select(models.Service.__table__).order_by(models.Service.id))]


@engine.retry_on_deadlock
def announce(context, row, new_status):
    """Record that ``new_status`` is announced for the service, if nobody
    announced a change since ``row`` was read: True for the one caller
    that must send the notification."""
    table = models.Service
    with engine.writer.using(context) as session:
        return bool(session.execute(sa.update(table).where(
            table.id == row['id'],
            table.notified_status == row['notified_status']).values(
                notified_status=new_status)).rowcount)


@engine.retry_on_deadlock
def forget_silent(context, rows, retention, members=None):
    """Delete the services among ``rows`` (as all_services reads them)
    silent in the registry for over ``retention`` seconds and absent from
    their coordination group (a retired host); returns the rows deleted.
    A service that reported since ``rows`` were read stays: each DELETE is
    conditioned on the last report read."""
    cutoff = models.utcnow() - datetime.timedelta(seconds=retention)
    table = models.Service
    gone = []
    for row in rows:
        live = (members or {}).get(row['name']) or ()
        seen = last_report(row)
        if seen >= cutoff or row['host'] in live:
            continue
        with engine.writer.using(context) as session:
            if session.execute(sa.delete(table).where(
                    table.id == row['id'],
                    sa.func.coalesce(table.last_seen_up, table.updated_at,
                                     table.created_at) == seen)).rowcount:
                gone.append(row)
    return gone
