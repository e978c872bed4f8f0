"""The Prometheus endpoint of a daemon: ``[metrics] host`` and the port
the daemon is given, serving ``/metrics`` from a thread of its own, and,
for the decision engine and the applier, their ``/healthcheck``
(service/healthcheck.py, given by the command).

What it serves: the metrics this process declares (module-level counters
and histograms, prometheus_client's default registry), plus collectors
that read a state at scrape time (a data model, the database).

Several processes, one endpoint: an API with ``[api] workers`` > 1 (or
under uwsgi or gunicorn) has its requests served by forked workers, whose
counters the parent never sees. prometheus_client's multiprocess mode
covers that: with ``PROMETHEUS_MULTIPROC_DIR`` in the environment at start
(prometheus_client picks its value store when it is first imported), every
process writes its values to files there and the endpoint adds them up.
"""

import errno
import glob
import os

import prometheus_client
from oslo_log import log
from prometheus_client import multiprocess

LOG = log.getLogger(__name__)

MULTIPROC_DIR = 'PROMETHEUS_MULTIPROC_DIR'


class MetricsUnavailable(SystemExit):
    """The endpoint cannot be served as configured: the process stops at
    start, saying what to fix."""


def multiprocess_dir():
    """The multiprocess directory, or None in single-process mode."""
    return os.environ.get(MULTIPROC_DIR) or None


def registry(collectors=()):
    """What the endpoint serves: this process's metrics (or, in
    multiprocess mode, every process's), and ``collectors``."""
    served = prometheus_client.CollectorRegistry()
    if multiprocess_dir():
        multiprocess.MultiProcessCollector(served)
    else:
        # The default registry is a collector too: its metrics (and the
        # process and platform ones) are served alongside ours, with no
        # collector of ours left in it for the next endpoint (the tests
        # build several) to collide with.
        served.register(prometheus_client.REGISTRY)
    for collector in collectors:
        served.register(collector)
    return served


def wsgi_app(collectors=()):
    """The endpoint as a WSGI app, for a server of the caller's."""
    return prometheus_client.make_wsgi_app(registry(collectors))


def check_multiprocess_dir():
    """Stop the start if the multiprocess directory is named but is not
    one: prometheus_client would otherwise fail at the first value
    counted, the first database statement, metrics enabled or not."""
    path = multiprocess_dir()
    if path is not None and not os.path.isdir(path):
        raise MetricsUnavailable(
            '%s names %s, which is not a directory: create it, writable by '
            'the API, or unset it' % (MULTIPROC_DIR, path))


def clear_multiprocess_dir():
    """Remove the files a previous run left in the multiprocess directory
    (its counters would be added to this run's): by the process that
    starts the workers, before it starts them."""
    check_multiprocess_dir()
    path = multiprocess_dir()
    if path is None:
        return
    for stale in glob.glob(os.path.join(path, '*.db')):
        os.remove(stale)


def check_workers(workers):
    """Refuse several API workers without the multiprocess directory:
    each would count on its own and the endpoint show one of them."""
    if workers > 1:
        require_multiprocess_dir('with [api] workers = %d' % workers)


def require_multiprocess_dir(why):
    if multiprocess_dir() is None:
        raise MetricsUnavailable(
            '[metrics] enabled %s needs the environment variable %s '
            'naming a directory of the API\'s own (systemd: '
            'RuntimeDirectory= and Environment=)' % (why, MULTIPROC_DIR))


HEALTH_PATH = '/healthcheck'


def with_health(metrics, health):
    """One WSGI app: ``health`` at HEALTH_PATH, ``metrics`` elsewhere."""
    def app(environ, start_response):
        if environ.get('PATH_INFO') == HEALTH_PATH:
            return health(environ, start_response)
        return metrics(environ, start_response)
    return app


def serve(conf, port, collectors=(), shared=False, health=None):
    """Serve the endpoint on ``[metrics] host``:``port`` in a daemon
    thread, with the WSGI app ``health`` at HEALTH_PATH if given; returns
    the server (``shutdown()`` and ``server_close()`` stop it), or None
    when ``shared`` (a worker among several, in multiprocess mode) and
    another process serves it already."""
    try:
        server, _ = prometheus_client.start_http_server(
            port, addr=conf.metrics.host, registry=registry(collectors))
    except OSError as err:
        if shared and err.errno == errno.EADDRINUSE:
            LOG.debug('Metrics on port %d are served by another worker',
                      port)
            return None
        raise MetricsUnavailable(
            'Cannot serve metrics on %s:%s: %s (is another process on '
            'that port? set [metrics] host and the port)'
            % (conf.metrics.host, port, err))
    if health is not None:
        # prometheus_client's server (a wsgiref one) with our app: the
        # start is not over, nobody asks it anything yet.
        server.set_app(with_health(server.get_app(), health))
        LOG.info('Health check served on http://%s:%d%s',
                 conf.metrics.host, server.server_port, HEALTH_PATH)
    LOG.info('Metrics served on http://%s:%d/metrics', conf.metrics.host,
             server.server_port)
    return server
