"""Every source of the daemons' Prometheus metrics, on its own, and the
endpoint that serves them."""

import datetime
import errno
import socket
import threading
import time

import prometheus_client
import pytest
import requests
import sqlalchemy as sa
from oslo_db import exception as db_exc
from prometheus_client import parser

from tests import factories
from tests.helpers.in_process import Client
from watcher_ha.api import app
from watcher_ha.api import request_metrics
from watcher_ha.applier import manager as applier_manager
from watcher_ha.applier import metrics as applier_metrics
from watcher_ha.applier import workflow
from watcher_ha.applier.actions import base as action_base
from watcher_ha.common import context
from watcher_ha.conf import CONF
from watcher_ha.db import audit_runs
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import plan_runs
from watcher_ha.db import state_metrics
from watcher_ha.db import statement_metrics
from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import nova_events
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import metrics as model_metrics
from watcher_ha.decision_engine.planner import loader
from watcher_ha.decision_engine.planner import weight
from watcher_ha.service import metrics_server
from watcher_ha.service import ownership
from watcher_ha.service import rpc_metrics


def value(name, **labels):
    return prometheus_client.REGISTRY.get_sample_value(name, labels) or 0.0


def families(registry):
    return {family.name: family for family in registry.collect()}


# The endpoint.

def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class _Constant:
    def collect(self):
        gauge = prometheus_client.core.GaugeMetricFamily(
            'watcher_ha_test_constant', 'A constant.')
        gauge.add_metric([], 42)
        yield gauge


def test_the_endpoint_serves_the_process_metrics_and_its_collectors(conf):
    port = _free_port()
    server = metrics_server.serve(CONF, port, [_Constant()])
    try:
        text = requests.get('http://127.0.0.1:%d/metrics' % port,
                            timeout=5).text
    finally:
        server.shutdown()
        server.server_close()
    names = {f.name for f in parser.text_string_to_metric_families(text)}
    assert 'watcher_ha_test_constant' in names
    # Declared at import by the modules of this process.
    assert {'watcher_ha_db_statement_duration_seconds',
            'watcher_ha_rpc_handling_duration_seconds'} <= names


def test_a_taken_port_stops_the_daemon_saying_which(conf):
    with socket.socket() as taken:
        taken.bind(('127.0.0.1', 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit, match='Cannot serve metrics on '
                           '127.0.0.1:%d' % port):
            metrics_server.serve(CONF, port)
        # A worker among several leaves it to the one that has it.
        assert metrics_server.serve(CONF, port, shared=True) is None


def test_several_api_workers_need_the_multiprocess_directory(
        monkeypatch, tmp_path):
    monkeypatch.delenv(metrics_server.MULTIPROC_DIR, raising=False)
    metrics_server.check_workers(1)
    with pytest.raises(SystemExit, match='PROMETHEUS_MULTIPROC_DIR'):
        metrics_server.check_workers(2)
    monkeypatch.setenv(metrics_server.MULTIPROC_DIR, str(tmp_path))
    metrics_server.check_workers(2)


def test_the_files_of_a_previous_run_are_removed(monkeypatch, tmp_path):
    (tmp_path / 'counter_123.db').write_bytes(b'x')
    (tmp_path / 'keep.txt').write_text('x')
    monkeypatch.setenv(metrics_server.MULTIPROC_DIR, str(tmp_path))
    metrics_server.clear_multiprocess_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['keep.txt']
    monkeypatch.setenv(metrics_server.MULTIPROC_DIR,
                       str(tmp_path / 'missing'))
    with pytest.raises(SystemExit, match='not a directory'):
        metrics_server.clear_multiprocess_dir()


def test_bind_errors_other_than_a_taken_port_are_never_shared(monkeypatch,
                                                              conf):
    def refuse(*args, **kwargs):
        raise OSError(errno.EACCES, 'Permission denied')
    monkeypatch.setattr(prometheus_client, 'start_http_server', refuse)
    with pytest.raises(SystemExit, match='Permission denied'):
        metrics_server.serve(CONF, 80, shared=True)


# Audits and action plans by state.

def test_audits_and_plans_are_counted_by_state_every_state_listed(db):
    factories.audit(db, state='ONGOING')
    factories.audit(db, state='ONGOING')
    audit = factories.audit(db, state='SUCCEEDED')
    factories.action_plan(db, audit, state='RECOMMENDED')
    found = families(_registry(state_metrics.StateCollector()))
    audits = {s.labels['state']: s.value
              for s in found['watcher_ha_audits'].samples}
    assert audits['ONGOING'] == 2 and audits['SUCCEEDED'] == 1
    assert audits['CANCELLED'] == 0
    plans = {s.labels['state']: s.value
             for s in found['watcher_ha_action_plans'].samples}
    assert plans['RECOMMENDED'] == 1 and plans['ONGOING'] == 0


def _registry(*collectors):
    registry = prometheus_client.CollectorRegistry()
    for collector in collectors:
        registry.register(collector)
    return registry


def test_scrapes_within_the_cache_time_read_the_database_once(db):
    now = [100.0]
    collector = state_metrics.StateCollector(cache_seconds=5,
                                             clock=lambda: now[0])
    registry = _registry(collector)
    factories.audit(db, state='PENDING')
    assert registry.get_sample_value('watcher_ha_audits',
                                     {'state': 'PENDING'}) == 1
    factories.audit(db, state='PENDING')
    now[0] += 4
    assert registry.get_sample_value('watcher_ha_audits',
                                     {'state': 'PENDING'}) == 1
    now[0] += 1
    assert registry.get_sample_value('watcher_ha_audits',
                                     {'state': 'PENDING'}) == 2


def test_an_unreachable_database_leaves_the_other_metrics(monkeypatch, db):
    def unreachable(context, model):
        raise db_exc.DBConnectionError('gone')
    monkeypatch.setattr(state_metrics, 'count_by_state', unreachable)
    assert list(state_metrics.StateCollector().collect()) == []


# SQL statements.

@pytest.mark.parametrize('statement, operation', [
    ('SELECT 1', 'select'), ('  insert into x', 'insert'),
    ('UPDATE audits SET', 'update'), ('DELETE FROM x', 'delete'),
    ('SAVEPOINT sa_1', 'other'), ('', 'other')])
def test_statements_are_labelled_by_their_first_keyword(statement,
                                                        operation):
    assert statement_metrics.operation(statement) == operation


def test_every_statement_is_timed(db):
    name = 'watcher_ha_db_statement_duration_seconds_count'
    before = value(name, operation='select')
    with engine.get_engine().connect() as conn:
        conn.execute(sa.select(models.Audit.id)).all()
        conn.execute(sa.select(models.Audit.id)).all()
    assert value(name, operation='select') >= before + 2


# RPC.

class _Endpoints:
    target = None

    def fine(self, context, x):
        return x * 2

    def broken(self, context):
        raise ValueError('no')

    def _private(self):
        return 'private'


def test_rpc_handlers_are_timed_and_their_errors_counted():
    [timed] = rpc_metrics.timed([_Endpoints()])
    # Present, at zero, before any message.
    assert prometheus_client.REGISTRY.get_sample_value(
        'watcher_ha_rpc_errors_total', {'method': 'broken'}) is not None
    count = 'watcher_ha_rpc_handling_duration_seconds_count'
    before = (value(count, method='fine'), value(count, method='broken'),
              value('watcher_ha_rpc_errors_total', method='broken'))
    assert timed.fine({}, x=2) == 4
    with pytest.raises(ValueError):
        timed.broken({})
    assert (value(count, method='fine'), value(count, method='broken'),
            value('watcher_ha_rpc_errors_total', method='broken')) == (
        before[0] + 1, before[1] + 1, before[2] + 1)
    # What oslo.messaging reads of an endpoint besides its methods.
    assert timed.target is None
    assert timed._private() == 'private'
    with pytest.raises(AttributeError):
        timed.missing


# Ownership.

class _Domain:
    kind = 'metrics-test-row'

    def __init__(self):
        self.adopted = []

    def adopt(self, context, held, gone):
        return True

    def resume(self, uuid, why, previous):
        self.adopted.append(uuid)

    def held(self, context):
        return []

    def interrupt(self, uuids, why=None):
        return set(uuids)


def test_an_adoption_is_counted_with_how_long_the_row_waited(db):
    domain = _Domain()
    owner = ownership.Owner(domain, 'me', 1, threading.Event())
    kind = domain.kind
    assert prometheus_client.REGISTRY.get_sample_value(
        'watcher_ha_ownership_changes_total',
        {'kind': kind, 'change': 'lost'}) == 0
    owner._adopt(ownership.Held('row-1', 'gone-host'),
                 time.monotonic() - 12)
    assert value('watcher_ha_ownership_changes_total', kind=kind,
                 change='adopted') == 1
    assert value('watcher_ha_takeover_duration_seconds_count',
                 kind=kind) == 1
    assert 12 <= value('watcher_ha_takeover_duration_seconds_sum',
                       kind=kind) < 13
    assert value('watcher_ha_takeover_duration_seconds_bucket', kind=kind,
                 le='10.0') == 0


def test_rows_taken_over_while_out_of_the_group_are_counted_lost(
        monkeypatch, db):
    monkeypatch.setattr(ownership, 'LAPSE_WAIT', 0)
    domain = _Domain()
    domain.kind = 'metrics-test-lost'
    owner = ownership.Owner(domain, 'me', 1, threading.Event())
    owner._in_flight = {'a': [], 'b': []}
    owner._lapsed()
    assert value('watcher_ha_ownership_changes_total',
                 kind='metrics-test-lost', change='lost') == 2


# Data models and notifications.

def _model():
    model = cluster.ClusterModel('compute')
    stamp = datetime.datetime(2026, 1, 1)

    def seed(changes):
        for hostname in ('n1', 'n2'):
            changes.put_node(elements.ComputeNode(
                hostname=hostname, vcpus=8, memory_mb=16384, disk_gb=100,
                stamp=stamp))
    model.update(seed)
    return model


class _Collectors:
    def __init__(self, models):
        self.models = models

    def list(self):
        return sorted(self.models)

    def model(self, name):
        return self.models[name]


class _Manager:
    def __init__(self, collectors):
        self.collectors = collectors


def test_each_model_is_read_at_scrape_time():
    model = _model()
    registry = _registry(model_metrics.ModelCollector(
        _Manager(_Collectors({'compute': model}))))

    def sample(name):
        return registry.get_sample_value(name, {'model': 'compute'})
    assert sample('watcher_ha_model_nodes') == 2
    assert sample('watcher_ha_model_instances') == 0
    assert sample('watcher_ha_model_ready') == 0
    assert sample('watcher_ha_model_generation') == model.generation > 0
    # Never resynced, never fed: no age.
    assert sample('watcher_ha_model_seconds_since_resync') is None
    model.last_notification = time.time() - 30
    model.notifications_applied = 7
    assert 30 <= sample('watcher_ha_model_seconds_since_notification') < 31
    assert sample('watcher_ha_model_notifications_applied_total') == 7


def test_an_engine_without_models_exports_none_of_their_series():
    registry = _registry(model_metrics.ModelCollector(_Manager(None)))
    assert registry.get_sample_value('watcher_ha_model_nodes',
                                     {'model': 'compute'}) is None


def test_dispatched_notifications_are_counted_with_their_lag():
    now = elements.utcnow()
    events = [nova_events.Event('x', 'nova-compute:n1', {},
                                now - datetime.timedelta(seconds=3)),
              # No timestamp: counted, but no lag.
              nova_events.Event('x', 'nova-compute:n1', {}, elements.EPOCH)]

    def broken(event):
        raise ValueError('bad payload')
    dispatcher = dispatch.Dispatcher([dispatch.Handler(
        'broken', '.*', None, broken)])
    before = (value('watcher_ha_notifications_dispatched_total'),
              value('watcher_ha_notification_lag_seconds_count'),
              value('watcher_ha_notification_lag_seconds_sum'),
              value('watcher_ha_notification_handler_errors_total'))
    dispatcher.dispatch_many(events)
    after = (value('watcher_ha_notifications_dispatched_total'),
             value('watcher_ha_notification_lag_seconds_count'),
             value('watcher_ha_notification_lag_seconds_sum'),
             value('watcher_ha_notification_handler_errors_total'))
    assert after[0] - before[0] == 2
    assert after[1] - before[1] == 1
    assert 3 <= after[2] - before[2] < 4
    assert after[3] - before[3] == 2


# Actions.

class _Outcome(action_base.Action):
    """Ends as its parameter ``end`` says."""

    @classmethod
    def validate(cls, input_parameters):
        pass

    @classmethod
    def resources(cls, input_parameters):
        return set()

    def pre_condition(self):
        if self.input_parameters['end'] == 'skip':
            raise action_base.ActionSkipped('nothing to do')

    def execute(self):
        if self.input_parameters['end'] == 'fail':
            raise action_base.ActionError('refused')
        time.sleep(self.input_parameters.get('seconds', 0))


def test_actions_are_counted_and_timed_by_type_and_end(db):
    kind = 'metrics_test_outcome'
    applier_metrics.known([kind])
    assert prometheus_client.REGISTRY.get_sample_value(
        'watcher_ha_actions_total',
        {'action_type': kind, 'state': 'FAILED'}) == 0
    timed = 'watcher_ha_action_duration_seconds_%s'
    assert value(timed % 'count', action_type=kind) == 0
    plan, _ = factories.action_plan(
        db, factories.audit(db), state='ONGOING',
        kinds=[(kind, {'end': 'succeed', 'seconds': 0.3}),
               (kind, {'end': 'skip'}), (kind, {'end': 'fail'})])
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.id == plan['id']).values(hostname='me'))
    run = workflow.PlanRun(plan_runs.get(context.admin_context(),
                                         plan['uuid']),
                           'me', {kind: _Outcome}, threading.Event())
    assert run.execute()[0] == 'FAILED'
    assert [value('watcher_ha_actions_total', action_type=kind, state=state)
            for state in ('SUCCEEDED', 'SKIPPED', 'FAILED')] == [1, 1, 1]
    # Each timed, from its start to its end, whatever the end.
    assert value(timed % 'count', action_type=kind) == 3
    assert 0.3 <= value(timed % 'sum', action_type=kind) < 5


def test_a_plan_run_here_is_timed_by_how_it_ended(db):
    kind = 'metrics_test_plan'
    series = 'watcher_ha_action_plan_duration_seconds_%s'
    applier_metrics.known([kind])
    before = {state: (value(series % 'count', state=state),
                      value(series % 'sum', state=state))
              for state in ('SUCCEEDED', 'FAILED', 'CANCELLED')}
    plans = applier_manager.ActionPlans('me', threading.Event())
    plans.actions = {kind: _Outcome}
    for end in ('succeed', 'fail'):
        plan, _ = factories.action_plan(
            db, factories.audit(db), state='PENDING',
            kinds=[(kind, {'end': 'succeed', 'seconds': 0.3}),
                   (kind, {'end': end})])
        plans.take(plan['uuid'])
    for state in ('SUCCEEDED', 'FAILED'):
        count, total = (value(series % 'count', state=state),
                        value(series % 'sum', state=state))
        assert count == before[state][0] + 1, state
        assert 0.3 <= total - before[state][1] < 5, state
    assert value(series % 'count', state='CANCELLED') == (
        before['CANCELLED'][0])


def test_each_strategy_run_is_timed_by_strategy(db):
    from watcher_ha.decision_engine import auditor
    from watcher_ha.decision_engine import loaded_plugins
    from watcher_ha.decision_engine import strategy_metrics
    series = 'watcher_ha_strategy_duration_seconds_count'
    strategies = loaded_plugins.LoadedPlugins()
    strategy_metrics.known(strategies.strategies)
    assert value(series, strategy='dummy') >= 0
    assert prometheus_client.REGISTRY.get_sample_value(
        series, {'strategy': 'basic'}) is not None
    before = value(series, strategy='dummy')
    audit = factories.audit(db, state='PENDING')
    auditor.Auditor('engine-1', strategies, loader.Planners(
        {'weight': weight.WeightPlanner({'nop': 1, 'sleep': 1}, {})})
    ).run(audit['uuid'])
    assert audit_runs.get(context.admin_context(),
                          audit['uuid'])['state'] == 'SUCCEEDED'
    assert value(series, strategy='dummy') == before + 1


# API requests.

@pytest.fixture
def words(conf):
    return request_metrics.route_words(CONF)


@pytest.mark.parametrize('path, route', [
    ('/', '/'),
    ('/v1/audits', '/v1/audits'),
    ('/v1/audits/', '/v1/audits'),
    ('/v1/audits/8c5ae7e9-3ba4-4f4e-9d54-31b3e1ba1c9a',
     '/v1/audits/{id}'),
    ('/v1/audit_templates/my-template', '/v1/audit_templates/{id}'),
    ('/v1/audit_templates/detail', '/v1/audit_templates/detail'),
    ('/v1/action_plans/abc/start', '/v1/action_plans/{id}/start'),
    ('/v1/strategies/basic/state', '/v1/strategies/{id}/state'),
    ('/audits/abc', '/audits/{id}'),
    ('/instance-ha/v1/0123abcd/segments/s1/hosts',
     '/instance-ha/v1/{id}/segments/{id}/hosts'),
    ('/healthcheck', '/healthcheck'),
    ('/a/b/c/d/e/f/g/h/i', '/{too_deep}'),
])
def test_routes_are_templates_of_the_path(words, path, route):
    assert request_metrics.route(path, words) == route


@pytest.fixture
def metered_api(db, config):
    config.config(group='metrics', enabled=True)
    return Client(app.setup_app(CONF))


def test_api_requests_are_counted_by_route_and_status(db, metered_api):
    audit = factories.audit(db)
    labels = {'method': 'GET', 'route': '/v1/audits/{id}'}
    before = (value('watcher_ha_api_requests_total', status='200',
                    **labels),
              value('watcher_ha_api_requests_total', status='404',
                    **labels),
              value('watcher_ha_api_request_duration_seconds_count',
                    **labels))
    assert metered_api.get('/v1/audits/' + audit['uuid']).status == 200
    assert metered_api.get('/v1/audits/nope').status == 404
    assert (value('watcher_ha_api_requests_total', status='200', **labels),
            value('watcher_ha_api_requests_total', status='404', **labels),
            value('watcher_ha_api_request_duration_seconds_count',
                  **labels)) == (before[0] + 1, before[1] + 1, before[2] + 2)


# The health check.

@pytest.fixture
def keystone_api(db, config):
    config.config(auth_strategy='keystone')
    return Client(app.setup_app(CONF))


def test_the_health_check_needs_no_token(keystone_api):
    resp = keystone_api.get('/healthcheck')
    assert resp.status == 200, resp
    assert keystone_api.request('HEAD', '/healthcheck').status == 204


def test_the_health_check_fails_while_the_database_is_unreachable(
        monkeypatch, api):
    assert api.get('/healthcheck').status == 200

    class Unreachable:
        def using(self, context):
            raise db_exc.DBConnectionError('connection refused')
    unreachable = Unreachable()
    unreachable.connection = unreachable
    monkeypatch.setattr(engine, 'reader', unreachable)
    resp = api.get('/healthcheck')
    assert resp.status == 503
    assert b'database unreachable' in resp.body


def test_under_a_wsgi_server_the_multiprocess_directory_is_required(
        monkeypatch, tmp_path, config):
    from watcher_ha.api import wsgi
    port = _free_port()
    config.config(api_port=port, group='metrics')
    monkeypatch.delenv(metrics_server.MULTIPROC_DIR, raising=False)
    with pytest.raises(SystemExit, match='under a WSGI server'):
        wsgi._serve_metrics(CONF)
    monkeypatch.setenv(metrics_server.MULTIPROC_DIR, str(tmp_path))
    served = []
    monkeypatch.setattr(metrics_server, 'serve',
                        lambda *args, **kwargs: served.append(kwargs))
    wsgi._serve_metrics(CONF)
    # Another worker may have bound it already.
    assert served == [{'shared': True}]


def test_a_multiprocess_directory_that_is_not_one_stops_the_start(
        tmp_path, monkeypatch):
    """Named but missing, it would make the first database statement
    fail, metrics enabled or not: the start stops, saying what to do."""
    from watcher_ha.service import metrics_server
    monkeypatch.setenv(metrics_server.MULTIPROC_DIR, str(tmp_path / 'gone'))
    with pytest.raises(metrics_server.MetricsUnavailable,
                       match='which is not a directory'):
        metrics_server.check_multiprocess_dir()
    monkeypatch.setenv(metrics_server.MULTIPROC_DIR, str(tmp_path))
    metrics_server.check_multiprocess_dir()
