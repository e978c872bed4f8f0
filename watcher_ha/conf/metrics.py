"""[metrics] options: the Prometheus endpoint every daemon can serve.

Each daemon serves its own endpoint on a port of its own, so that the
daemons of one controller, which read the same configuration file, never
ask for the same port: the API (and watcher-ha-all-in-one, which runs the
API) on ``api_port``, the decision engine on ``decision_engine_port``,
the applier on ``applier_port``. The API's metrics are on their own port
rather than under the API's URL so that they stay off the public endpoint
and out of keystonemiddleware's way (doc/source/metrics.rst).
"""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('metrics', title='Prometheus metrics of the daemons')

OPTS = [
    cfg.BoolOpt(
        'enabled', default=False,
        help=prose.paragraph("""Serve Prometheus metrics over HTTP (path
            /metrics) from every daemon, each on its own port (api_port,
            decision_engine_port, applier_port); the decision engine and the
            applier serve their health check there too (path
            /healthcheck).""")),
    cfg.HostAddressOpt(
        'host', default='127.0.0.1',
        help=prose.paragraph("""Address the metrics endpoints listen on. Set it
            to the controller's management address for a Prometheus server on
            another host: the endpoints have no authentication.""")),
    cfg.PortOpt(
        'api_port', default=9323,
        help=prose.paragraph("""Port of the metrics endpoint of watcher-ha-api
            (and of watcher-ha-all-in-one). With [api] workers > 1, or under
            uwsgi or gunicorn, the environment variable
            PROMETHEUS_MULTIPROC_DIR must name a directory of the API's own:
            each worker process writes its metrics there, and the endpoint adds
            them up.""")),
    cfg.PortOpt(
        'decision_engine_port', default=9324,
        help='Port of the metrics endpoint of watcher-ha-decision-engine.'),
    cfg.PortOpt(
        'applier_port', default=9325,
        help='Port of the metrics endpoint of watcher-ha-applier.'),
]
