"""Decision engines that see a host down in Nova at the same moment
report its failure once, on every supported database: the segment's
lock and the duplicate rule serialise them, as they do a monitor's
retries."""

import datetime

from tests.helpers.racing import race
from watcher_ha.common import context
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.db import query
from watcher_ha.decision_engine.instance_ha import failure_detection
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state as model_state

T0 = datetime.datetime(2026, 11, 24, 10, 0, 0)
DELAY = 300
ROUNDS = 5


def _down_model(host):
    model = cluster.ClusterModel()
    changes = model_state.ClusterState().changes()
    changes.put_node(elements.ComputeNode(hostname=host, uuid=host,
                                          state='down'))
    changes.put_node(elements.ComputeNode(hostname='healthy',
                                          uuid='healthy'))
    model.begin_resync(T0)
    model.finish_resync(changes.state())
    return model


def _engines(host, count):
    """``count`` engines, each with its own model and clock (a few
    milliseconds apart, as real clocks are), that have timed ``host``
    down for the whole delay but one second."""
    engines = []
    for index in range(count):
        now = [T0 + datetime.timedelta(milliseconds=7 * index)]
        kicked = []
        detector = failure_detection.Detector(
            lambda model=_down_model(host): model, kicked.append,
            clock=lambda now=now: now[0])
        detector.look()
        now[0] += datetime.timedelta(seconds=DELAY)
        engines.append((detector, kicked))
    return engines


def test_engines_racing_report_a_failure_once(migrated_engine, config):
    config.config(nova_detection_delay=DELAY, group='instance_ha')
    ctx = context.admin_context()
    segment = failover_segments.create_segment(ctx, {
        'name': 'rack', 'service_type': 'COMPUTE',
        'recovery_method': 'auto'})
    failover_segments.create_host(ctx, segment['uuid'], {
        'name': 'healthy', 'type': 'COMPUTE',
        'control_attributes': ''})
    for round_, racers in enumerate([2] * ROUNDS + [8] * ROUNDS):
        host = 'failed-%d' % round_
        failover_segments.create_host(ctx, segment['uuid'], {
            'name': host, 'type': 'COMPUTE', 'control_attributes': ''})
        engines = _engines(host, racers)
        looks = iter(engines)
        outcomes = race(lambda: next(looks)[0].look(), racers)
        assert outcomes == [None] * racers, outcomes
        rows = [row for row in host_notifications.list_notifications(
            ctx, query.Paging(), {}) if row['state'] == 'new']
        assert len(rows) == 1, (round_, rows)
        assert [uuid for _detector, kicked in engines
                for uuid in kicked] == [rows[0]['uuid']]
        # Every engine counts the failure as reported: none reports
        # it again, however long it stays down.
        assert all(detector.reported == {host}
                   for detector, _kicked in engines)
        # The next round's host fails once this one is recovered.
        with migrated_engine.begin() as conn:
            conn.execute(host_notifications.Notification.__table__
                         .update().values(status='finished'))
