"""The listening socket the API workers share, and the requests cheroot
hands the application."""

import socket
import threading

import pytest

from watcher_ha.service import wsgi_server


def test_bound_socket_has_nodelay_for_keep_alive_clients():
    # Without it each response waited for the client's delayed ACK (40 ms).
    sock = wsgi_server.bind('127.0.0.1', 0)
    try:
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        sock.close()


def test_workers_never_block_in_accept():
    # Workers share the socket; the ones that lose a connection to a peer
    # must not sit in accept() (cheroot's 1 s timeout stalled their
    # keep-alive clients).
    sock = wsgi_server.bind('127.0.0.1', 0)
    server = wsgi_server._InheritedSocketServer(
        sock, lambda environ, start_response: [], numthreads=1)
    try:
        server.prepare()
        assert sock.gettimeout() == 0.0
        assert server.socket is sock
    finally:
        server.stop()
        sock.close()


# -- request targets starting with // ----------------------------------------

@pytest.fixture(scope='module')
def echo_server():
    """A cheroot server of ours whose application answers with the path
    and query it was given: yields its port."""
    def echo(environ, start_response):
        body = ('%s?%s' % (environ['PATH_INFO'],
                           environ['QUERY_STRING'])).encode()
        start_response('200 OK', [('Content-Type', 'text/plain'),
                                  ('Content-Length', str(len(body)))])
        return [body]

    sock = wsgi_server.bind('127.0.0.1', 0)
    server = wsgi_server._InheritedSocketServer(sock, echo, numthreads=1)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        server.stop()
        thread.join(5)
        sock.close()


def ask(port, target):
    """Send ``GET <target>`` as is; (status line, body)."""
    with socket.create_connection(('127.0.0.1', port), timeout=5) as conn:
        conn.sendall(b'GET %s HTTP/1.1\r\nHost: api\r\n'
                     b'Connection: close\r\n\r\n' % target)
        answer = conn.makefile('rb').read()
    head, _, body = answer.partition(b'\r\n\r\n')
    return head.split(b'\r\n', 1)[0], body


@pytest.mark.parametrize('target,seen', [
    (b'//v1/audits', b'/v1/audits?'),
    (b'///v1/audits?limit=1', b'/v1/audits?limit=1'),
    (b'//', b'/?'),
    # Only leading slashes: the application sees the others.
    (b'/v1//audits', b'/v1//audits?'),
])
def test_leading_slashes_are_collapsed(echo_server, target, seen):
    assert ask(echo_server, target) == (b'HTTP/1.1 200 OK', seen)


@pytest.mark.parametrize('target', [
    b'http://api/v1/audits',        # absolute form: for proxies only
    b'v1/audits',                   # not starting with a slash
    b'//v1/audits#fragment',
])
def test_other_targets_are_checked_as_before(echo_server, target):
    status, _ = ask(echo_server, target)
    assert status == b'HTTP/1.1 400 Bad Request'
