"""A TCP proxy in front of MariaDB or PostgreSQL that cuts a client's
connection at a chosen statement, for the tests that prove a database
connection lost at any write of a row's life leaves nothing stuck.

The proxy listens on 127.0.0.1 on a free port and relays every byte
unchanged, each client connection to a connection of its own to the real
server, in a thread of the test process. It reads what clients send just
enough to see their statements (sql_wire.py) and checks each against the
rules the test armed. A rule that fires cuts the connection: both
sockets are reset (SO_LINGER 0), so the client gets a lost-connection
error and the server ends the session, rolling back whatever it had not
committed.

- ``when='before'``: the statement is not forwarded. The server never
  runs it.
- ``when='after'``: the statement is forwarded, and the connection is
  cut when the first bytes of the server's answer arrive. None of the
  answer reaches the client. The server ran the statement: a COMMIT is
  committed, yet the client cannot know.
- ``at='statement'``: the rule fires on a statement its pattern matches.
- ``at='commit'``: it fires on the COMMIT that ends a transaction in
  which a statement matched ("cut at the commit of the transaction that
  wrote X": the ambiguous commit).

Use, in a functional test::

    url, drop = servers.create_database('mysql')
    ...  # migrate through ``url`` directly: no rule needs to see it
    with sql_proxy.SqlProxy(url) as proxy:
        config = fixtures.base_config(tmp_path, database_url=proxy.url)
        ...  # start the daemons with that config
        proxy.arm(r"^UPDATE audits SET .*state='ONGOING'", at='commit',
                  when='after')
        ...  # drive the scenario
        proxy.wait_fired()
        ...  # check, through an engine on ``url``, that the row moves
             # on and that no lock or lease is left behind

``wait_fired`` returns once the connection is cut: for ``after``, the
server has answered by then. ``proxy.statements`` keeps the last
statements seen, (connection number, text), to write patterns from and
to read when a rule did not fire. Give each daemon a proxy of its own to
cut only that daemon's connections; ``connection_filter`` narrows a rule
within one proxy.

What the product's engine (oslo.db's, SQLAlchemy 2) sends, as
test_sql_proxy.py checks:

- PyMySQL never sends BEGIN: with autocommit off, the first statement
  opens the transaction. COMMIT and ROLLBACK go as queries; the pool
  sends a ROLLBACK at every check-in, after a COMMIT too.
  pool_pre_ping's ping is COM_PING, which no rule sees.
- psycopg2 sends BEGIN before a transaction's first statement, then
  COMMIT or ROLLBACK, and nothing at check-in after a COMMIT.
  pool_pre_ping runs ``SELECT 1`` outside any transaction.
- Both inline the parameters in the statement text, so a pattern may
  match a value (a uuid, a state).

Caveats:

- Patterns are searched (not matched) in the statement text, ignoring
  case, with ``.`` matching newlines (SQLAlchemy breaks lines). A broad
  pattern also catches the pool's own statements above.
- An at='commit' rule follows a connection's transaction from the
  statement it matched to the next COMMIT; a ROLLBACK (not ROLLBACK TO
  SAVEPOINT) or a BEGIN in between makes it forget that transaction.
  MySQL's implicit commits (DDL, a second BEGIN) are not seen as
  commits.
- ``after`` on a statement that returns rows outside a transaction (an
  autocommit UPDATE ... RETURNING) may cut before the server's commit:
  rows are sent first.
- Clients must not pipeline statements; no driver of ours does.
- TLS connections are relayed blind (``url`` turns TLS off); MySQL's
  compressed protocol and prepared statements (COM_STMT_*) are not read.
"""

import collections
import contextlib
import dataclasses
import os
import re
import selectors
import socket
import struct
import threading
import time
from collections.abc import Callable

import sqlalchemy as sa

from tests.functional import sql_wire

AT = ('statement', 'commit')
WHEN = ('before', 'after')
COMMIT = re.compile(r'\s*COMMIT\b', re.IGNORECASE)
# Statements after which a transaction's earlier statements no longer
# lead to a commit.
TRANSACTION_BOUNDARY = re.compile(
    r'\s*(COMMIT|ROLLBACK(?!\s+(WORK\s+)?TO\b)|ABORT|BEGIN|START\s+TRANSACTION'
    r'|END)\b', re.IGNORECASE)
CHUNK = 1 << 16
# How many statements ``statements`` keeps, the last ones.
STATEMENTS_KEPT = 10000
RESET_ON_CLOSE = struct.pack('ii', 1, 0)   # SO_LINGER on, 0 s: RST


@dataclasses.dataclass(eq=False)
class Rule:
    """What to cut; ``remaining`` counts down to 0 (None: no end)."""
    pattern: re.Pattern
    at: str
    when: str
    remaining: int | None
    connection_filter: Callable[['ProxiedConnection'], bool] | None


@dataclasses.dataclass(frozen=True)
class Fired:
    """A cut: ``statement`` is where the connection was cut, ``trigger``
    the statement the rule matched (the same one for at='statement').
    ``time`` (time.time()) is when the cut was made."""
    rule: Rule
    statement: str
    trigger: str
    connection: int
    time: float | None = None


class ProxiedConnection:
    """A client's connection, as a ``connection_filter`` sees it:
    ``number`` counts connections from 1 in the order they came,
    ``client`` is the client's (host, port)."""

    def __init__(self, number, client, client_socket, server_socket,
                 reader):
        self.number = number
        self.client = client
        self.client_socket = client_socket
        self.server_socket = server_socket
        self.reader = reader
        # at='commit' rules a statement of the open transaction matched,
        # with that statement.
        self.marked = {}
        # A cut due when the server answers (when='after').
        self.cut_on_answer = None


class SqlProxy:
    """A proxy in front of the database of ``database_url`` (a
    mysql+pymysql:// or postgresql+psycopg2:// SQLAlchemy URL)."""

    def __init__(self, database_url):
        self._database_url = sa.engine.make_url(database_url)
        self.kind = self._database_url.get_backend_name()
        self._reader = sql_wire.READERS[self.kind]
        self._server = (self._database_url.host or '127.0.0.1',
                        self._database_url.port or
                        {'mysql': 3306, 'postgresql': 5432}[self.kind])
        self._lock = threading.Lock()
        self._fired_changed = threading.Condition(self._lock)
        self._rules = []
        self._fired = []
        self._connections = 0
        self.statements = collections.deque(maxlen=STATEMENTS_KEPT)
        self.port = None
        self._listener = None
        self._accepting = None
        self._threads = []
        self._stop_read = self._stop_write = None

    # -- life -----------------------------------------------------------

    def start(self):
        self._listener = socket.create_server(('127.0.0.1', 0), backlog=128)
        self.port = self._listener.getsockname()[1]
        # Never read: once written, it wakes every thread's select for
        # good.
        self._stop_read, self._stop_write = os.pipe()
        self._accepting = threading.Thread(
            target=self._accept, name='sql-proxy-%d' % self.port,
            daemon=True)
        self._accepting.start()
        return self

    def stop(self):
        """Close the listener and every relayed connection."""
        if self._listener is None:
            return
        os.write(self._stop_write, b'.')
        # No connection thread starts once the accepting one is done.
        self._accepting.join(10)
        for thread in self._threads:
            thread.join(10)
        self._listener.close()
        os.close(self._stop_read)
        os.close(self._stop_write)
        self._listener = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    @property
    def url(self):
        """The database URL with the proxy in place of the server, over
        TCP and without TLS (the proxy could not read it)."""
        if self.port is None:
            raise RuntimeError('the proxy has not started')
        query = {key: value
                 for key, value in self._database_url.query.items()
                 if key not in ('unix_socket', 'host')
                 and not key.startswith('ssl')}
        if self.kind == 'postgresql':
            query['sslmode'] = 'disable'
        return self._database_url.set(
            host='127.0.0.1', port=self.port, query=query,
        ).render_as_string(hide_password=False)

    # -- rules ----------------------------------------------------------

    def arm(self, match, at='statement', when='before', count=1,
            connection_filter=None):
        """Cut the next ``count`` connections (None: every one) that send
        a statement ``match`` (a regular expression) finds, at that
        statement or at the COMMIT of its transaction (``at``), before
        or after the server runs it (``when``). ``connection_filter``,
        a function of a ProxiedConnection, picks the connections the
        rule applies to. Returns the Rule."""
        if at not in AT or when not in WHEN:
            raise ValueError('at must be one of %s, when one of %s'
                             % (AT, WHEN))
        if count is not None and count < 1:
            raise ValueError('count must be at least 1, or None')
        pattern = re.compile(match, re.IGNORECASE | re.DOTALL)
        rule = Rule(pattern, at, when, count, connection_filter)
        with self._lock:
            self._rules.append(rule)
        return rule

    def disarm(self, rule=None):
        """Drop ``rule``, or every rule."""
        with self._lock:
            self._rules = [armed for armed in self._rules
                           if rule is not None and armed is not rule]

    @property
    def rules(self):
        """The rules still armed."""
        with self._lock:
            return list(self._rules)

    @property
    def fired(self):
        """The cuts made so far, in order (Fired)."""
        with self._lock:
            return list(self._fired)

    def wait_fired(self, count=1, timeout=10):
        """Wait until ``count`` cuts were made; return them all. Raises
        AssertionError after ``timeout`` seconds."""
        with self._fired_changed:
            if not self._fired_changed.wait_for(
                    lambda: len(self._fired) >= count, timeout):
                raise AssertionError(
                    '%d of %d cuts within %s s; rules armed: %s; last '
                    'statements: %s' % (
                        len(self._fired), count, timeout, self._rules,
                        list(self.statements)[-10:]))
            return list(self._fired)

    def _cut_due(self, connection, statement):
        """The cut ``statement`` on ``connection`` calls for, or None;
        notes the transactions at='commit' rules must follow."""
        with self._lock:
            self.statements.append((connection.number, statement))
            due = next(((rule, statement) for rule in self._rules
                        if rule.at == 'statement'
                        and self._applies(rule, connection, statement)),
                       None)
            if due is None and COMMIT.match(statement):
                due = next(((rule, trigger) for rule, trigger
                            in connection.marked.items()
                            if rule in self._rules), None)
            if TRANSACTION_BOUNDARY.match(statement):
                connection.marked.clear()
            else:
                for rule in self._rules:
                    if (rule.at == 'commit' and rule not in connection.marked
                            and self._applies(rule, connection, statement)):
                        connection.marked[rule] = statement
            if due is None:
                return None
            rule, trigger = due
            self._use(rule)
            return Fired(rule, statement, trigger, connection.number)

    @staticmethod
    def _applies(rule, connection, statement):
        return ((rule.connection_filter is None
                 or rule.connection_filter(connection))
                and rule.pattern.search(statement) is not None)

    def _use(self, rule):
        if rule.remaining is not None:
            rule.remaining -= 1
            if rule.remaining == 0:
                self._rules.remove(rule)

    # -- relaying -------------------------------------------------------

    def _accept(self):
        with selectors.DefaultSelector() as selector:
            selector.register(self._listener, selectors.EVENT_READ)
            selector.register(self._stop_read, selectors.EVENT_READ)
            while True:
                ready = [key.fileobj for key, _ in selector.select()]
                if self._stop_read in ready:
                    return
                client_socket, client = self._listener.accept()
                self._connections += 1
                thread = threading.Thread(
                    target=self._serve, name='sql-proxy-%d-%d' % (
                        self.port, self._connections),
                    args=(client_socket, client, self._connections),
                    daemon=True)
                self._threads = [known for known in self._threads
                                 if known.is_alive()] + [thread]
                thread.start()

    def _serve(self, client_socket, client, number):
        try:
            server_socket = socket.create_connection(self._server, 10)
        except OSError:
            _close(client_socket, reset=True)
            return
        server_socket.settimeout(None)
        for sock in (client_socket, server_socket):
            # Statements and answers are small and go one at a time:
            # Nagle's delay would cost 40 ms a round trip.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection = ProxiedConnection(number, client, client_socket,
                                       server_socket, self._reader())
        cut = None
        try:
            cut = self._relay(connection)
        except (OSError, _Closed):
            pass      # either side went away: so does the other
        finally:
            cut = cut or connection.cut_on_answer
            _close(client_socket, reset=cut is not None)
            _close(server_socket, reset=cut is not None)
        if cut is not None:
            with self._fired_changed:
                self._fired.append(dataclasses.replace(cut, time=time.time()))
                self._fired_changed.notify_all()

    def _relay(self, connection):
        """Relay until a cut is due, and return it (Fired without its
        time), or until the proxy stops (None); _Closed when either side
        closes."""
        client_socket = connection.client_socket
        with selectors.DefaultSelector() as selector:
            selector.register(client_socket, selectors.EVENT_READ)
            selector.register(connection.server_socket, selectors.EVENT_READ)
            selector.register(self._stop_read, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select():
                    if key.fileobj is self._stop_read:
                        return None
                    if key.fileobj is client_socket:
                        cut = self._from_client(connection)
                    else:
                        cut = self._from_server(connection)
                    if cut is not None:
                        return cut

    def _from_client(self, connection):
        """Forward the client's whole messages; the cut due before one of
        them, if any."""
        for message in connection.reader.feed(
                _receive(connection.client_socket)):
            cut = None
            if message.statement is not None:
                cut = self._cut_due(connection, message.statement)
            if cut is not None and cut.rule.when == 'before':
                return cut
            connection.server_socket.sendall(message.raw)
            if cut is not None:
                connection.cut_on_answer = cut
        return None

    @staticmethod
    def _from_server(connection):
        """Forward the server's answer, unless a cut awaits it."""
        data = _receive(connection.server_socket)
        if connection.cut_on_answer is not None:
            return connection.cut_on_answer
        connection.client_socket.sendall(data)
        return None


class _Closed(Exception):
    """One side closed its connection."""


def _receive(sock):
    data = sock.recv(CHUNK)
    if not data:
        raise _Closed()
    return data


def _close(sock, reset):
    if reset:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                            RESET_ON_CLOSE)
    sock.close()
