"""A request the server answers 408 (Request Timeout: it did not get the
whole request in time, e.g. the applier was paused while sending it) is
sent again through the fence, with a real keystoneauth session on a real
HTTP server. Before, the action failed with "HTTP 408" although the cloud
had done nothing."""

import http.server
import threading

import pytest
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session

from watcher_ha.applier import fencing
from watcher_ha.cloud import clients


class Cloud(http.server.BaseHTTPRequestHandler):
    """Answers 408 to the first ``timeouts`` requests, then 202."""
    timeouts = 0
    seen = []

    def _answer(self):
        length = int(self.headers.get('Content-Length') or 0)
        self.rfile.read(length)
        type(self).seen.append((self.command, self.path))
        if len(type(self).seen) <= type(self).timeouts:
            self.send_response(408)
        else:
            self.send_response(202)
        self.send_header('Content-Length', '0')
        self.end_headers()

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def cloud():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Cloud)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Cloud.seen = []
    yield Cloud, 'http://127.0.0.1:%d' % server.server_address[1]
    server.shutdown()
    server.server_close()


def fenced(fence):
    return clients.check_writes(ks_session.Session(), fence)


@pytest.mark.parametrize('raise_exc', [True, False])
def test_a_408_is_sent_again_through_the_fence(cloud, raise_exc):
    handler, url = cloud
    handler.timeouts = 2
    fences = []
    response = fenced(lambda: fences.append(1)).request(
        url + '/servers/x', 'DELETE', authenticated=None,
        raise_exc=raise_exc)
    assert response.status_code == 202
    assert handler.seen == [('DELETE', '/servers/x')] * 3
    # Each attempt passed the fence.
    assert len(fences) == 3


def test_a_408_after_a_take_over_sends_nothing_more(cloud):
    handler, url = cloud
    handler.timeouts = 1
    passes = []

    def fence():
        passes.append(1)
        if len(passes) > 1:
            raise fencing.Fenced('the plan was taken over')
    with pytest.raises(fencing.Fenced):
        fenced(fence).request(url + '/servers/x', 'DELETE',
                              authenticated=None)
    assert handler.seen == [('DELETE', '/servers/x')]


def test_a_server_that_keeps_answering_408_gets_its_answer(cloud):
    handler, url = cloud
    handler.timeouts = 99
    with pytest.raises(ks_exc.RequestTimeout):
        fenced(lambda: None).request(url + '/servers/x', 'POST',
                                     authenticated=None)
    assert len(handler.seen) == clients.REQUEST_TIMEOUT_RETRIES + 1
    response = fenced(lambda: None).request(
        url + '/servers/x', 'GET', authenticated=None, raise_exc=False)
    assert response.status_code == 408
