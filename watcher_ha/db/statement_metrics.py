"""How long each SQL statement takes, from the client's side (network and
server time included), by kind of statement: what to look at when the
API or a take-over is slow, and whether the database is why."""

import time

import prometheus_client
import sqlalchemy as sa

STATEMENT_SECONDS = prometheus_client.Histogram(
    'watcher_ha_db_statement_duration_seconds',
    'Time to execute one SQL statement, by its kind (select, insert, '
    'update, delete; other: anything else).',
    ['operation'],
    buckets=(.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5,
             5, 10))

OPERATIONS = frozenset(('select', 'insert', 'update', 'delete'))

# Where the start of a statement is noted on its execution context.
_STARTED = '_watcher_ha_started'


def operation(statement):
    """The label of ``statement`` (its first keyword, bounded)."""
    word = statement.lstrip().split(None, 1)[0].lower() if (
        statement and statement.strip()) else ''
    return word if word in OPERATIONS else 'other'


def time_statements(engine):
    """Time every statement ``engine`` runs (for
    enginefacade.append_on_engine_create)."""

    @sa.event.listens_for(engine, 'before_cursor_execute')
    def _before(conn, cursor, statement, parameters, context, executemany):
        if context is not None:
            setattr(context, _STARTED, time.perf_counter())

    @sa.event.listens_for(engine, 'after_cursor_execute')
    def _after(conn, cursor, statement, parameters, context, executemany):
        # A statement that failed never comes here: its start stays on its
        # context, which goes with it.
        started = getattr(context, _STARTED, None)
        if started is not None:
            STATEMENT_SECONDS.labels(operation(statement)).observe(
                time.perf_counter() - started)
