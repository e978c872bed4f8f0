"""``/healthcheck``: oslo.middleware's health check, without a token, for
load balancers and service managers; and its ``watcher_ha_database``
backend (entry point in setup.cfg), which fails while the database cannot
be reached.

The backends are ``[healthcheck] backends`` (watcher_ha/conf/
healthcheck.py): by default the database one. Its check is one
``SELECT 1`` per probe, cheaper than the HTTP request that asks for it.
"""

import sqlalchemy as sa
from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import pluginbase

from watcher_ha.common import context as watcher_context
from watcher_ha.db import engine

PATH = '/healthcheck'


class DatabaseHealthcheck(pluginbase.HealthcheckBaseExtension):
    """Available while a ``SELECT 1`` on the database succeeds."""

    def healthcheck(self, server_port):
        try:
            with engine.reader.connection.using(
                    watcher_context.admin_context()) as conn:
                conn.execute(sa.text('SELECT 1'))
        except engine.DB_ERRORS as err:
            return pluginbase.HealthcheckResult(
                available=False, reason='database unreachable',
                details=str(err))
        return pluginbase.HealthcheckResult(available=True,
                                            reason='database reachable')


def application(conf):
    """The health check as a WSGI app answering whatever it is sent."""
    return healthcheck.Healthcheck(None, conf)
