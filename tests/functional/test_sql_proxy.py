"""The SQL proxy (sql_proxy.py) on the real MariaDB and PostgreSQL, with
the product's engine (oslo.db's, so PyMySQL or psycopg2 and
pool_pre_ping): it relays everything unchanged, and a rule cuts exactly
the connection and the statement it names, leaving the row as the server
left it and nothing locked."""

import threading
from typing import NamedTuple

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
from sqlalchemy.dialects import mysql

from tests.functional import services
from tests.functional import sql_proxy
from watcher_ha.db import engine as db_engine

ITEMS = sa.Table(
    'items', sa.MetaData(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=False),
    sa.Column('value', sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')))
UPDATE = "UPDATE items SET value = 'new' WHERE id = 1"


def product_engine(url, **kwargs):
    # What watcher_ha.db.engine's facade builds from [database].
    return engines.create_engine(url, mysql_sql_mode='TRADITIONAL', **kwargs)


@pytest.fixture(scope='module', params=['mysql', 'postgresql'])
def server(request):
    """A database with the table ``items`` and a direct engine on it,
    whose lock waits give up after 5 s: (url, engine)."""
    url, drop = services.create_database(request.param)
    direct = product_engine(url)
    db_engine.limit_lock_waits(direct, seconds=5)
    ITEMS.metadata.create_all(direct)
    yield url, direct
    direct.dispose()
    drop()


class Proxied(NamedTuple):
    proxy: sql_proxy.SqlProxy
    engine: sa.Engine      # through the proxy
    direct: sa.Engine      # to the server


@pytest.fixture
def proxied(server):
    """A proxy in front of ``server``, whose row 1 holds 'old'."""
    url, direct = server
    with direct.begin() as conn:
        conn.execute(ITEMS.delete())
        conn.execute(ITEMS.insert().values(id=1, value='old'))
    with sql_proxy.SqlProxy(url) as proxy:
        engine = product_engine(proxy.url)
        yield Proxied(proxy, engine, direct)
        engine.dispose()


def value(engine, row_id=1):
    with engine.connect() as conn:
        return conn.scalar(
            sa.select(ITEMS.c.value).where(ITEMS.c.id == row_id))


def run(engine, statement):
    with engine.begin() as conn:
        return conn.execute(sa.text(statement))


def assert_works(engine):
    assert run(engine, "SELECT 'works'").scalar() == 'works'


def test_large_statements_and_results_pass_unchanged(proxied):
    big = ''.join(chr(0x20 + i % 0x5f) for i in range(3 << 20)) + 'é'
    many = [{'id': i, 'value': 'row %06d ' % i + 'x' * 90}
            for i in range(2, 20002)]
    with proxied.engine.begin() as conn:
        conn.execute(ITEMS.insert().values(id=20002, value=big))
        conn.execute(ITEMS.insert(), many)
    assert value(proxied.engine, 20002) == big
    query = sa.select(ITEMS.c.id, ITEMS.c.value).order_by(ITEMS.c.id)
    with proxied.engine.connect() as through, \
            proxied.direct.connect() as direct:
        assert (through.execute(query).all()
                == direct.execute(query).all())
    assert proxied.proxy.fired == []


def test_many_concurrent_connections(proxied):
    clients = 32
    engine = product_engine(proxied.proxy.url, max_pool_size=clients,
                            max_overflow=0)
    all_connected = threading.Barrier(clients, timeout=30)
    errors = []

    def client(number):
        try:
            with engine.connect() as conn:
                all_connected.wait()
                for query in range(20):
                    assert conn.scalar(sa.text(
                        'SELECT %d' % (number * 100 + query))) == (
                            number * 100 + query)
        except Exception as error:  # noqa: BLE001 - asserted below
            errors.append(error)

    threads = [threading.Thread(target=client, args=(number,))
               for number in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    engine.dispose()
    assert errors == []
    assert len({number for number, _ in proxied.proxy.statements}) >= clients


# at, when: the value row 1 keeps, and why.
CUTS = [
    ('statement', 'before', 'old'),    # the UPDATE never reached the server
    ('statement', 'after', 'old'),     # it ran; its transaction rolled back
    ('commit', 'before', 'old'),       # the COMMIT never reached the server
    ('commit', 'after', 'new'),        # committed; the client was not told
]


@pytest.mark.parametrize('at, when, kept', CUTS)
def test_cut_leaves_the_row_as_the_server_had_it(proxied, at, when, kept):
    rule = proxied.proxy.arm(r'^UPDATE items SET', at=at, when=when)
    with pytest.raises(db_exc.DBConnectionError):
        run(proxied.engine, UPDATE)
    [fired] = proxied.proxy.wait_fired()
    assert fired.rule is rule
    assert fired.trigger == UPDATE
    assert fired.statement == (UPDATE if at == 'statement' else 'COMMIT')
    assert value(proxied.direct) == kept
    # Nothing is stuck: the row takes another write at once (a lock left
    # behind would make it give up after 5 s).
    run(proxied.direct, "UPDATE items SET value = 'later' WHERE id = 1")
    assert_works(proxied.engine)
    assert proxied.proxy.rules == []


def test_count_is_how_many_connections_are_cut(proxied):
    twice = proxied.proxy.arm(r"'counted'", count=2)
    for _ in range(2):
        with pytest.raises(db_exc.DBConnectionError):
            run(proxied.engine, "SELECT 'counted'")
    assert run(proxied.engine, "SELECT 'counted'").scalar() == 'counted'
    assert twice.remaining == 0
    assert [f.rule for f in proxied.proxy.wait_fired(2)] == [twice, twice]

    always = proxied.proxy.arm(r"'counted'", count=None)
    for _ in range(3):
        with pytest.raises(db_exc.DBConnectionError):
            run(proxied.engine, "SELECT 'counted'")
    proxied.proxy.disarm(always)
    assert run(proxied.engine, "SELECT 'counted'").scalar() == 'counted'
    assert len(proxied.proxy.fired) == 5


def test_connection_filter_picks_the_connection(proxied):
    proxied.proxy.arm(r"'picked'", connection_filter=lambda c: c.number == 2)
    with proxied.engine.connect() as first, \
            proxied.engine.connect() as second:
        assert first.scalar(sa.text("SELECT 'picked'")) == 'picked'
        with pytest.raises(db_exc.DBConnectionError):
            second.scalar(sa.text("SELECT 'picked'"))
    assert proxied.proxy.wait_fired()[0].connection == 2


def test_commit_rule_follows_its_transaction_only(proxied):
    rule = proxied.proxy.arm(r'^UPDATE items SET', at='commit')
    with proxied.engine.connect() as conn:
        conn.execute(sa.text(UPDATE))
        conn.rollback()
        # A transaction without the UPDATE commits.
        conn.execute(sa.text("SELECT 'other'"))
        conn.commit()
    assert proxied.proxy.fired == []
    assert rule.remaining == 1


def test_unmatched_rule_leaves_everything_alone(proxied):
    rule = proxied.proxy.arm(r'never sent by anyone', at='commit',
                             when='after')
    run(proxied.engine, UPDATE)
    assert value(proxied.engine) == 'new'
    assert_works(proxied.engine)
    with pytest.raises(AssertionError, match='0 of 1 cuts'):
        proxied.proxy.wait_fired(timeout=0.1)
    assert proxied.proxy.rules == [rule]
    assert rule.remaining == 1


# What the product's engine sends for one write transaction once its
# connection is pooled: the docstring of sql_proxy.py relies on this.
WRITE_TRANSACTION = {
    # pool_pre_ping is COM_PING; the pool rolls back at check-in.
    'mysql': [UPDATE, 'COMMIT', 'ROLLBACK'],
    # pool_pre_ping runs SELECT 1 outside a transaction; psycopg2 opens
    # one with BEGIN and skips the check-in rollback after a COMMIT.
    'postgresql': ['SELECT 1', 'BEGIN', UPDATE, 'COMMIT'],
}


def test_what_a_write_transaction_sends(proxied):
    assert_works(proxied.engine)
    proxied.proxy.statements.clear()
    run(proxied.engine, UPDATE)
    assert [text for _, text in proxied.proxy.statements] == (
        WRITE_TRANSACTION[proxied.proxy.kind])
