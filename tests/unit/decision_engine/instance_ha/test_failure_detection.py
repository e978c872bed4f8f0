"""Host failures found in Nova's view: which hosts a decision engine
reports as failed, when, and which not (time is injected: no sleeps)."""

import dataclasses
import datetime
import threading
import types

import pytest

from watcher_ha.common import context
from watcher_ha.common import exception as common_exception
from watcher_ha.conf import CONF
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.db import query
from watcher_ha.decision_engine import manager
from watcher_ha.decision_engine.instance_ha import failure_detection
from watcher_ha.decision_engine.instance_ha import recoveries
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state as model_state

T0 = datetime.datetime(2026, 11, 24, 10, 0, 0)
DELAY = 300


@pytest.fixture
def options(config):
    """[instance_ha] overrides, undone after the test."""
    def override(**values):
        config.config(group='instance_ha', **values)
    override(nova_detection_delay=DELAY,
             nova_detection_max_down_fraction=0.5,
             duplicate_notification_detection_interval=180)
    return override


class Clock:
    def __init__(self):
        self.now = T0

    def __call__(self):
        return self.now

    def at(self, seconds):
        self.now = T0 + datetime.timedelta(seconds=seconds)


def compute_model(*down, up=()):
    """A ready compute model with nodes ``down`` and ``up``."""
    model = cluster.ClusterModel()
    changes = model_state.ClusterState().changes()
    for name in down:
        changes.put_node(elements.ComputeNode(hostname=name, uuid=name,
                                              state='down'))
    for name in up:
        changes.put_node(elements.ComputeNode(hostname=name, uuid=name))
    model.begin_resync(T0)
    model.finish_resync(changes.state())
    return model


def set_state(model, name, state):
    model.update(lambda changes: changes.put_node(dataclasses.replace(
        changes.node(name), state=state)))


class Engine:
    """A detector, what it kicked, and its clock."""

    def __init__(self, model, read_services=None):
        self.clock = Clock()
        self.kicked = []
        self.detector = failure_detection.Detector(
            lambda: model, self.kicked.append, read_services, self.clock)

    def look_at(self, seconds):
        self.clock.at(seconds)
        self.detector.look()


def segment(*hosts, name='rack-1', enabled=True):
    ctx = context.admin_context()
    made = failover_segments.create_segment(ctx, {
        'name': name, 'service_type': 'COMPUTE', 'enabled': enabled,
        'recovery_method': 'auto'})
    for host in hosts:
        failover_segments.create_host(ctx, made['uuid'], {
            'name': host, 'type': 'COMPUTE', 'control_attributes': ''})
    return made


def reports(host=None):
    rows = host_notifications.list_notifications(
        context.admin_context(), query.Paging(), {})
    hosts = {h['uuid']: h['name']
             for s in failover_segments.list_segments(
                 context.admin_context(), query.Paging(), {})
             for h in failover_segments.list_hosts(
                 context.admin_context(), s['uuid'], query.Paging(), {})}
    return [dict(row, host=hosts.get(row['source_host_uuid']))
            for row in rows
            if host is None or hosts.get(row['source_host_uuid']) == host]


def monitor_report(host, generated, host_status='NORMAL'):
    return host_notifications.create_notification(
        context.admin_context(),
        {'type': 'COMPUTE_HOST', 'hostname': host,
         'generated_time': generated,
         'payload': {'event': 'STOPPED', 'host_status': host_status,
                     'cluster_status': 'OFFLINE'}}, 180)


def test_reported_once_down_for_the_delay_as_a_monitor_would(db, options):
    segment('c1', 'c2')
    engine = Engine(compute_model('c1', up=['c2']))
    engine.look_at(0)
    engine.look_at(DELAY - 1)
    assert reports() == []
    engine.look_at(DELAY)
    [row] = reports()
    assert row['host'] == 'c1'
    assert row['type'] == 'COMPUTE_HOST'
    assert row['payload'] == {'event': 'STOPPED', 'host_status': 'UNKNOWN',
                              'cluster_status': 'OFFLINE'}
    assert row['generated_time'] == T0 + datetime.timedelta(seconds=DELAY)
    assert row['state'] == 'new'
    # Its recovery kicked, as the API casts after its commit.
    assert engine.kicked == [row['uuid']]


def test_the_delay_counts_from_the_first_look_that_saw_it_down(db, options):
    segment('c1', 'c2')
    model = compute_model(up=['c1', 'c2'])
    engine = Engine(model)
    engine.look_at(0)
    set_state(model, 'c1', 'down')
    engine.look_at(100)
    engine.look_at(DELAY + 99)
    assert reports() == []
    engine.look_at(DELAY + 100)
    assert len(reports('c1')) == 1


def test_a_flapping_host_is_not_reported(db, options):
    segment('c1', 'c2', 'c3')
    model = compute_model('c1', up=['c2', 'c3'])
    engine = Engine(model)
    # Down for most of each delay, but seen up once in every one.
    for start in range(0, 5 * DELAY, DELAY - 50):
        engine.look_at(start)
        engine.look_at(start + DELAY - 60)
        set_state(model, 'c1', 'up')
        engine.look_at(start + DELAY - 55)
        set_state(model, 'c1', 'down')
    assert reports() == []
    assert engine.kicked == []
    # Down for good: the clock runs from the first look after its last
    # return.
    engine.look_at(5 * DELAY)
    engine.look_at(6 * DELAY - 1)
    assert reports() == []
    engine.look_at(6 * DELAY)
    assert len(reports('c1')) == 1


@pytest.mark.parametrize('why', ['maintenance', 'segment disabled',
                                 'no segment'])
def test_hosts_nobody_would_recover_are_not_reported(db, options, why):
    made = segment('c1', 'c2', 'c3', enabled=why != 'segment disabled')
    model = compute_model('c1', 'nowhere', up=['c2', 'c3'])
    if why == 'maintenance':
        [host] = [h for h in failover_segments.list_hosts(
            context.admin_context(), made['uuid'], query.Paging(), {})
            if h['name'] == 'c1']
        failover_segments.update_host(context.admin_context(),
                                      made['uuid'], host['uuid'],
                                      {'on_maintenance': True})
    if why == 'no segment':
        set_state(model, 'c1', 'up')
    engine = Engine(model)
    engine.look_at(0)
    engine.look_at(10 * DELAY)
    assert reports() == []
    assert engine.kicked == []


@pytest.mark.parametrize('status', ['new', 'running', 'error'])
def test_a_host_whose_failure_is_in_recovery_is_not_reported(db, options,
                                                             status):
    segment('c1', 'c2')
    # A monitor's report, long before: being recovered.
    row = monitor_report('c1', T0 - datetime.timedelta(hours=1))
    if status != 'new':
        with db.begin() as conn:
            conn.execute(host_notifications.Notification.__table__.update()
                         .values(status=status))
    engine = Engine(compute_model('c1', up=['c2']))
    engine.look_at(0)
    engine.look_at(DELAY)
    assert [r['uuid'] for r in reports()] == [row['uuid']]
    assert engine.kicked == []


@pytest.mark.parametrize('status', ['finished', 'ignored', 'failed'])
def test_a_failure_reported_since_it_was_seen_down_is_not_reported_again(
        db, options, status):
    segment('c1', 'c2')
    engine = Engine(compute_model('c1', up=['c2']))
    engine.look_at(0)
    # A monitor reported it (or another engine did) and its recovery
    # ended.
    monitor_report('c1', T0 + datetime.timedelta(seconds=5))
    with db.begin() as conn:
        conn.execute(host_notifications.Notification.__table__.update()
                     .values(status=status))
    engine.look_at(DELAY)
    engine.look_at(3 * DELAY)
    assert len(reports()) == 1
    assert engine.kicked == []


def test_an_earlier_failure_ended_does_not_hide_this_one(db, options):
    segment('c1', 'c2')
    monitor_report('c1', T0 - datetime.timedelta(days=1))
    with db.begin() as conn:
        conn.execute(host_notifications.Notification.__table__.update()
                     .values(status='finished'))
    engine = Engine(compute_model('c1', up=['c2']))
    engine.look_at(0)
    engine.look_at(DELAY)
    assert len(reports('c1')) == 2
    assert len(engine.kicked) == 1


def test_one_report_per_failure_then_again_after_it_came_back(db, options):
    segment('c1', 'c2')
    model = compute_model('c1', up=['c2'])
    engine = Engine(model)
    engine.look_at(0)
    engine.look_at(DELAY)
    # Ignored at once (host_status UNKNOWN): still no second report, well
    # past the duplicate window.
    with db.begin() as conn:
        conn.execute(host_notifications.Notification.__table__.update()
                     .values(status='ignored'))
    for seconds in range(DELAY, 20 * DELAY, DELAY):
        engine.look_at(seconds)
    assert len(reports()) == 1
    set_state(model, 'c1', 'up')
    engine.look_at(20 * DELAY)
    set_state(model, 'c1', 'down')
    engine.look_at(21 * DELAY)
    engine.look_at(22 * DELAY)
    assert len(reports()) == 2
    assert len(engine.kicked) == 2


def test_a_duplicate_means_another_engine_reported_it(db, options,
                                                     monkeypatch):
    segment('c1', 'c2')
    model = compute_model('c1', up=['c2'])
    first, second = Engine(model), Engine(model)
    first.look_at(0)
    second.look_at(0)
    first.look_at(DELAY)
    # The second engine's check of earlier reports finds nothing (as when
    # both look at once): the duplicate rule refuses its report.
    monkeypatch.setattr(failure_detection.watched_hosts, 'reports',
                        lambda ctx, uuids: {})
    second.look_at(DELAY + 30)
    assert len(reports()) == 1
    assert second.kicked == []
    assert second.detector.reported == {'c1'}


def test_an_engine_that_saw_the_failure_late_finds_it_reported(db, options):
    """Its view lagged (its read of Nova failed, say): the others'
    report, its recovery over, is of the failure it sees."""
    segment('c1', 'c2')
    model = compute_model('c1', up=['c2'])
    first, late = Engine(model), Engine(model)
    first.look_at(0)
    first.look_at(DELAY)
    with db.begin() as conn:
        conn.execute(host_notifications.Notification.__table__.update()
                     .values(status='ignored'))
    # Well past the duplicate window of the first report.
    late.look_at(DELAY + 100)
    late.look_at(2 * DELAY + 100)
    assert len(reports()) == 1
    assert late.kicked == []


def test_a_failure_reported_is_not_looked_up_again(db, options,
                                                  monkeypatch):
    segment('c1', 'c2')
    engine = Engine(compute_model('c1', up=['c2']))
    engine.look_at(0)
    engine.look_at(DELAY)
    asked = []
    monkeypatch.setattr(failure_detection.watched_hosts, 'reports',
                        lambda ctx, uuids: asked.append(uuids) or {})
    for seconds in range(DELAY, 10 * DELAY, 10):
        engine.look_at(seconds)
    assert asked == []
    assert len(reports()) == 1


def test_nothing_is_reported_while_most_hosts_are_down(db, options):
    segment('c1', 'c2', 'c3', 'c4')
    model = compute_model('c1', 'c2', 'c3', up=['c4'])
    engine = Engine(model)
    engine.look_at(0)
    engine.look_at(DELAY)
    engine.look_at(2 * DELAY)
    assert reports() == []
    # Nova's conductor is back: two come up, the third stayed down all
    # along and is reported at once.
    set_state(model, 'c1', 'up')
    set_state(model, 'c2', 'up')
    engine.look_at(2 * DELAY + 10)
    assert [r['host'] for r in reports()] == ['c3']
    options(nova_detection_max_down_fraction=1)
    set_state(model, 'c1', 'down')
    set_state(model, 'c2', 'down')
    engine.look_at(3 * DELAY)
    engine.look_at(4 * DELAY)
    assert sorted(r['host'] for r in reports()) == ['c1', 'c2', 'c3']


def test_one_host_down_is_reported_however_few_are_watched(db, options):
    segment('c1')
    engine = Engine(compute_model('c1'))
    engine.look_at(0)
    engine.look_at(DELAY)
    assert len(reports('c1')) == 1


def test_a_delay_of_zero_turns_detection_off(db, options):
    options(nova_detection_delay=0)
    segment('c1', 'c2')
    engine = Engine(compute_model('c1', up=['c2']))
    engine.look_at(0)
    engine.look_at(100 * DELAY)
    assert reports() == []
    assert engine.detector.down_since == {}


def test_no_model_or_a_model_not_synced_yet_reports_nothing(db, options):
    segment('c1', 'c2')

    def no_model():
        raise common_exception.NotFound()
    detector = failure_detection.Detector(no_model, None)
    detector.look()
    # Notifications fed it before its first full sync: it may lack most
    # of the cloud.
    model = cluster.ClusterModel()
    model.update(lambda changes: changes.put_node(elements.ComputeNode(
        hostname='c1', state='down')))
    detector = failure_detection.Detector(lambda: model, None)
    detector.look()
    assert detector.down_since == {}


def service(host, state='up', status='enabled', forced_down=False,
            disabled_reason=None):
    return types.SimpleNamespace(host=host, state=state, status=status,
                                 forced_down=forced_down,
                                 disabled_reason=disabled_reason)


def test_each_look_reads_the_services_from_nova(db, options):
    """Nova sends no notification when a service stops reporting: the
    look reads them, and the model learns it."""
    segment('c1', 'c2')
    model = compute_model(up=['c1', 'c2'])
    nova = [service('c1', state='down'), service('c2'),
            service('unknown-to-the-model', state='down')]
    engine = Engine(model, read_services=lambda: nova)
    engine.look_at(0)
    node = model.snapshot().node('c1')
    assert (node.state, node.stamp) == ('down', T0)
    assert model.snapshot().node('unknown-to-the-model') is None
    engine.look_at(DELAY)
    assert [r['host'] for r in reports()] == ['c1']
    # Forced down counts as down; disabled alone does not.
    nova[:] = [service('c1', state='up', forced_down=True),
               service('c2', status='disabled', disabled_reason='spare')]
    engine.look_at(DELAY + 10)
    c1, c2 = model.snapshot().node('c1'), model.snapshot().node('c2')
    assert c1.state == 'down'
    assert (c2.state, c2.status, c2.disabled_reason) == (
        'up', 'disabled', 'spare')


def test_a_later_event_wins_over_an_older_read(db, options):
    model = compute_model(up=['c1'])
    model.update(lambda changes: changes.put_node(dataclasses.replace(
        changes.node('c1'), stamp=T0 + datetime.timedelta(seconds=5))))
    failure_detection.refresh_services(model, [service('c1', 'down')], T0)
    assert model.snapshot().node('c1').state == 'up'


def test_nova_unreachable_leaves_the_model_to_tell(db, options):
    segment('c1', 'c2')

    def unreachable():
        raise ConnectionError('nova is down')
    engine = Engine(compute_model('c1', up=['c2']), unreachable)
    engine.look_at(0)
    engine.look_at(DELAY)
    assert [r['host'] for r in reports()] == ['c1']


def test_the_report_is_ignored_today_for_want_of_power_fencing(db, options):
    segment('c1', 'c2')
    engine = Engine(compute_model('c1', up=['c2']))
    engine.look_at(0)
    engine.look_at(DELAY)
    [uuid] = engine.kicked
    recoveries.Recoveries('engine-1', threading.Event(), None).take(uuid)
    [row] = reports()
    assert row['state'] == 'ignored'
    assert 'host_status UNKNOWN' in row['message']


def test_every_decision_engine_looks(conf, options):
    options(nova_detection_interval=7)
    engine = manager.DecisionEngineManager('engine-1')
    [task] = [t for t in engine.periodic()
              if t.name == 'detect_host_failures']
    assert task.func == engine.detector.look
    assert task.interval() == 7
    CONF.clear_override('nova_detection_interval', group='instance_ha')
