"""Group membership, the hash ring, and what /v1/services shows of them."""

import collections

import pytest

from tests import factories
from watcher_ha.conf import CONF
from watcher_ha.service import coordination

# What a decision engine shows of its group and models: ours, beyond
# Watcher's API.
OURS = {'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.1'}


# A member's record lasts a quarter of member_timeout (10 s): its death
# shows within 2.5 s, and its absence must then be seen for 10 s.
@pytest.mark.parametrize('url,expected', [
    # Whole seconds only.
    (None, 'file://{state}/coordination?timeout=3'),
    ('redis://127.0.0.1:6379', 'redis://127.0.0.1:6379?'
                               'membership_timeout=2.5'),
    ('redis://h:6379?namespace=x', 'redis://h:6379?namespace=x&'
                                   'membership_timeout=2.5'),
    ('redis://h:6379?membership_timeout=3', 'redis://h:6379?'
                                            'membership_timeout=3'),
    ('zookeeper://h:2181', 'zookeeper://h:2181?timeout=2.5'),
])
def test_backend_url_carries_the_record_lifetime(config, url, expected):
    config.config(backend_url=url, group='coordination')
    assert coordination.backend_url() == expected.format(
        state=CONF.state_path)


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
        assert first.look().live == {'one', 'two'}
        assert coordination.read_members('watcher-ha-applier') == {
            'one', 'two'}
        second.stop()
        assert first.look().live == {'one'}
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
        assert restarted.look().live == {'one'}
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
        listed = api.get('/v1/services', headers=OURS).json['services']
        assert [(s['name'], s['host'], s['status']) for s in listed] == [
            ('watcher-ha-decision-engine', 'ctl-1', 'ACTIVE'),
            # Heartbeating in the registry, but not in the group.
            ('watcher-ha-decision-engine', 'ctl-2', 'FAILED'),
            ('watcher-ha-api', 'ctl-2', 'ACTIVE')]
        shown = [api.get('/v1/services/%d' % s['id'], headers=OURS).json
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
                          headers=OURS).json['data_models']
        assert model['name'] == 'compute' and model['generation'] == 42
        assert 99 <= model['seconds_since_resync'] < 110
        assert model['seconds_since_notification'] is None
        older = api.get('/v1/services/%d' % listed[0]['id'],
                        version='1.7').json
        assert 'continuous_audits' not in older
    finally:
        engine.stop()


class _Clock:
    """coordination's monotonic clock, moved by hand."""

    def __init__(self, monkeypatch):
        self.now = 1000.0
        monkeypatch.setattr(coordination.time, 'monotonic', lambda: self.now)

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    return _Clock(monkeypatch)


@pytest.fixture
def pair(conf, clock):
    """Two members of one group, started at the clock's time."""
    first = coordination.Group('watcher-ha-applier', 'one')
    second = coordination.Group('watcher-ha-applier', 'two')
    first.start()
    second.start()
    yield first, second
    first.stop()
    second.stop()


def test_membership_is_unknown_for_member_timeout_after_a_join(pair, clock):
    """Right after joining, nobody may be presumed gone: the others may
    be joining again too (the backend restarted)."""
    first, _ = pair
    view = first.look()
    assert view.live == {'one', 'two'}
    assert not view.known and not view.gone('three')
    clock.advance(CONF.coordination.member_timeout - 0.1)
    assert not first.look().known
    clock.advance(0.1)
    assert first.look().known


def test_a_peer_is_gone_only_once_absent_from_reads_member_timeout_apart(
        pair, clock):
    first, second = pair
    timeout = CONF.coordination.member_timeout
    clock.advance(timeout)
    second.stop()
    view = first.look()
    # Absent from one read: not yet.
    assert view.known and view.live == {'one'}
    assert not view.gone('two')
    clock.advance(timeout - 1)
    assert not first.look().gone('two')
    clock.advance(1)
    assert first.look().gone('two')
    # A never-seen owner is timed from the first read that asks.
    assert not first.look().gone('ghost')


def test_a_peer_seen_again_starts_its_absence_over(pair, clock):
    first, second = pair
    timeout = CONF.coordination.member_timeout
    clock.advance(timeout)
    second.stop()
    assert not first.look().gone('two')
    clock.advance(timeout - 1)
    # It joins again (a lost heartbeat record, a flushed backend)...
    second.start()
    assert first.look().live == {'one', 'two'}
    second.stop()
    clock.advance(1)
    # ...so its absence is timed afresh.
    assert not first.look().gone('two')
    clock.advance(timeout)
    assert first.look().gone('two')


def test_a_failed_read_makes_the_membership_unknown(pair, clock,
                                                    monkeypatch):
    first, second = pair
    timeout = CONF.coordination.member_timeout
    clock.advance(timeout)
    second.stop()
    assert not first.look().gone('two')
    clock.advance(timeout)

    def unreachable(group):
        raise coordination.coordination.ToozConnectionError('down')
    with monkeypatch.context() as patched:
        patched.setattr(first._coordinator, 'get_members', unreachable)
        assert first.look() is None
    # Back: what was seen before the failure counts for nothing.
    assert not first.look().known
    clock.advance(timeout)
    view = first.look()
    assert view.known and not view.gone('two')
    clock.advance(timeout)
    assert first.look().gone('two')


def test_a_lapsed_member_calls_back_then_joins_again(pair, clock):
    """Dropped from its group (its record lost, or paused past its
    lifetime), a member is told before it joins again, then beats before
    anyone can read it, and knows nothing for member_timeout."""
    first, _ = pair
    clock.advance(CONF.coordination.member_timeout)
    assert first.look().known
    first._coordinator.leave_group(first.group).get()
    told = []
    first.before_rejoin(lambda: told.append(
        coordination.read_members('watcher-ha-applier')))
    view = first.look()
    # Called while still out of the group.
    assert told == [{'two'}]
    assert view.live == {'one', 'two'} and not view.known
    assert coordination.read_members('watcher-ha-applier') == {'one', 'two'}


def test_absences_seen_while_unknown_count(pair, clock):
    """A peer that dies just after this member joined is gone
    member_timeout after the first read that missed it, not
    member_timeout after the unknown window ends."""
    first, second = pair
    timeout = CONF.coordination.member_timeout
    first.look()
    clock.advance(2)
    second.stop()
    assert not first.look().known
    clock.advance(timeout - 2)
    assert not first.look().gone('two')
    clock.advance(2)
    assert first.look().gone('two')


def test_a_member_stepped_out_is_absent_until_it_steps_in(pair, clock):
    """Stepped out (its database refuses it), a member leaves its group
    and reads nothing; stepped in, its next look runs every callback
    registered, then joins again, knowing nothing for member_timeout."""
    first, second = pair
    clock.advance(CONF.coordination.member_timeout)
    told = []
    first.before_rejoin(lambda: told.append('engine'))
    first.before_rejoin(lambda: told.append('pipelines'))
    first.step_out()
    assert first.stepped_out
    assert first.look() is None
    assert coordination.read_members('watcher-ha-applier') == {'two'}
    assert not second.look().gone('one')
    clock.advance(CONF.coordination.member_timeout)
    assert second.look().gone('one')
    first.step_in()
    first.before_rejoin(lambda: told.append('given'))
    view = first.look()
    assert told == ['engine', 'pipelines', 'given']
    assert view.live == {'one', 'two'} and not view.known
    assert coordination.read_members('watcher-ha-applier') == {'one', 'two'}


def _unreachable(group):
    raise coordination.coordination.ToozConnectionError('down')


def test_a_member_that_cannot_read_its_group_is_cut_off_before_it_is_gone(
        pair, clock, monkeypatch):
    """A member whose reads fail (the minority side of an etcd
    partition) gives its work up at half of member_timeout after its last
    read, before the others can presume it gone (its record's lifetime,
    then member_timeout of absence); the first read that goes through
    again ends it."""
    first, second = pair
    timeout = CONF.coordination.member_timeout
    clock.advance(timeout)
    assert first.look().known and second.look().known
    told = []
    first.on_cut_off(lambda: told.append('cut off'))
    with monkeypatch.context() as patched:
        patched.setattr(first._coordinator, 'get_members', _unreachable)
        clock.advance(coordination.CUT_OFF_SHARE * timeout - 0.1)
        assert first.look() is None
        assert not first.cut_off and told == []
        clock.advance(0.1)
        assert first.look() is None
        assert first.cut_off and told == ['cut off']
        assert coordination.CUT_OFF._value.get() == 1
        # Told once, however long it lasts.
        clock.advance(timeout)
        first.look()
        assert told == ['cut off']
        # The others presume it gone no sooner than member_timeout after
        # its record lapsed: later than it gave its work up.
        first._coordinator.leave_group(first.group).get()
        assert not second.look().gone('one')
    view = first.look()
    assert not first.cut_off and coordination.CUT_OFF._value.get() == 0
    assert view.live == {'one', 'two'}


def test_a_member_started_without_its_backend_is_cut_off_in_time(
        conf, clock, monkeypatch):
    """Its start counts as its last read: a daemon that resumes the work
    of its earlier life while its backend never answers gives it up as
    one that lost it later would."""
    member = coordination.Group('watcher-ha-applier', 'one')
    member.start()
    try:
        monkeypatch.setattr(member._coordinator, 'get_members', _unreachable)
        clock.advance(coordination.CUT_OFF_SHARE
                      * CONF.coordination.member_timeout)
        assert member.look() is None and member.cut_off
    finally:
        member.stop()
