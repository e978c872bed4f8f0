"""On SQLite (the embedded default), a write transaction begins as a
writer (BEGIN IMMEDIATE) and waits for the write lock another process
holds, up to the busy timeout (issue 32, item 4). Begun as a reader, a
transaction that reads and then writes failed at once with "database is
locked" when another connection held the write lock: SQLite cannot let a
reader wait to become a writer, so the busy timeout never applied. A
read transaction still begins as a reader, and does not wait."""

import contextlib
import sqlite3
import threading

import pytest
import sqlalchemy as sa

from tests import factories
from watcher_ha.common.instance_ha import statuses
from watcher_ha.db import engine
from watcher_ha.db import host_notifications
from watcher_ha.db import models
from watcher_ha.db import recoveries

# How long the other connection holds the write lock.
HELD = 0.5


@contextlib.contextmanager
def _write_lock_held(db):
    """Another connection to the database file (as another process's)
    holds its write lock, with a write in progress, until the block
    ends; then it commits."""
    other = sqlite3.connect(db.url.database, isolation_level=None,
                            timeout=30)
    try:
        other.execute('BEGIN IMMEDIATE')
        other.execute("UPDATE failover_segments SET description = 'held'")
        yield
        other.execute('COMMIT')
    finally:
        other.close()


def _notification(context, state):
    """A COMPUTE_HOST notification in ``state``: new (to take), or in
    error after its first attempt (to resume)."""
    row = factories.host_notification(context)
    if state == statuses.ERROR:
        with engine.get_engine().begin() as conn:
            conn.execute(sa.update(models.HostNotification).where(
                models.HostNotification.id == row['id']).values(
                    state=statuses.ERROR, hostname='engine-1', attempts=1))
        row = host_notifications.get_notification(context, row['uuid'])
    return row


def _in_thread(func):
    """Run ``func`` in a thread; returns (the thread, {'result' or
    'error': what it returned or raised})."""
    outcome = {}

    def run():
        try:
            outcome['result'] = func()
        except Exception as err:  # noqa: BLE001
            outcome['error'] = err
    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


@pytest.mark.parametrize('state', [statuses.NEW, statuses.ERROR])
def test_a_notifications_attempt_waits_for_another_writer(
        db, admin_context, state):
    """The take (new -> running) and the resume (error -> running, the
    next attempt) read the catalog, then write: they wait for the write
    lock and go through."""
    row = _notification(admin_context, state)
    with _write_lock_held(db):
        thread, outcome = _in_thread(lambda: recoveries.start_attempt(
            admin_context, row, 'engine-1', {}, 'host_recovery'))
        thread.join(HELD)
        # Waiting, not failed.
        assert thread.is_alive(), outcome
    thread.join(30)
    assert 'error' not in outcome, outcome['error']
    assert outcome['result'] is not None
    after = host_notifications.get_notification(admin_context, row['uuid'])
    assert (after['state'], after['hostname'], after['attempts']) == (
        statuses.RUNNING, 'engine-1', row['attempts'] + 1)


def test_a_reader_does_not_wait_for_a_writer(db, admin_context):
    row = _notification(admin_context, statuses.NEW)
    with _write_lock_held(db):
        thread, outcome = _in_thread(
            lambda: host_notifications.get_notification(admin_context,
                                                        row['uuid']))
        thread.join(10)
        assert not thread.is_alive()
    assert outcome['result']['uuid'] == row['uuid']
