"""The watcher-ha-api command serves the API from real processes."""

import requests

from tests.functional import identity


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
    with fixtures.api_process(config, port) as url:
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
    with fixtures.api_process(config, port) as url:
        [worker] = fixtures.api_workers(config)
        for _ in range(20):     # settle the worker's memory
            requests.post(url + '/v1/audit_templates', data=b'{}',
                          headers={'Content-Type': 'application/json'})
        before = worker.memory_info().rss
        token = b'X-Auth-Token: %s\r\n' % identity.keystone().token(
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
            'X-Auth-Token': identity.keystone().token()})
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    assert resp.status == 200, body
    assert resp.getheader('Content-Type') == 'application/json'
    assert body == requests.get(api_server + '/v1/goals').content
