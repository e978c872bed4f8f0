"""The listening socket the API workers share."""

import socket

from watcher_ha.common import wsgi_server


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
