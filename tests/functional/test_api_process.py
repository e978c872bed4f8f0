"""The watcher-ha-api command serves the API from real processes."""

import requests
from tests.functional import services



def test_api_process_serves_goals(api_server):
    resp = requests.get(api_server + '/v1/goals')
    assert resp.status_code == 200
    assert 'dummy' in [goal['name'] for goal in resp.json()['goals']]
    assert resp.headers['OpenStack-API-Version'] == 'infra-optim 1.0'
    assert resp.headers['X-OpenStack-Request-Id'].startswith('req-')


def test_a_down_message_bus_does_not_block_writes(tmp_path):
    """The audit is committed before the cast; with the broker down the
    cast gives up after a few retries and the request still succeeds."""
    import time

    from tests.functional import fixtures
    port = fixtures.free_port()
    config = fixtures.write_config(
        tmp_path / 'watcher-ha.conf', fixtures.base_config(
            tmp_path, port=port,
            DEFAULT={'transport_url': 'rabbit://guest:guest@127.0.0.1:1/'}))
    fixtures.prepare_database(config)
    with services.api_process(config, port) as url:
        started = time.monotonic()
        resp = requests.post(url + '/v1/audits', json={
            'goal': 'dummy', 'audit_type': 'ONESHOT', 'name': 'lonely'},
            timeout=60)
        assert resp.status_code == 201, resp.text
        assert time.monotonic() - started < 30
        assert requests.get(url + '/v1/audits/lonely').json()[
            'state'] == 'PENDING'


# -- request body cap ---------------------------------------------------------

EIGHT_MIB = 8 * 1024 * 1024


def exchange(port, head, chunks=()):
    """Send ``head`` (request line and headers), then ``chunks`` until the
    server answers; return the status line and the seconds taken."""
    import socket
    import time
    started = time.monotonic()
    with socket.create_connection(('127.0.0.1', port), timeout=10) as sock:
        sock.sendall(head)
        for chunk in chunks:
            try:
                sock.sendall(chunk)
            except OSError:
                break           # the server answered and closed
        answer = sock.makefile('rb').read()
    return answer, time.monotonic() - started


def test_an_oversized_body_is_refused_unread(tmp_path):
    """A body over the cap costs neither time nor memory: it is answered
    before it is read (Content-Length) or once the cap is reached
    (chunked), in Watcher's JSON error format."""
    import json

    from tests.functional import fixtures
    port = fixtures.free_port()
    config = fixtures.write_config(
        tmp_path / 'watcher-ha.conf', fixtures.base_config(tmp_path,
                                                           port=port))
    fixtures.prepare_database(config)
    with services.api_process(config, port) as url:
        [worker] = fixtures.api_workers(config)
        for _ in range(20):     # settle the worker's memory
            requests.post(url + '/v1/audit_templates', data=b'{}',
                          headers={'Content-Type': 'application/json'})
        before = worker.memory_info().rss
        token = b'X-Auth-Token: %s\r\n' % services.keystone().token(
            ).encode()

        # Content-Length: answered although no byte of the body is sent.
        answer, seconds = exchange(port, (
            b'POST /v1/audits HTTP/1.1\r\nHost: api\r\n' + token +
            b'Content-Type: application/json\r\n'
            b'Content-Length: %d\r\n\r\n' % EIGHT_MIB))
        assert answer.startswith(b'HTTP/1.1 413 '), answer
        assert seconds < 2
        body = json.loads(answer.split(b'\r\n\r\n', 1)[1])
        assert 'max_request_body_size' in json.loads(
            body['error_message'])['faultstring']

        # Chunked: reading stops at the cap.
        chunk = b'x' * 65536
        answer, seconds = exchange(port, (
            b'POST /v1/audits HTTP/1.1\r\nHost: api\r\n' + token +
            b'Content-Type: application/json\r\n'
            b'Transfer-Encoding: chunked\r\n\r\n'),
            [b'%x\r\n%s\r\n' % (len(chunk), chunk)] * (EIGHT_MIB // 65536))
        assert answer.startswith(b'HTTP/1.1 413 '), answer
        assert b'max_request_body_size' in answer
        assert seconds < 2

        grown = worker.memory_info().rss - before
        assert grown < 4 * 1024 * 1024, grown


def test_a_path_starting_with_two_slashes_is_served(api_server):
    """What a client asks with a catalog endpoint ending in a slash."""
    import http.client
    import urllib.parse
    address = urllib.parse.urlsplit(api_server)
    conn = http.client.HTTPConnection(address.hostname, address.port,
                                      timeout=10)
    try:
        conn.request('GET', '//v1/goals', headers={
            'X-Auth-Token': services.keystone().token()})
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    assert resp.status == 200, body
    assert resp.getheader('Content-Type') == 'application/json'
    assert body == requests.get(api_server + '/v1/goals').content


# -- listen backlog -----------------------------------------------------------

def listen_backlog(port):
    """The backlog of the socket listening on ``port``, as the kernel
    holds it: `ss` shows it as the Send-Q of a LISTEN socket."""
    import subprocess
    out = subprocess.run(['ss', '-ltnH', 'sport = :%d' % port],
                         check=True, capture_output=True, text=True,
                         timeout=10).stdout.split()
    assert out and out[0] == 'LISTEN', out
    return int(out[2])


def handshakes(port, count, timeout=2.0):
    """Open ``count`` connections at once; how many the kernel completed
    (each waits in the accept queue, nobody accepting)."""
    import selectors
    import socket
    import time
    selector, pending, done = selectors.DefaultSelector(), [], 0
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(('127.0.0.1', port))
            selector.register(sock, selectors.EVENT_WRITE)
            pending.append(sock)
        deadline = time.monotonic() + timeout
        while done < count and time.monotonic() < deadline:
            for key, _ in selector.select(deadline - time.monotonic()):
                selector.unregister(key.fileobj)
                error = key.fileobj.getsockopt(socket.SOL_SOCKET,
                                               socket.SO_ERROR)
                assert error == 0, 'connect refused: %s' % error
                done += 1
        return done
    finally:
        for sock in pending:
            sock.close()
        selector.close()


def test_the_api_listens_with_the_configured_backlog(tmp_path):
    """cheroot's prepare() listens again on the socket we bound, with its
    own default backlog (5) unless told: a burst of connections beyond it
    waits for SYN retries or is refused."""
    import os
    import signal

    from tests.functional import fixtures
    from watcher_ha.conf import api as api_opts
    default = next(o.default for o in api_opts.OPTS if o.name == 'backlog')
    with open('/proc/sys/net/core/somaxconn') as capped:
        somaxconn = int(capped.read())
    assert min(default, somaxconn) >= 128
    for backlog, expected in ((None, min(default, somaxconn)), (64, 64)):
        port = fixtures.free_port()
        api = {'backlog': backlog} if backlog else {}
        config = fixtures.write_config(
            tmp_path / ('watcher-ha-%s.conf' % backlog),
            fixtures.base_config(tmp_path, port=port, api=api))
        fixtures.prepare_database(config)
        with services.api_process(config, port):
            assert listen_backlog(port) == expected
            # Nobody accepts while the API's processes are stopped: what
            # connects waits in the accept queue, as in a burst.
            launcher = fixtures.api_workers(config)[0].parent().pid
            os.killpg(launcher, signal.SIGSTOP)
            try:
                assert handshakes(port, 40) == 40
            finally:
                os.killpg(launcher, signal.SIGCONT)
