"""Serve a real Keystone (its own WSGI application) under /identity on a
loopback port, as devstack lays it out; run by the python of the
virtualenv Keystone is installed in (tests/functional/real_keystone.py).

    python real_keystone_server.py CONFIG_DIR PORT
"""

import os
import socketserver
import sys
from wsgiref import simple_server


class Server(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


class Quiet(simple_server.WSGIRequestHandler):

    def log_message(self, *args):
        pass


def main(config_dir, port):
    os.environ['OS_KEYSTONE_CONFIG_DIR'] = config_dir
    # Keystone parses the command line when it loads its configuration.
    sys.argv = sys.argv[:1]
    from keystone.server import wsgi
    keystone = wsgi.initialize_public_application()

    def mounted(environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path.startswith('/identity'):
            environ['SCRIPT_NAME'] = '/identity'
            environ['PATH_INFO'] = path[len('/identity'):]
        return keystone(environ, start_response)

    simple_server.make_server('127.0.0.1', int(port), mounted,
                              server_class=Server,
                              handler_class=Quiet).serve_forever()


if __name__ == '__main__':
    main(*sys.argv[1:])
