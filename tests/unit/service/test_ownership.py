"""The ownership engine with a domain of its own: which rows it takes,
adopts, hands over, re-examines and hands back, and when."""

import threading
import time

import pytest

from watcher_ha.service import ownership

ME = 'me'


class _View:
    """A Membership as the engine reads it."""

    def __init__(self, live, known=True, gone=()):
        self.live = frozenset(live)
        self.known = known
        self._gone = set(gone)

    def gone(self, member):
        return self.known and (member is None or member in self._gone)

    def missing_since(self, member):
        return None


class _Group:

    def __init__(self, view):
        self.view = view
        self.lapses = 0
        self.stepped_out = False
        self.cut_off = False
        self.callbacks = []
        self.cut_off_callbacks = []

    def before_rejoin(self, callback):
        self.callbacks.append(callback)

    def on_cut_off(self, callback):
        self.cut_off_callbacks.append(callback)

    def look(self, before_rejoin=None):
        return None if self.stepped_out else self.view


class _Domain:
    """Rows in a dict; records every call the engine makes."""

    kind = 'row'

    def __init__(self):
        self.rows = {}          # uuid -> Held
        self.pending = []
        self.calls = []
        self.release_calls = 0
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.taking = []        # the jobs that entered take()

    def unclaimed(self, context):
        return list(self.pending)

    def held(self, context):
        return list(self.rows.values())

    def take(self, uuid):
        self.taking.append(uuid)
        self.entered.set()
        self.gate.wait(5)
        self.calls.append(('take', uuid))

    def adopt(self, context, held, gone):
        current = self.rows[held.uuid]
        if current.owner != gone:
            return False
        self.rows[held.uuid] = ownership.Held(
            held.uuid, ME, held.follows_ring, held.needs_worker)
        return True

    def resume(self, uuid, why, previous):
        self.calls.append(('resume', uuid, why, previous))

    def hand_over(self, context, held, to):
        self.calls.append(('hand_over', held.uuid, to))
        return True

    def interrupt(self, uuids, why=None):
        self.calls.append(('interrupt', sorted(uuids)))
        self.why = why
        return set(uuids)

    def release(self, context):
        self.release_calls += 1


@pytest.fixture
def engine(db):
    domain = _Domain()
    owner = ownership.Owner(domain, ME, 2, threading.Event())
    yield owner, domain
    domain.gate.set()
    owner.stop(2)


def _taking(domain, count):
    """Until ``count`` jobs entered the domain's take() (on a loaded
    machine, a worker thread may take a while to pick its job up)."""
    deadline = time.monotonic() + 10
    while len(domain.taking) < count:
        assert time.monotonic() < deadline, domain.taking
        time.sleep(0.01)


def _drain(owner, timeout=5):
    deadline = time.monotonic() + timeout
    while owner.in_flight() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not owner.in_flight()


def test_a_restarted_daemon_resumes_the_rows_it_held(engine):
    owner, domain = engine
    domain.rows = {
        'mine': ownership.Held('mine', ME),
        'mine-between-rounds': ownership.Held(
            'mine-between-rounds', ME, follows_ring=True,
            needs_worker=False),
        'theirs': ownership.Held('theirs', 'other')}
    owner.start(None)
    _drain(owner)
    assert domain.calls == [('resume', 'mine', ownership.RESTARTED, ME)]


def test_an_adoption_arriving_while_the_launch_is_queued_is_not_dropped(
        engine):
    """The launch of a row is queued (or running) here when the engine
    adopts the same row: the adoption runs after it instead of being
    ignored, as the appliers' _submit once did."""
    owner, domain = engine
    owner.start(_Group(_View({ME}, gone={'dead'})))
    domain.gate.clear()
    owner.submit('plan', domain.take, 'plan')
    domain.rows = {'plan': ownership.Held('plan', 'dead')}
    owner.look()
    assert owner.busy('plan')
    domain.gate.set()
    _drain(owner)
    assert domain.calls == [('take', 'plan'),
                            ('resume', 'plan', ownership.ADOPTED, 'dead')]


def test_the_same_job_asked_twice_meanwhile_runs_once_more(engine):
    owner, domain = engine
    owner.start(None)
    domain.gate.clear()
    for _ in range(3):
        owner.submit('audit', domain.take, 'audit')
    domain.gate.set()
    _drain(owner)
    assert domain.calls == [('take', 'audit'), ('take', 'audit')]


def test_nothing_is_adopted_while_the_membership_is_unknown(engine):
    owner, domain = engine
    group = _Group(_View({ME}, known=False, gone={'dead'}))
    owner.start(group)
    domain.rows = {'a': ownership.Held('a', 'dead'),
                   'b': ownership.Held('b', None, follows_ring=True,
                                       needs_worker=False)}
    owner.look()
    _drain(owner)
    assert domain.calls == []
    group.view = _View({ME}, gone={'dead'})
    owner.look()
    _drain(owner)
    assert sorted(domain.calls) == [
        ('resume', 'a', ownership.ADOPTED, 'dead'),
        ('resume', 'b', ownership.ADOPTED, None)]


def test_a_row_of_an_absent_but_not_yet_gone_owner_stays(engine):
    owner, domain = engine
    owner.start(_Group(_View({ME})))
    domain.rows = {'a': ownership.Held('a', 'paused')}
    owner.look()
    _drain(owner)
    assert domain.calls == []


def test_only_the_member_the_ring_names_adopts(engine):
    owner, domain = engine
    owner.start(_Group(_View({ME, 'peer'}, gone={'dead'})))
    domain.rows = {'row-%d' % i: ownership.Held('row-%d' % i, 'dead')
                   for i in range(40)}
    owner.look()
    _drain(owner)
    adopted = {call[1] for call in domain.calls}
    ring = ownership.coordination.Ring()
    assert adopted == {uuid for uuid in domain.rows
                       if ring.owner(frozenset({ME, 'peer'}), uuid) == ME}
    assert 0 < len(adopted) < 40


def test_ring_followers_are_handed_over_unless_busy(engine):
    owner, domain = engine
    owner.start(_Group(_View({ME, 'peer'})))
    ring = ownership.coordination.Ring()
    theirs = [uuid for uuid in ('r%d' % i for i in range(40))
              if ring.owner(frozenset({ME, 'peer'}), uuid) == 'peer']
    domain.rows = {uuid: ownership.Held(uuid, ME, follows_ring=True,
                                        needs_worker=False)
                   for uuid in theirs}
    domain.gate.clear()
    owner.submit(theirs[0], domain.take, theirs[0])
    owner.look()
    domain.gate.set()
    _drain(owner)
    assert [call for call in domain.calls if call[0] == 'hand_over'] == [
        ('hand_over', uuid, 'peer') for uuid in theirs[1:]]


def test_the_self_check_resumes_held_rows_no_job_works_on(engine):
    """A database error ended a job, or its submission was lost: the row
    is held here and nothing works on it."""
    owner, domain = engine
    owner.start(None)
    domain.rows = {
        'stranded': ownership.Held('stranded', ME),
        'between-rounds': ownership.Held('between-rounds', ME,
                                         needs_worker=False),
        'busy': ownership.Held('busy', ME),
        'theirs': ownership.Held('theirs', 'other')}
    domain.gate.clear()
    owner.submit('busy', domain.take, 'busy')
    owner.sweep()
    domain.gate.set()
    _drain(owner)
    assert sorted(domain.calls) == [
        ('resume', 'stranded', ownership.STRANDED, ME),
        ('take', 'busy')]


def test_a_job_that_raises_leaves_its_row_to_the_self_check(engine):
    owner, domain = engine
    owner.start(None)

    def broken(uuid):
        raise RuntimeError('database gone for one statement')
    owner.submit('row', broken, 'row')
    _drain(owner)
    domain.rows = {'row': ownership.Held('row', ME)}
    owner.sweep()
    _drain(owner)
    assert domain.calls == [('resume', 'row', ownership.STRANDED, ME)]


def test_the_sweep_takes_unclaimed_rows(engine):
    owner, domain = engine
    owner.start(None)
    domain.pending = ['new-1', 'new-2']
    owner.sweep()
    _drain(owner)
    assert sorted(domain.calls) == [('take', 'new-1'), ('take', 'new-2')]


def test_stop_interrupts_waits_and_hands_back(engine):
    owner, domain = engine
    owner.start(None)
    domain.gate.clear()
    owner.submit('running', domain.take, 'running')
    assert domain.entered.wait(5)
    threading.Timer(0.3, domain.gate.set).start()
    owner.stop(5)
    assert domain.calls == [('interrupt', ['running']), ('take', 'running')]
    assert domain.release_calls == 1
    assert not owner.submit('late', domain.take, 'late')


def test_stop_does_not_wait_for_jobs_still_queued(db):
    """Two workers, both busy; a third job waits in the pool's queue.
    The stop waits for the two running ones only, then hands back."""
    domain = _Domain()
    owner = ownership.Owner(domain, ME, 2, threading.Event())
    owner.start(None)
    domain.gate.clear()
    for uuid in ('a', 'b', 'queued'):
        owner.submit(uuid, domain.take, uuid)
    _taking(domain, 2)
    threading.Timer(0.3, domain.gate.set).start()
    started = time.monotonic()
    owner.stop(10)
    assert time.monotonic() - started < 3
    assert sorted(domain.calls[1:]) == [('take', 'a'), ('take', 'b')]
    assert domain.release_calls == 1


def test_an_urgent_row_never_waits_behind_the_others(db):
    """One worker, busy on a row that does not end; an urgent row (the
    domain says so) runs at once in its own pool, while a third, not
    urgent, waits its turn. A domain that cannot tell leaves the row in
    the other pool."""
    domain = _Domain()
    urgent = {'recovery'}

    def is_urgent(uuid):
        if uuid == 'unknown':
            raise RuntimeError('database gone')
        return uuid in urgent
    domain.urgent = is_urgent
    owner = ownership.Owner(domain, ME, 1, threading.Event(),
                            urgent_workers=1)
    owner.start(None)
    domain.gate.clear()
    owner.submit('long', domain.take, 'long')
    for uuid in ('queued', 'unknown', 'recovery'):
        owner.submit(uuid, domain.take, uuid)
    _taking(domain, 2)
    time.sleep(0.2)
    assert sorted(domain.taking) == ['long', 'recovery']
    domain.gate.set()
    _drain(owner)
    assert sorted(domain.taking) == ['long', 'queued', 'recovery',
                                     'unknown']
    owner.stop(2)


def test_a_hand_back_the_database_fails_is_tried_again(engine):
    from oslo_db import exception as db_exc
    owner, domain = engine
    owner.start(None)
    failures = [db_exc.DBConnectionError('gone')]

    def release(context):
        if failures:
            raise failures.pop()
        domain.release_calls += 1
    domain.release = release
    owner.stop(5)
    assert domain.release_calls == 1


def test_a_lapsed_member_stops_the_jobs_of_rows_taken_from_it(engine):
    owner, domain = engine
    owner.start(None)
    domain.rows = {'taken': ownership.Held('taken', 'peer'),
                   'still-mine': ownership.Held('still-mine', ME)}
    domain.gate.clear()
    # 'ended': ended by the peer that took it over (held by nobody now).
    for uuid in ('taken', 'still-mine', 'ended'):
        owner.submit(uuid, domain.take, uuid)
    threading.Timer(0.2, domain.gate.set).start()
    owner._lapsed()
    assert domain.calls[0] == ('interrupt', ['ended', 'taken'])
    # It waited for them.
    assert {call for call in domain.calls[1:]} >= {
        ('take', 'ended'), ('take', 'taken')}


def test_an_adopted_row_is_never_taken_for_a_stranded_one(engine):
    """The sweep's self-check runs while an adoption's compare-and-swap
    commits: the row is already the adoption's job, so the self-check
    leaves it to the adoption (which knows its predecessor died)."""
    owner, domain = engine
    owner.start(_Group(_View({ME}, gone={'dead'})))
    domain.rows = {'plan': ownership.Held('plan', 'dead')}
    adopted, release = threading.Event(), threading.Event()
    real_adopt = domain.adopt

    def slow_adopt(context, held, gone):
        won = real_adopt(context, held, gone)
        adopted.set()
        release.wait(5)
        return won
    domain.adopt = slow_adopt
    owner.look()
    assert adopted.wait(5)
    owner.sweep()
    release.set()
    _drain(owner)
    assert domain.calls == [('resume', 'plan', ownership.ADOPTED, 'dead')]


def test_a_daemon_without_a_group_takes_only_rows_nobody_owns(engine):
    owner, domain = engine
    owner.start(None)
    domain.rows = {'nobodys': ownership.Held('nobodys', None),
                   'theirs': ownership.Held('theirs', 'other')}
    owner.look()
    _drain(owner)
    assert domain.calls == [('resume', 'nobodys', ownership.ADOPTED, None)]


def test_an_adoption_waiting_for_a_worker_is_dropped_if_its_owner_is_back(
        engine):
    """Every worker is busy when a look finds 'dead' gone: its row's
    adoption waits in the pool's queue. Before a worker is free, 'dead'
    restarts, joins again and resumes that row itself, and a later look
    sees it live. The adoption, decided on a view that is out of date by
    then, is not made: it would take the row from a live owner in the
    middle of its work (seen in tests/functional/
    test_applier_kill_50_plans.py: a plan adopted 0.4 s after the
    adopter's own look saw its restarted applier back, its running
    action interrupted)."""
    owner, domain = engine
    group = _Group(_View({ME}, gone={'dead'}))
    owner.start(group)
    domain.gate.clear()
    for uuid in ('busy-1', 'busy-2'):
        owner.submit(uuid, domain.take, uuid)
    _taking(domain, 2)
    domain.rows = {'plan': ownership.Held('plan', 'dead')}
    owner.look()
    assert owner.busy('plan')
    group.view = _View({ME, 'dead'})
    owner.look()
    domain.gate.set()
    _drain(owner)
    assert domain.rows['plan'].owner == 'dead'
    assert [call for call in domain.calls if call[0] == 'resume'] == []


def test_a_member_stepped_out_takes_adopts_and_examines_nothing(engine):
    """Out of its group (its database refuses it), a daemon takes no
    row nobody took, adopts nothing, re-examines nothing and accepts no
    job; stepped in again, it does all of it; its lapse callback is the
    group's, whichever engine of the daemon finds the lapse."""
    owner, domain = engine
    group = _Group(_View({ME}, gone={'dead'}))
    owner.start(group)
    assert group.callbacks == [owner._lapsed]
    group.stepped_out = True
    domain.pending = ['new']
    domain.rows = {'orphan': ownership.Held('orphan', 'dead'),
                   'stranded': ownership.Held('stranded', ME)}
    owner.sweep()
    owner.look()
    assert not owner.submit('asked', domain.take, 'asked')
    assert not owner.acting()
    _drain(owner)
    assert domain.calls == []
    group.stepped_out = False
    owner.sweep()
    owner.look()
    _drain(owner)
    assert sorted(domain.calls) == [
        ('resume', 'orphan', ownership.ADOPTED, 'dead'),
        ('resume', 'stranded', ownership.STRANDED, ME), ('take', 'new')]


def test_a_member_cut_off_gives_up_its_jobs_and_takes_nothing(engine):
    """Cut off from its group (the minority side of an etcd partition),
    a daemon interrupts every job it runs, since the others will adopt
    their rows, and takes, adopts and re-examines nothing; once it reads
    its group again, the rows still its own are examined again."""
    owner, domain = engine
    group = _Group(_View({ME}, gone={'dead'}))
    owner.start(group)
    assert group.cut_off_callbacks == [owner._cut_off]
    domain.rows = {'running': ownership.Held('running', ME)}
    domain.gate.clear()
    owner.submit('running', domain.take, 'running')
    _taking(domain, 1)
    group.cut_off = True
    group.cut_off_callbacks[0]()
    assert domain.calls == [('interrupt', ['running'])]
    assert domain.why == '%s is cut off from its coordination group' % ME
    domain.gate.set()
    _drain(owner)
    domain.pending = ['new']
    domain.rows['orphan'] = ownership.Held('orphan', 'dead')
    owner.sweep()
    owner.look()
    assert not owner.submit('asked', domain.take, 'asked')
    _drain(owner)
    assert domain.calls == [('interrupt', ['running']), ('take', 'running')]
    group.cut_off = False
    owner.sweep()
    owner.look()
    _drain(owner)
    assert sorted(domain.calls[2:]) == [
        ('resume', 'orphan', ownership.ADOPTED, 'dead'),
        ('resume', 'running', ownership.STRANDED, ME), ('take', 'new')]
