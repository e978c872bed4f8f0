"""Fixtures of the datasource tests: a private configuration and a tiny
HTTP server standing in for Prometheus, Aetos or Gnocchi."""

import http.server
import json
import threading
import urllib.parse

import pytest

from tests.helpers.datasource_conf import datasource_conf


@pytest.fixture
def ds_conf(tmp_path):
    # The catalog services reached without Keystone.
    return datasource_conf(tmp_path, retries=3, nova={'auth_type': 'none'})


class FakeServer:
    """Answers each request with ``handler(method, path, query, body)``
    -> (status, JSON-able body); keeps what it was sent in
    ``requests`` as (method, path, query, body, headers)."""

    def __init__(self, handler):
        self.handler = handler
        self.requests = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                length = int(self.headers.get('Content-Length') or 0)
                raw = self.rfile.read(length).decode() if length else ''
                if self.headers.get('Content-Type', '').startswith(
                        'application/json'):
                    body = json.loads(raw)
                else:
                    body = urllib.parse.parse_qs(raw)
                fake.requests.append((self.command, url.path, query, body,
                                      dict(self.headers)))
                status, answer = fake.handler(self.command, url.path,
                                              query, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.port = self.server.server_address[1]
        self.url = 'http://127.0.0.1:%d' % self.port
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_server():
    """fake_server(handler) -> a running FakeServer, stopped after."""
    started = []

    def start(handler):
        server = FakeServer(handler)
        started.append(server)
        return server
    yield start
    for server in started:
        server.close()
