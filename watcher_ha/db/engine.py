"""The one enginefacade transaction context every SQL function runs in."""

import contextlib

import sqlalchemy as sa
from oslo_config import cfg
from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade

from watcher_ha import conf as _registered  # noqa: F401
from watcher_ha.db import statement_metrics

context_manager = enginefacade.transaction_context()
reader = context_manager.reader

# The execution option that marks the connection of a write transaction
# (see _begin_writers_immediately).
WRITES = 'watcher_ha_writes'


class _Writer:
    """enginefacade's writer (only ``using``), whose transactions' own
    connections are marked with WRITES before they begin."""

    def __init__(self, facade_writer):
        self._writer = facade_writer

    @contextlib.contextmanager
    def using(self, context):
        with self._writer.using(context) as session:
            # The outermost block takes the session's connection now,
            # marked; a nested one joins its transaction.
            if not session.info.get(WRITES):
                session.info[WRITES] = True
                session.connection(execution_options={WRITES: True})
            yield session


writer = _Writer(context_manager.writer)


# What a failed statement raises: oslo.db's exceptions, or SQLAlchemy's
# OperationalError, which oslo.db lets through unwrapped (PostgreSQL's
# lock_timeout among them).
DB_ERRORS = (db_exc.DBError, sa.exc.DBAPIError)


def lock_wait_timed_out(error):
    """``error`` says a statement gave up waiting for a row lock (see
    LOCK_WAIT_SECONDS): InnoDB's 1205, which oslo.db files as a deadlock,
    or PostgreSQL's lock_timeout."""
    text = str(error)
    return isinstance(error, DB_ERRORS) and (
        'Lock wait timeout exceeded' in text
        or 'canceling statement due to lock timeout' in text)


def _deadlock_victim(error):
    # Not a lock wait that timed out: its holder is stuck, and waiting
    # again would only stall the caller longer.
    return (isinstance(error, db_exc.DBDeadlock)
            and not lock_wait_timed_out(error))


# Write transactions are retried whole when the database picks them as a
# deadlock victim (InnoDB, PostgreSQL under contention): a compare-and-swap
# that then loses still gets its clean 409, never a 500.
retry_on_deadlock = oslo_db_api.wrap_db_retry(
    max_retries=5, retry_interval=0.05, inc_retry_interval=True,
    exception_checker=_deadlock_victim)

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


def _begin_writers_immediately(engine):
    """On SQLite, a write transaction begins as a writer (BEGIN
    IMMEDIATE), a read transaction as a reader (oslo.db's BEGIN).

    Begun as a reader, a transaction that reads and then writes must
    take the write lock at its first write, and SQLite will not let a
    reader wait for it (two such waiters would deadlock): if another
    connection holds it, the write fails at once with "database is
    locked", whatever the busy timeout. Begun IMMEDIATE, the transaction
    waits for the write lock, up to the busy timeout, before it reads.
    """
    if engine.dialect.name != 'sqlite':
        return

    # After oslo.db's own listener (registered as the engine was made),
    # which begins every transaction with a plain BEGIN.
    @sa.event.listens_for(engine, 'begin')
    def _on_begin(conn):
        if not conn.get_execution_options().get(WRITES):
            return
        if conn.connection.dbapi_connection.in_transaction:
            # Begun as a reader, nothing read yet, no lock held: ended,
            # to begin again as a writer.
            conn.exec_driver_sql('COMMIT')
        conn.exec_driver_sql('BEGIN IMMEDIATE')


# How long a statement waits for a row another connection holds locked.
# Every transaction here lasts milliseconds, so a longer wait means the
# holder is stuck (a daemon paused or cut off mid-transaction): the waiter
# gives up and tries again later rather than stalling, say, every
# take-over an engine makes (PostgreSQL would wait forever, InnoDB 50 s).
LOCK_WAIT_SECONDS = 10


# How long a transaction may sit idle, a statement done and the next not
# sent, before the server ends it: its holder is stuck (a daemon paused, or
# cut off, in the middle of it) and would keep its rows locked until it
# resumes, the others' waits for them timing out one after another
# meanwhile. Its holder's next statement then fails, and its work is taken
# up again as after any lost statement. [coordination] member_timeout:
# a daemon stalled that long is presumed gone and its work is taken over
# (from 1.1 times it on), so the rows it held locked must be free by then;
# and every transaction here lasts milliseconds, so a live daemon is never
# idle that long inside one.


def idle_transaction_seconds():
    return cfg.CONF.coordination.member_timeout


def limit_lock_waits(engine, seconds=LOCK_WAIT_SECONDS, idle_seconds=None):
    """Make a statement of ``engine`` give up waiting for a locked row
    after ``seconds``, and the server end a transaction of it left idle
    for ``idle_seconds`` (idle_transaction_seconds() when None, read as
    each connection opens)."""
    statements = {
        'mysql': ['SET SESSION innodb_lock_wait_timeout = %d' % seconds,
                  # MariaDB only (10.3 and later); MySQL has none.
                  'SET SESSION idle_transaction_timeout = %d'],
        'postgresql': ["SET SESSION lock_timeout = '%ds'" % seconds,
                       "SET SESSION idle_in_transaction_session_timeout = "
                       "'%ds'"],
    }.get(engine.dialect.name)
    if statements is None:
        return

    @sa.event.listens_for(engine, 'connect')
    def _on_connect(dbapi_conn, _record):
        idle = (idle_seconds if idle_seconds is not None
                else idle_transaction_seconds())
        cursor = dbapi_conn.cursor()
        cursor.execute(statements[0])
        try:
            cursor.execute(statements[1] % idle)
        except Exception:  # noqa: BLE001
            # An Oracle MySQL without the variable: lock waits still end.
            if engine.dialect.name == 'postgresql':
                raise
        cursor.close()
        if engine.dialect.name == 'postgresql':
            # psycopg2 opened a transaction for the SETs: end it.
            dbapi_conn.commit()


def _reconnect_after_set_up(engine):
    """oslo.db opens a connection to test a new engine before its
    creation hooks run, and the pool keeps it, without what the 'connect'
    listeners above set on every connection (the lock-wait and
    idle-transaction limits; SQLite's WAL, busy timeout and foreign
    keys): a daemon's transactions on it waited 50 s for a lock, and a
    paused daemon's held its locks for as long as the pause. Dropped, so
    that every connection made from now on has them."""
    engine.dispose()


# How every engine of the product behaves, in this order.
ENGINE_SET_UP = (_tune_sqlite, _begin_writers_immediately, limit_lock_waits,
                 _reconnect_after_set_up)
# The product's engines are also measured; an engine prepare()d for a
# test is not, so that its statements do not count in the process's
# metrics.
for _set_up in ENGINE_SET_UP + (statement_metrics.time_statements,):
    context_manager.append_on_engine_create(_set_up)


def prepare(engine):
    """Make ``engine`` behave as the product's own engines do (for an
    engine made outside enginefacade, as the tests make theirs)."""
    for set_up in ENGINE_SET_UP:
        set_up(engine)


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
