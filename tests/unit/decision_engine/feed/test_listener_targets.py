"""The models' notification sources: Nova's topic always, Cinder's when
the engine runs the storage collector (one pool queue bound to both)."""

from watcher_ha.decision_engine.feed import listener


def _targets(conf):
    return [(t.exchange, t.topic) for t in listener.targets(conf)]


def test_nova_alone_by_default(conf):
    assert _targets(conf) == [('nova', 'versioned_notifications')]


def test_cinder_too_with_the_storage_collector(conf):
    conf.set_override('collectors', ['compute', 'storage'],
                      group='watcher_decision_engine')
    try:
        assert _targets(conf) == [('nova', 'versioned_notifications'),
                                  ('openstack', 'notifications')]
        conf.set_override('cinder_exchange', 'cinder',
                          group='watcher_decision_engine')
        assert _targets(conf)[1] == ('cinder', 'notifications')
        assert listener.describe(conf) == (
            'nova.versioned_notifications, cinder.notifications')
    finally:
        conf.clear_override('collectors', group='watcher_decision_engine')
        conf.clear_override('cinder_exchange',
                            group='watcher_decision_engine')
