"""etc/grafana/watcher-ha.json: a Grafana 10+ dashboard whose every query
reads only metrics the daemons export."""

import re

import prometheus_client
import pytest

# Every module that declares metrics, so that the registry holds them.
from tests.helpers.grafana import load
from tests.helpers.grafana import queries
from watcher_ha.api import request_metrics  # noqa: F401
from watcher_ha.applier import metrics as applier_metrics  # noqa: F401
from watcher_ha.db import state_metrics
from watcher_ha.db import statement_metrics  # noqa: F401
from watcher_ha.decision_engine import strategy_metrics  # noqa: F401
from watcher_ha.decision_engine.model import metrics as model_metrics
from watcher_ha.service import ownership  # noqa: F401
from watcher_ha.service import rpc_metrics  # noqa: F401

METRIC = re.compile(r'\bwatcher_ha_[a-z0-9_]+')
SUFFIXES = {'counter': ['_total'], 'gauge': [''],
            'histogram': ['_bucket', '_count', '_sum']}


def exported_names():
    """Every series name the daemons export, with or without samples."""
    families = list(prometheus_client.REGISTRY.collect())
    families += state_metrics.StateCollector().describe()
    families += model_metrics.ModelCollector(None).describe()
    return {family.name + suffix for family in families
            if family.name.startswith('watcher_ha_')
            for suffix in SUFFIXES[family.type]}


def test_it_is_a_grafana_10_dashboard():
    dashboard = load()
    assert dashboard['schemaVersion'] >= 38
    assert dashboard['uid'] and dashboard['title']
    [variable] = dashboard['templating']['list']
    assert variable == dict(variable, name='datasource', type='datasource',
                            query='prometheus')
    ids = [panel['id'] for panel in dashboard['panels']]
    assert len(ids) == len(set(ids))
    for panel in dashboard['panels']:
        assert set(panel['gridPos']) == {'h', 'w', 'x', 'y'}
        if panel['type'] == 'row':
            continue
        assert panel['type'] == 'timeseries'
        assert panel['datasource'] == {'type': 'prometheus',
                                       'uid': '${datasource}'}
        refs = [target['refId'] for target in panel['targets']]
        assert len(refs) == len(set(refs)) and refs


@pytest.mark.parametrize('expr', queries())
def test_every_query_reads_exported_metrics_only(expr):
    used = set(METRIC.findall(expr))
    assert used, expr
    assert used <= exported_names(), used - exported_names()


def test_every_exported_metric_is_on_the_dashboard():
    shown = {name for expr in queries() for name in METRIC.findall(expr)}
    families = {re.sub('_(total|bucket|count|sum)$', '', name)
                for name in exported_names()}
    assert {family for family in families
            if not any(name.startswith(family) for name in shown)} == set()
