"""A notification owed for a committed change is sent when the database
goes away between the commit and the payload's read: the read is made
again for up to notifier.OUTAGE_WAIT seconds; after a wait in vain, the
sends that follow try once each until a read goes through."""

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from tests import factories
from watcher_ha.db import query
from watcher_ha.notifications import notifier


def gone(what='server closed the connection unexpectedly'):
    return db_exc.DBConnectionError(Exception(what))


def failing_reads(monkeypatch, errors):
    """The next reads of a row fail with ``errors`` (one each), then the
    database answers again: what is left of them."""
    get_row = query.get_row
    left = list(errors)

    def flaky(*args, **kwargs):
        if left:
            raise left.pop(0)
        return get_row(*args, **kwargs)
    monkeypatch.setattr(query, 'get_row', flaky)
    return left


@pytest.fixture
def plan(db):
    return factories.action_plan(db, factories.audit(db))[0]


def sent(notifications):
    return [(m['event_type'], m['payload']['watcher_object.data']['uuid'])
            for _, m, _, _ in notifications]


def test_a_plan_stored_before_a_database_restart_is_announced(
        plan, notifications, monkeypatch):
    """Seen in test_ha_restarts under CI's load: an engine stored a plan,
    PostgreSQL restarted, and the plan's action_plan.create was dropped
    ('Could not send ...: server closed the connection unexpectedly')."""
    left = failing_reads(monkeypatch, [gone(), sa.exc.OperationalError(
        'SELECT 1', {}, Exception('connection to server at "127.0.0.1" '
                                  'failed: Connection refused'))])
    notifier.action_plan('create', plan['uuid'])
    assert left == []
    assert sent(notifications) == [('action_plan.create', plan['uuid'])]


def test_an_outage_longer_than_the_wait_holds_up_one_send_only(
        plan, notifications, monkeypatch):
    monkeypatch.setattr(notifier, 'OUTAGE_WAIT', 0.3)
    left = failing_reads(monkeypatch, [gone() for _ in range(100)])
    notifier.action_plan('create', plan['uuid'])
    waited = 100 - len(left)
    assert waited > 1
    assert notifications == []
    # The next ones try once each while the database stays away...
    notifier.action_plan('update', plan['uuid'], old_state='RECOMMENDED')
    notifier.action_plan('delete', plan['uuid'])
    assert 100 - len(left) == waited + 2
    assert notifications == []
    # ... and wait again once a read went through.
    left[:] = []
    notifier.action_plan('execution.start', plan['uuid'])
    left[:] = [gone(), gone()]
    notifier.action_plan('execution.end', plan['uuid'])
    assert left == []
    assert sent(notifications) == [
        ('action_plan.execution.start', plan['uuid']),
        ('action_plan.execution.end', plan['uuid'])]


def test_an_error_that_is_not_an_outage_is_not_read_again(
        plan, notifications, monkeypatch):
    left = failing_reads(monkeypatch, [
        db_exc.DBError('no such column'), db_exc.DBError('again')])
    notifier.action_plan('create', plan['uuid'])
    assert notifications == []
    assert len(left) == 1
