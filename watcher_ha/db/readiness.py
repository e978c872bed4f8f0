"""Whether the database serves this process: reachable is not enough.

A Galera node that lost its quorum (cut off from the others, or left
alone when they stopped) is outside the Primary component: it still
accepts connections and answers ``SELECT 1``, but refuses every read of
a table and every write, with error 1047 "WSREP has not yet prepared
node for application use", until it joins a Primary component again
(and a joining node, until it is synced). A process there cannot see
what the others do and must not act on what it last saw
(service/database_watch.py: a daemon steps out of its group).

``check()`` reads a table, as any work of the process would, and tells
this refusal (NotReady) from a database it cannot reach (the database
error itself). MariaDB and MySQL without Galera, PostgreSQL and SQLite
never refuse. ``unavailable()`` is what an API request is told when the
database, not the request, is why it failed.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc

from watcher_ha.common import exception
from watcher_ha.db import engine
from watcher_ha.db import models

# What MariaDB (and MySQL) with Galera say to a read or write the node
# will not serve (ER_UNKNOWN_COM_ERROR, 1047); oslo.db files it as a lost
# connection (DBConnectionError), which it is not.
REFUSAL = 'WSREP has not yet prepared node for application use'


class NotReady(Exception):
    """The database answers, and refuses to serve reads and writes."""


def refused(error):
    """``error`` (a database error) is a node's refusal to serve."""
    return isinstance(error, engine.DB_ERRORS) and REFUSAL in str(error)


def check(context):
    """Read a table: NotReady if the database refuses to serve it, a
    database error (engine.DB_ERRORS) if it cannot be reached."""
    try:
        with engine.reader.connection.using(context) as conn:
            conn.execute(sa.select(models.Service.id).limit(1)).all()
    except engine.DB_ERRORS as err:
        if refused(err):
            raise NotReady('the database node refuses reads and writes: it '
                           'is outside the cluster\'s Primary component (%s)'
                           % REFUSAL) from err
        raise


def unavailable(error):
    """The 503 for ``error`` when the database, not the request, made it
    fail: a row locked for too long (engine.LOCK_WAIT_SECONDS), a change
    given up after losing every certification it went through on a
    Galera cluster (engine.retry_on_deadlock ran it again each time), or
    the node refusing to serve; None for any other error. Nothing was
    changed: each ended its transaction."""
    if engine.lock_wait_timed_out(error):
        return exception.DatabaseBusy(seconds=engine.LOCK_WAIT_SECONDS)
    if refused(error):
        return exception.DatabaseNotReady()
    if isinstance(error, db_exc.DBDeadlock):
        return exception.DatabaseConflicts()
    return None
