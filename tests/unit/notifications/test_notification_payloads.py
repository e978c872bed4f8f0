"""Our notifications have the shape of Watcher's documented samples: same
event types, payload names, versions and fields (plus our ``host``)."""

import json

import pytest

from tests import factories
from tests import reference_data
from watcher_ha.notifications import notifier

SAMPLES = reference_data.ROOT / 'watcher-notifications'
OURS_ONLY = {'host'}


def sample(event_type):
    """Watcher's documented sample notification of ``event_type``."""
    found = [json.loads(p.read_text())
             for p in reference_data.files(SAMPLES, '*.json')]
    [theirs] = [n for n in found if n['event_type'] == event_type]
    return theirs


def assert_same_shape(ours, theirs, where):
    assert ours['watcher_object.name'] == theirs['watcher_object.name'], \
        where
    assert ours['watcher_object.version'] == \
        theirs['watcher_object.version'], where
    our_data, their_data = (ours['watcher_object.data'],
                            theirs['watcher_object.data'])
    extra = set(OURS_ONLY)
    if ours['watcher_object.name'] == 'TerseAuditPayload':
        # Watcher's own samples disagree: most terse audits have a name,
        # those in action_plan.cancel.* do not.
        extra.add('name')
    assert set(their_data) <= set(our_data), where
    assert set(our_data) - set(their_data) <= extra, where
    for key, value in their_data.items():
        if isinstance(value, dict) and 'watcher_object.name' in value \
                and isinstance(our_data[key], dict):
            assert_same_shape(our_data[key], value, '%s.%s' % (where, key))


EVENTS = [
    ('audit', 'create'), ('audit', 'update'), ('audit', 'delete'),
    ('audit', 'strategy.start'), ('audit', 'strategy.end'),
    ('audit', 'strategy.error'), ('audit', 'planner.start'),
    ('audit', 'planner.end'), ('audit', 'planner.error'),
    ('action_plan', 'create'), ('action_plan', 'update'),
    ('action_plan', 'delete'), ('action_plan', 'execution.start'),
    ('action_plan', 'execution.end'), ('action_plan', 'execution.error'),
    ('action_plan', 'cancel.start'), ('action_plan', 'cancel.end'),
    ('action', 'create'), ('action', 'update'), ('action', 'delete'),
    ('action', 'execution.start'), ('action', 'execution.end'),
    ('action', 'execution.error'), ('action', 'cancel.start'),
    ('action', 'cancel.end'),
]


@pytest.mark.parametrize('kind,event', EVENTS,
                         ids=['%s.%s' % e for e in EVENTS])
def test_payload_matches_watchers_sample(db, notifications, kind, event):
    audit = factories.audit(db)
    plan, actions = factories.action_plan(db, audit)
    uuid = {'audit': audit, 'action_plan': plan,
            'action': actions[0]}[kind]['uuid']
    error = RuntimeError('boom') if event.endswith('error') else None
    getattr(notifier, kind)(event, uuid, old_state='PENDING', error=error)
    [(_, message, priority, _)] = notifications
    event_type = '%s.%s' % (kind, event)
    theirs = sample(event_type)
    assert message['event_type'] == event_type
    assert priority.upper() == theirs['priority']
    assert_same_shape(message['payload'], theirs['payload'], event_type)
    data = message['payload']['watcher_object.data']
    if kind != 'action':
        assert data['host']


def test_service_update_matches_watchers_sample(db, notifications):
    row = factories.service(db)
    row['notified_status'] = 'ACTIVE'
    notifier.service_update(row, 'ACTIVE', 'FAILED')
    [(_, message, _, _)] = notifications
    assert_same_shape(message['payload'],
                      sample('service.update')['payload'], 'service.update')
