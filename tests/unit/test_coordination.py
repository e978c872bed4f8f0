"""Group membership, the hash ring, and what /v1/services shows of them."""

import collections

import pytest

from tests import factories
from watcher_ha.common import coordination
from watcher_ha.conf import CONF


@pytest.mark.parametrize('url,expected', [
    (None, 'file://{state}/coordination?timeout=10'),
    ('redis://127.0.0.1:6379', 'redis://127.0.0.1:6379?membership_timeout=10'),
    ('redis://h:6379?namespace=x', 'redis://h:6379?namespace=x&'
                                   'membership_timeout=10'),
    ('redis://h:6379?membership_timeout=3', 'redis://h:6379?'
                                            'membership_timeout=3'),
    ('zookeeper://h:2181', 'zookeeper://h:2181?timeout=10'),
])
def test_backend_url_carries_the_member_timeout(conf, url, expected):
    CONF.set_override('backend_url', url, group='coordination')
    try:
        assert coordination.backend_url() == expected.format(
            state=CONF.state_path)
    finally:
        CONF.clear_override('backend_url', group='coordination')


def test_ring_moves_only_the_share_of_a_member_that_goes():
    ring = coordination.Ring()
    keys = ['audit-%d' % i for i in range(600)]
    three = frozenset(['a', 'b', 'c'])
    before = {key: ring.owner(three, key) for key in keys}
    spread = collections.Counter(before.values())
    assert set(spread) == set(three)
    assert min(spread.values()) > 100, spread
    after = {key: ring.owner(frozenset(['a', 'b']), key) for key in keys}
    moved = [key for key in keys if before[key] != after[key]]
    assert moved and all(before[key] == 'c' for key in moved)
    assert ring.owner(frozenset(), 'x') is None


def test_members_come_and_go(conf):
    first = coordination.Group('watcher-ha-applier', 'one')
    second = coordination.Group('watcher-ha-applier', 'two')
    first.start()
    second.start()
    try:
        assert first.members() == {'one', 'two'}
        assert coordination.read_members('watcher-ha-applier') == {
            'one', 'two'}
        second.stop()
        assert first.members() == {'one'}
    finally:
        first.stop()
        second.stop()
    assert coordination.read_members('watcher-ha-decision-engine') == set()


def test_restarted_before_its_membership_expired(conf):
    """A daemon killed and started again under the same host finds its
    old membership still there (it could not leave): it carries on."""
    killed = coordination.Group('watcher-ha-applier', 'one')
    killed.start()
    restarted = coordination.Group('watcher-ha-applier', 'one')
    try:
        restarted.start()
        assert restarted.members() == {'one'}
    finally:
        restarted.stop()
        killed.stop()


def test_services_show_group_status_and_owned_audits(api, db):
    engine = coordination.Group('watcher-ha-decision-engine', 'ctl-1')
    engine.start()
    try:
        factories.service(db, host='ctl-1')
        factories.service(db, host='ctl-2')
        factories.service(db, name='watcher-ha-api', host='ctl-2')
        owned = factories.audit(db, state='ONGOING', hostname='ctl-1',
                                audit_type='CONTINUOUS', interval='60')
        factories.audit(db, state='ONGOING', hostname='ctl-1')
        listed = api.get('/v1/services', version='1.8').json['services']
        assert [(s['name'], s['host'], s['status']) for s in listed] == [
            ('watcher-ha-decision-engine', 'ctl-1', 'ACTIVE'),
            # Heartbeating in the registry, but not in the group.
            ('watcher-ha-decision-engine', 'ctl-2', 'FAILED'),
            ('watcher-ha-api', 'ctl-2', 'ACTIVE')]
        shown = [api.get('/v1/services/%d' % s['id'], version='1.8').json
                 for s in listed]
        assert [s['continuous_audits'] for s in shown] == [
            [owned['uuid']], [], None]
        assert [s['data_models'] for s in shown] == [[], [], None]
        import time

        import sqlalchemy as sa

        from watcher_ha.db import models
        with db.begin() as conn:
            conn.execute(sa.update(models.Service).where(
                models.Service.host == 'ctl-1').values(details={
                    'data_models': [{
                        'name': 'compute', 'generation': 42, 'ready': True,
                        'last_resync': time.time() - 100,
                        'last_notification': None}]}))
        [model] = api.get('/v1/services/%d' % listed[0]['id'],
                          version='1.8').json['data_models']
        assert model['name'] == 'compute' and model['generation'] == 42
        assert 99 <= model['seconds_since_resync'] < 110
        assert model['seconds_since_notification'] is None
        older = api.get('/v1/services/%d' % listed[0]['id'],
                        version='1.7').json
        assert 'continuous_audits' not in older
    finally:
        engine.stop()
