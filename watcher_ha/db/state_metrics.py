"""Audits and action plans by state, read from the database when
Prometheus scrapes (one GROUP BY per table), for the API's endpoint.

The numbers are the whole deployment's, the same whichever API answers:
only the API (and watcher-ha-all-in-one) exports them, and dashboards
take ``max by (state)`` over the controllers rather than a sum. Scrapes
closer together than CACHE_SECONDS (several Prometheus servers, a
dashboard's refresh) reuse the last read.
"""

import threading
import time

import sqlalchemy as sa
from oslo_log import log
from prometheus_client import core

from watcher_ha.common import context as watcher_context
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import AuditState
from watcher_ha.db import engine
from watcher_ha.db import models

LOG = log.getLogger(__name__)

CACHE_SECONDS = 5.0

# (metric name, help, model, every state it may be in)
TABLES = (
    ('watcher_ha_audits', 'Audits in each state (the whole deployment).',
     models.Audit, AuditState),
    ('watcher_ha_action_plans',
     'Action plans in each state (the whole deployment).',
     models.ActionPlan, ActionPlanState),
)


def _states(states):
    return sorted(value for name, value in vars(states).items()
                  if name.isupper() and isinstance(value, str))


def count_by_state(context, model):
    """{state: rows} of ``model``'s table."""
    with engine.reader.connection.using(context) as conn:
        return dict(conn.execute(
            sa.select(model.state, sa.func.count())
            .group_by(model.state)).all())


class StateCollector:
    """A prometheus_client collector of TABLES' rows by state."""

    def __init__(self, cache_seconds=CACHE_SECONDS, clock=time.monotonic):
        self._cache_seconds = cache_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._read_at = None
        self._counts = None

    def _read(self):
        with self._lock:
            now = self._clock()
            if (self._read_at is None
                    or now - self._read_at >= self._cache_seconds):
                context = watcher_context.admin_context()
                try:
                    self._counts = [count_by_state(context, model)
                                    for _, _, model, _ in TABLES]
                except engine.DB_ERRORS as err:
                    # The scrape still gets the process's other metrics.
                    LOG.warning('Counting audits and action plans by state '
                                'for the metrics failed: %s', err)
                    self._counts = None
                self._read_at = now
            return self._counts

    def describe(self):
        return [core.GaugeMetricFamily(name, text, labels=['state'])
                for name, text, _, _ in TABLES]

    def collect(self):
        counts = self._read()
        if counts is None:
            return
        for (name, text, _, states), found in zip(TABLES, counts, strict=True):
            family = core.GaugeMetricFamily(name, text, labels=['state'])
            for state in sorted(set(_states(states)) | set(found)):
                family.add_metric([state], found.get(state, 0))
            yield family
