"""A host failure no monitor reports, found by a decision engine in
Nova's view (the simulator's, through novaclient), and reported as a
monitor would; recorded, and ignored for want of power fencing."""

import datetime
import threading

from tests.functional import cloud
from tests.functional import services
import requests

from watcher_ha.common import context
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.db import query
from watcher_ha.decision_engine import manager
from watcher_ha.decision_engine.instance_ha import failure_detection
from watcher_ha.decision_engine.instance_ha import recoveries
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model.collector import manager as \
    collector_manager

FAILED = 'compute-0001'


def test_a_host_silent_in_nova_is_reported(tmp_path, db, nova_conf, config):
    config.config(nova_detection_delay=60, group='instance_ha')
    with services.simulator(tmp_path, cloud.SMALL) as url:
        nova_conf(url)
        engine = manager.DecisionEngineManager('engine-1')
        engine.collectors = collector_manager.CollectorManager(
            ['compute'])
        engine.collectors.resync('compute')
        ctx = context.admin_context()
        segment = failover_segments.create_segment(ctx, {
            'name': 'rack', 'service_type': 'COMPUTE',
            'recovery_method': 'auto'})
        for host in sorted(engine.model('compute').snapshot().nodes):
            failover_segments.create_host(ctx, segment['uuid'], {
                'name': host, 'type': 'COMPUTE',
                'control_attributes': ''})
        # The engine's clock, as the model's stamps are.
        now = [elements.utcnow()]
        kicked = []
        detector = failure_detection.Detector(
            lambda: engine.model('compute'), kicked.append,
            engine._compute_services, lambda: now[0])
        detector.look()
        assert detector.down_since == {}
        # Its service stops reporting: Nova notifies nobody.
        requests.post('%s/simulator/hosts/%s/fail' % (url, FAILED),
                      timeout=10).raise_for_status()
        detector.look()
        assert engine.model('compute').snapshot().node(
            FAILED).state == 'down'
        now[0] += datetime.timedelta(seconds=60)
        detector.look()
    [row] = host_notifications.list_notifications(ctx, query.Paging(), {})
    assert row['payload']['host_status'] == 'UNKNOWN'
    assert kicked == [row['uuid']]
    recoveries.Recoveries('engine-1', threading.Event(), None).take(
        row['uuid'])
    row = host_notifications.get_notification(ctx, row['uuid'])
    assert row['state'] == 'ignored'
    assert 'host_status UNKNOWN' in row['message']
