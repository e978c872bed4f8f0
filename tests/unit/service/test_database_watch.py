"""A daemon whose database refuses it (a Galera node outside the Primary
component) steps out of its group, shows it, and runs none of its
manager's periodic tasks until it is served again; an unreachable
database changes nothing (service/database_watch.py). On a real
three-node Galera cluster: tests/functional/three_controllers/
test_galera_primary.py."""

import prometheus_client
import pytest
from oslo_db import exception as db_exc

from watcher_ha.common import context
from watcher_ha.db import readiness
from watcher_ha.service import daemon
from watcher_ha.service import database_watch

REFUSED = db_exc.DBConnectionError(
    "(pymysql.err.OperationalError) (1047, 'WSREP has not yet prepared "
    "node for application use')")


class _Group:
    member = 'ctl-3'
    group = b'watcher-ha-applier'

    def __init__(self):
        self.steps = []

    def step_out(self):
        self.steps.append('out')

    def step_in(self):
        self.steps.append('in')


def _ready_gauge():
    return prometheus_client.REGISTRY.get_sample_value(
        'watcher_ha_database_ready')


@pytest.fixture
def answers(monkeypatch):
    """What readiness.check() meets next: None (served) or an error."""
    given = [None]

    def check(ctx):
        if given[0] is not None:
            if readiness.refused(given[0]):
                raise readiness.NotReady(str(given[0])) from given[0]
            raise given[0]
    monkeypatch.setattr(readiness, 'check', check)
    return given


def test_refused_the_daemon_steps_out_until_served_again(answers):
    group = _Group()
    watch = database_watch.DatabaseWatch(group)
    watch.look()
    assert (watch.ready, group.steps, _ready_gauge()) == (True, [], 1)
    answers[0] = REFUSED
    watch.look()
    assert (watch.ready, group.steps, _ready_gauge()) == (False, ['out'], 0)
    # Out again while refused: a leave that failed is made again.
    watch.look()
    assert group.steps == ['out', 'out']
    answers[0] = None
    watch.look()
    assert (watch.ready, group.steps, _ready_gauge()) == (
        True, ['out', 'out', 'in'], 1)
    watch.look()
    assert group.steps == ['out', 'out', 'in']


def test_an_unreachable_database_moves_nothing(answers):
    group = _Group()
    watch = database_watch.DatabaseWatch(group)
    answers[0] = db_exc.DBConnectionError('connection refused')
    watch.look()
    assert (watch.ready, group.steps, _ready_gauge()) == (True, [], 1)


def test_a_database_that_serves_is_ready(db):
    assert readiness.check(context.admin_context()) is None


class _Manager:
    def __init__(self):
        self.runs = []

    def periodic(self):
        return [daemon.Periodic('work', lambda: self.runs.append('work'),
                                lambda: 1)]


def test_the_managers_tasks_are_skipped_while_refused(conf):
    manager = _Manager()
    made = daemon.Daemon('watcher-ha-applier', 'topic', manager, 'ctl-3')
    [task] = manager.periodic()
    run = made._while_served(task)
    made.database.ready = False
    run()
    assert manager.runs == []
    made.database.ready = True
    run()
    assert manager.runs == ['work']


def test_cut_off_from_its_group_the_managers_tasks_wait_for_a_read(
        conf, monkeypatch):
    """While the daemon cannot read its coordination group, its
    manager's tasks (those that read the group among them) are skipped;
    the watch keeps reading the group, and the first read that goes
    through lets them run again."""
    manager = _Manager()
    made = daemon.Daemon('watcher-ha-applier', 'topic', manager, 'ctl-3')
    [task] = manager.periodic()
    run = made._while_served(task)
    reads = []
    monkeypatch.setattr(made.database, 'look', lambda: None)

    def look():
        reads.append('read')
        made.group._cut_off = False
    monkeypatch.setattr(made.group, 'look', look)
    made.group._cut_off = True
    run()
    assert manager.runs == []
    made._look_at_backends()
    assert reads == ['read']
    run()
    assert manager.runs == ['work']
    # Not cut off: the watch leaves the reading to the manager's tasks.
    made._look_at_backends()
    assert reads == ['read']
