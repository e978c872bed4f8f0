"""Where the statements are in a database client's byte stream.

The SQL proxy (sql_proxy.py) must see each statement a client sends
before it passes it on, and must pass every byte on unchanged. A reader
here takes what a client sends as it comes off the socket, in pieces of
any size, and hands back whole protocol messages: each the exact bytes
to forward, with the SQL text the message carries, or None. The bytes of
an unfinished message stay buffered until the rest arrives.

Each protocol is understood just enough for that:

- MySQL/MariaDB: packets of a 3-byte little-endian payload length, a
  sequence number, then the payload. A client starts every command with
  sequence number 0, while its log-in packets answer the server's and
  carry 1, 3, ..., so a command is told apart without following the
  log-in. COM_QUERY (0x03) carries the SQL; PyMySQL sends every
  statement so, COMMIT and ROLLBACK included. A payload of 2**24 - 1
  bytes goes on in the next packet: the packets are one message.
- PostgreSQL, protocol 3: untyped messages (length, code) while starting
  (SSLRequest, GSSENCRequest, CancelRequest, StartupMessage), typed ones
  (a type byte, a length) after the StartupMessage. 'Q' carries the SQL
  of a simple query (psycopg2 sends nothing else), 'P' the SQL of an
  extended-protocol Parse.

A connection that turns TLS on (MySQL's SSLRequest; PostgreSQL's TLS
ClientHello after the server accepted an SSLRequest) or GSS encryption
is relayed blind from then on: its bytes pass, no statement is seen.
"""

from typing import NamedTuple

# MySQL
COM_QUERY = 0x03
CLIENT_SSL = 0x0800
SSL_REQUEST_LENGTH = 32
MAX_MYSQL_PAYLOAD = 0xFFFFFF
# PostgreSQL
SSL_REQUEST = 80877103
GSSENC_REQUEST = 80877104
CANCEL_REQUEST = 80877102
PROTOCOL_3 = 3
TLS_HANDSHAKE_RECORD = 0x16


class Message(NamedTuple):
    raw: bytes               # forwarded as is
    statement: str | None    # the SQL text it carries, if any


def _take(buffer, size):
    """The first ``size`` bytes of ``buffer``, removed from it; None
    while the size is unknown (None) or not all of it has arrived."""
    if size is None or len(buffer) < size:
        return None
    taken = bytes(buffer[:size])
    del buffer[:size]
    return taken


def _sql(text):
    # Clients send statements in the connection's character set, UTF-8
    # for ours; a stray byte must not stop the relay.
    return bytes(text).decode('utf-8', 'replace')


class _Reader:
    """Buffering common to both protocols; a subclass says how long the
    next message is and what it carries."""

    def __init__(self):
        self._buffer = bytearray()
        self._blind = False

    def feed(self, data):
        """The whole messages ``data`` completes, in order."""
        if self._blind:
            return [Message(bytes(data), None)]
        self._buffer += data
        messages = []
        while not self._blind:
            raw = _take(self._buffer, self._next_size())
            if raw is None:
                break
            message = self._read(raw)
            if message is not None:
                messages.append(message)
        if self._blind and self._buffer:
            messages.append(Message(bytes(self._buffer), None))
            self._buffer.clear()
        return messages


class MySQLReader(_Reader):

    def __init__(self):
        super().__init__()
        # The packets of a message whose payload goes on in the next one.
        self._packets = bytearray()
        self._payload = bytearray()
        self._sequence = None

    def _next_size(self):
        if len(self._buffer) < 4:
            return None
        return 4 + int.from_bytes(self._buffer[:3], 'little')

    def _read(self, packet):
        if not self._packets:
            self._sequence = packet[3]
        self._packets += packet
        self._payload += packet[4:]
        if len(packet) - 4 == MAX_MYSQL_PAYLOAD:
            return None
        raw, payload = bytes(self._packets), bytes(self._payload)
        sequence = self._sequence
        self._packets.clear()
        self._payload.clear()
        if sequence == 0 and payload[:1] == bytes([COM_QUERY]):
            return Message(raw, _sql(payload[1:]))
        if (sequence == 1 and len(payload) == SSL_REQUEST_LENGTH
                and int.from_bytes(payload[:4], 'little') & CLIENT_SSL):
            self._blind = True
        return Message(raw, None)


class PostgresReader(_Reader):

    def __init__(self):
        super().__init__()
        self._starting = True

    def _next_size(self):
        if self._starting:
            # An untyped message starts with its length, far below 2**24:
            # a first byte of 0x16 is the TLS ClientHello that follows the
            # server's yes to an SSLRequest.
            if self._buffer[:1] == bytes([TLS_HANDSHAKE_RECORD]):
                self._blind = True
                return None
            if len(self._buffer) < 4:
                return None
            return int.from_bytes(self._buffer[:4], 'big')
        if len(self._buffer) < 5:
            return None
        return 1 + int.from_bytes(self._buffer[1:5], 'big')

    def _read(self, raw):
        if self._starting:
            code = int.from_bytes(raw[4:8], 'big')
            if code >> 16 == PROTOCOL_3:
                self._starting = False
            elif code not in (SSL_REQUEST, GSSENC_REQUEST, CANCEL_REQUEST):
                # GSS-encrypted packets, after the server's yes to a
                # GSSENCRequest.
                self._blind = True
            return Message(raw, None)
        kind, body = raw[:1], raw[5:]
        if kind == b'Q':
            return Message(raw, _sql(body.split(b'\0', 1)[0]))
        if kind == b'P':
            _name, rest = body.split(b'\0', 1)
            return Message(raw, _sql(rest.split(b'\0', 1)[0]))
        return Message(raw, None)


READERS = {'mysql': MySQLReader, 'postgresql': PostgresReader}
