"""The statement readers of sql_wire.py: whole messages, forwarded byte
for byte, however the client's bytes are cut into reads."""

import struct

import pytest

from tests.functional import sql_wire

CLIENT_PROTOCOL_41 = 0x0200


def mysql_packet(sequence, payload):
    return len(payload).to_bytes(3, 'little') + bytes([sequence]) + payload


def mysql_query(sql, sequence=0):
    return mysql_packet(sequence, b'\x03' + sql.encode())


def handshake_response(flags, length):
    payload = struct.pack('<I', flags) + b'\0' * (length - 4)
    return mysql_packet(1, payload)


def postgres_untyped(code, body=b''):
    return struct.pack('!II', 8 + len(body), code) + body


def postgres_typed(kind, body):
    return kind + struct.pack('!I', 4 + len(body)) + body


def feed_in_pieces(reader, stream, size):
    messages = []
    for start in range(0, len(stream), size):
        messages.extend(reader.feed(stream[start:start + size]))
    return messages


def statements(messages):
    return [m.statement for m in messages if m.statement is not None]


MYSQL_SESSION = (
    handshake_response(CLIENT_PROTOCOL_41, 64)
    # An answer to the server's auth switch: sequence 3, not a command,
    # though its first byte is COM_QUERY's.
    + mysql_packet(3, b'\x03not a query')
    + mysql_query('SET AUTOCOMMIT = 0')
    + mysql_packet(0, b'\x0e')                    # COM_PING
    + mysql_query("UPDATE t SET v = 'é' WHERE id = 1")
    + mysql_query('COMMIT')
    + mysql_packet(0, b'\x01'))                   # COM_QUIT

POSTGRES_SESSION = (
    postgres_untyped(sql_wire.SSL_REQUEST)
    + postgres_untyped(196608, b'user\0postgres\0database\0db\0\0')
    + postgres_typed(b'p', b'password\0')
    + postgres_typed(b'Q', b'BEGIN\0')
    + postgres_typed(b'Q', "UPDATE t SET v = 'é'\0".encode())
    + postgres_typed(b'P', b'\0SELECT $1\0\0\0')
    + postgres_typed(b'B', b'\0\0\0\0\0\0\0\0')
    + postgres_typed(b'E', b'\0\0\0\0\0')
    + postgres_typed(b'S', b'')
    + postgres_typed(b'Q', b'COMMIT\0')
    + postgres_typed(b'X', b''))

SESSIONS = {
    'mysql': (MYSQL_SESSION,
              ['SET AUTOCOMMIT = 0', "UPDATE t SET v = 'é' WHERE id = 1",
               'COMMIT']),
    'postgresql': (POSTGRES_SESSION,
                   ['BEGIN', "UPDATE t SET v = 'é'", 'SELECT $1',
                    'COMMIT']),
}


@pytest.mark.parametrize('kind', SESSIONS)
@pytest.mark.parametrize('size', [1, 3, 7, 1 << 16])
def test_whole_messages_however_the_bytes_arrive(kind, size):
    stream, expected = SESSIONS[kind]
    messages = feed_in_pieces(sql_wire.READERS[kind](), stream, size)
    assert b''.join(m.raw for m in messages) == stream
    assert statements(messages) == expected


def test_mysql_payload_over_16_mib_is_one_statement():
    sql = 'INSERT INTO t VALUES (%s)' % ('x' * sql_wire.MAX_MYSQL_PAYLOAD)
    payload = b'\x03' + sql.encode()
    first = payload[:sql_wire.MAX_MYSQL_PAYLOAD]
    stream = (mysql_packet(0, first)
              + mysql_packet(1, payload[len(first):])
              + mysql_query('COMMIT'))
    messages = feed_in_pieces(sql_wire.MySQLReader(), stream, 100003)
    assert statements(messages) == [sql, 'COMMIT']
    assert b''.join(m.raw for m in messages) == stream


def test_mysql_ssl_request_turns_the_reader_blind():
    reader = sql_wire.MySQLReader()
    ssl_request = handshake_response(CLIENT_PROTOCOL_41 | sql_wire.CLIENT_SSL,
                                     sql_wire.SSL_REQUEST_LENGTH)
    tls = b'\x16\x03\x01\x02\x00' + mysql_query('COMMIT')
    messages = reader.feed(ssl_request + tls)
    messages += reader.feed(mysql_query('COMMIT'))
    assert statements(messages) == []
    assert b''.join(m.raw for m in messages) == (
        ssl_request + tls + mysql_query('COMMIT'))


def test_postgres_tls_after_ssl_request_turns_the_reader_blind():
    reader = sql_wire.PostgresReader()
    tls = b'\x16\x03\x01\x02\x00' + postgres_typed(b'Q', b'COMMIT\0')
    messages = reader.feed(postgres_untyped(sql_wire.SSL_REQUEST) + tls[:3])
    messages += reader.feed(tls[3:])
    assert statements(messages) == []
    assert b''.join(m.raw for m in messages) == (
        postgres_untyped(sql_wire.SSL_REQUEST) + tls)
