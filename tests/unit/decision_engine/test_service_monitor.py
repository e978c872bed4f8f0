"""service.update: announced once when a daemon goes FAILED or comes
back, however many engines watch."""

import concurrent.futures
import datetime

import pytest

from tests import factories
from watcher_ha.db import models
from watcher_ha.decision_engine import manager
from watcher_ha.service import coordination


def service_updates(notifications):
    """The payload data of the service.update notifications sent."""
    return [message['payload']['watcher_object.data']
            for _, message, _, _ in notifications
            if message['event_type'] == 'service.update']


@pytest.fixture
def groups():
    """Members of the appliers' group (file-based coordination)."""
    joined = []

    def join(host):
        group = coordination.Group('watcher-ha-applier', host)
        group.start()
        joined.append(group)
        return group
    yield join
    for group in joined:
        group.stop()


def test_failed_then_back_announced_once(db, notifications, groups):
    # Registered, heartbeating in the registry, but gone from the group:
    # the group is what tells.
    factories.service(db, name='watcher-ha-applier', host='gone')
    factories.service(db, name='watcher-ha-applier', host='alive')
    groups('alive')
    engines = [manager.DecisionEngineManager('engine-%d' % i)
               for i in range(4)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda engine: engine.watch_services(), engines))
    engines[0].watch_services()
    updates = service_updates(notifications)
    assert len(updates) == 1
    [update] = updates
    assert update['sevice_host'] == 'gone'
    assert update['status_update']['watcher_object.data'] == {
        'old_state': 'ACTIVE', 'state': 'FAILED'}
    # It joins again: announced back, once.
    groups('gone')
    for engine in engines:
        engine.watch_services()
    updates = service_updates(notifications)
    assert [u['status_update']['watcher_object.data']['state']
            for u in updates] == ['FAILED', 'ACTIVE']


def test_api_services_status_comes_from_their_heartbeat(api, db):
    """The API is in no coordination group: service_down_time (30 s)
    against its last heartbeat decides."""
    now = models.utcnow()
    factories.service(db, name='watcher-ha-api', host='ctl-fresh',
                      last_seen_up=now - datetime.timedelta(seconds=5))
    factories.service(db, name='watcher-ha-api', host='ctl-stale',
                      last_seen_up=now - datetime.timedelta(seconds=31))
    listed = {s['host']: s['status']
              for s in api.get('/v1/services').json['services']}
    assert listed == {'ctl-fresh': 'ACTIVE', 'ctl-stale': 'FAILED'}
