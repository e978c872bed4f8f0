"""The one enginefacade transaction context every SQL function runs in."""

import sqlalchemy as sa
from oslo_db import api as oslo_db_api
from oslo_db.sqlalchemy import enginefacade

context_manager = enginefacade.transaction_context()
reader = context_manager.reader
writer = context_manager.writer

# Write transactions are retried whole when the database picks them as a
# deadlock victim (InnoDB, PostgreSQL under contention): a compare-and-swap
# that then loses still gets its clean 409, never a 500.
retry_on_deadlock = oslo_db_api.wrap_db_retry(
    max_retries=5, retry_interval=0.05, inc_retry_interval=True,
    retry_on_deadlock=True)

# How long an SQLite writer waits for another process's write lock before
# giving up. API workers and daemons share one file in the embedded setup.
SQLITE_BUSY_TIMEOUT_MS = 30000


def _tune_sqlite(engine):
    if engine.dialect.name != 'sqlite':
        return

    @sa.event.listens_for(engine, 'connect')
    def _on_connect(dbapi_conn, _record):
        cursor = dbapi_conn.cursor()
        # WAL lets readers run while one process writes; the busy timeout
        # makes concurrent writers queue instead of failing at once.
        if engine.url.database not in (None, '', ':memory:'):
            cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute('PRAGMA busy_timeout=%d' % SQLITE_BUSY_TIMEOUT_MS)
        cursor.execute('PRAGMA foreign_keys=ON')
        cursor.close()


context_manager.append_on_engine_create(_tune_sqlite)


def configure(conf):
    """Point the facade at ``[database]``; safe to call more than once."""
    context_manager.configure(
        # oslo.db sleeps on every connection check-in so that eventlet
        # green threads get a turn; on native threads it only costs time.
        thread_checkin=False,
        **dict(conf.database.items()))


def get_engine():
    return context_manager.writer.get_engine()


def dispose():
    """Drop pooled connections, e.g. in a child process after fork."""
    context_manager.dispose_pool()
