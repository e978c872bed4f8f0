"""The end of a recovery's plan (or of its audit, without a plan) reaches
the engine that owns the notification as a message, cast after the
commit that ended it, and that engine moves the notification on at once:
no engine polls the attempt. A lost message is made up for by the
owner's self-check, the safety net; a recovery plan waiting for the
plans it preempts is moved on by their ends, the same message.

The engine here is a lone one serving its RPC endpoints on its own topic
of the in-process bus. No periodic task runs: nothing but a message, or
a self-check the test calls, moves a notification."""

import threading
import time

import oslo_messaging
import pytest
import sqlalchemy as sa
from oslo_config import cfg
from oslo_utils import uuidutils

from tests import factories
from watcher_ha.applier import plan_end
from watcher_ha.common import context as watcher_context
from watcher_ha.common import state_machines
from watcher_ha.common.instance_ha import statuses
from watcher_ha.common.states import ActionPlanState as P
from watcher_ha.common.states import AuditState as S
from watcher_ha.db import action_plans
from watcher_ha.db import host_notifications
from watcher_ha.db import models
from watcher_ha.db import plan_runs
from watcher_ha.db import recoveries as recoveries_db
from watcher_ha.decision_engine import manager
from watcher_ha.decision_engine import rpcapi
from watcher_ha.decision_engine.instance_ha import recoveries
from watcher_ha.service import ownership
from watcher_ha.service import rpc

CONF = cfg.CONF

APPLIER = 'applier-1'
SERVER = '9d3a3c52-1111-4222-8333-444455556666'
# Long enough that a notification still running after it was not moved.
SETTLE = 0.5


class Engine:
    """A decision engine's recoveries: the ownership engine over
    recoveries.Recoveries, fed by the engine's real RPC endpoints."""

    def __init__(self, host):
        self.host = host
        self.stopping = threading.Event()
        # The recovery audits each attempt triggered, in order.
        self.triggered = []
        self.domain = recoveries.Recoveries(host, self.stopping,
                                            self.triggered.append)
        self.owner = ownership.Owner(self.domain, host, 2, self.stopping)

    # What Endpoints calls.

    def recover(self, notification_uuid):
        self.owner.submit(notification_uuid, self.domain.take,
                          notification_uuid)

    def submit(self, audit_uuid):
        """Other tests' trigger_audit casts on the shared bus: not ours."""


@pytest.fixture
def engine(db):
    # A host of its own: casts other tests left on the in-process bus
    # for other engines never reach it.
    running = Engine('engine-' + uuidutils.generate_uuid()[:8])
    running.owner.start(None)
    server = oslo_messaging.get_rpc_server(
        rpc.get_transport(), oslo_messaging.Target(
            topic=rpcapi.TOPIC, server=running.host),
        [manager.Endpoints(running)], executor='threading')
    server.start()
    yield running
    server.stop()
    server.wait()
    running.owner.stop(2)


@pytest.fixture
def context():
    return watcher_context.admin_context()


def running_attempt(db, context, engine, host='failed'):
    """A notification of ``host`` running its first attempt, owned by
    ``engine``: (notification uuid, its recovery audit's row)."""
    row = factories.host_notification(context, hostname=host)
    audit_uuid = recoveries_db.start_attempt(
        context, row, engine.host, {'notification_uuid': row['uuid']},
        'host_recovery')
    with db.begin() as conn:
        audit = conn.execute(sa.select(models.Audit.__table__).where(
            models.Audit.uuid == audit_uuid)).mappings().one()
    return row['uuid'], dict(audit)


def set_audit_state(db, audit, state):
    """As the auditor leaves the audit (its own writes are tested
    elsewhere)."""
    with db.begin() as conn:
        conn.execute(sa.update(models.Audit).where(
            models.Audit.id == audit['id']).values(state=state))


def running_plan(db, audit, kinds=None):
    """The attempt's plan, run by APPLIER."""
    plan, _ = factories.action_plan(db, audit, state=P.ONGOING,
                                    hostname=APPLIER, kinds=kinds,
                                    action_states=None)
    set_audit_state(db, audit, S.SUCCEEDED)
    return plan['uuid']


def end_plan(context, uuid, state, announce=True):
    """End the plan as its applier does; ``announce`` False: the message
    is lost."""
    plan = plan_runs.get(context, uuid)
    ended = plan_runs.finish(context, plan, plan['hostname'], state,
                             None if state == P.SUCCEEDED else 'it failed')
    assert ended is not None
    if announce:
        plan_end.announce(context, uuid, ended)


def notification(context, uuid):
    return host_notifications.get_notification(context, uuid)


def wait_state(context, uuid, state, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = notification(context, uuid)
        if row['state'] == state:
            return row
        time.sleep(0.01)
    raise AssertionError('notification %s is %s, not %s' % (
        uuid, notification(context, uuid)['state'], state))


def needs_owner(context, uuid):
    return {held: needs for held, _, needs in recoveries_db.held(context)}[
        uuid]


def test_the_end_of_the_plan_finishes_the_notification_by_a_message(
        db, engine, context):
    uuid, audit = running_attempt(db, context, engine)
    plan = running_plan(db, audit)
    # The engine looked once and has nothing to do while the plan runs.
    engine.recover(uuid)
    time.sleep(SETTLE)
    assert notification(context, uuid)['state'] == statuses.RUNNING
    assert not needs_owner(context, uuid)
    assert not engine.owner.in_flight()
    ended = time.monotonic()
    end_plan(context, plan, P.SUCCEEDED)
    row = wait_state(context, uuid, statuses.FINISHED)
    took = time.monotonic() - ended
    # No sweep nor self-check ran: the message alone did it.
    assert row['hostname'] is None and row['message'] is None, row
    print('plan end to notification finished: %.3f s' % took)


def test_a_lost_message_is_made_up_for_by_the_self_check(db, engine,
                                                         context):
    uuid, audit = running_attempt(db, context, engine)
    plan = running_plan(db, audit)
    end_plan(context, plan, P.SUCCEEDED, announce=False)
    time.sleep(SETTLE)
    assert notification(context, uuid)['state'] == statuses.RUNNING
    # Its attempt is over and nothing works on it: the safety net takes
    # it up.
    assert needs_owner(context, uuid)
    engine.owner.self_check()
    wait_state(context, uuid, statuses.FINISHED)


def test_a_failed_plan_starts_the_next_attempt_which_is_triggered_once(
        db, engine, context, config):
    config.config(recovery_retry_interval=0, group='instance_ha')
    uuid, audit = running_attempt(db, context, engine)
    plan = running_plan(db, audit)
    end_plan(context, plan, P.FAILED)
    deadline = time.monotonic() + 10
    while (notification(context, uuid)['attempts'] < 2
           and time.monotonic() < deadline):
        time.sleep(0.01)
    row = notification(context, uuid)
    assert (row['state'], row['attempts']) == (statuses.RUNNING, 2)
    # The new attempt's audit was triggered once, by the start; the
    # first attempt's was made before this engine's recoveries ran.
    assert engine.triggered == [row['recovery_audit_uuid']]


def test_an_audit_that_ends_without_a_plan_ends_the_attempt(db, engine,
                                                            context):
    uuid, audit = running_attempt(db, context, engine)
    audits = manager.Audits(engine.host)

    class Auditor:
        def run(self, audit_uuid):
            set_audit_state(db, audit, S.FAILED)
    audits.auditor = Auditor()
    # As the audits' owned work runs it: the message follows the run.
    audits.take(audit['uuid'])
    row = wait_state(context, uuid, statuses.ERROR)
    assert 'the recovery audit ended FAILED' in row['message']


def test_a_plan_deleted_through_the_api_ends_the_attempt(db, api, engine,
                                                         context):
    uuid, audit = running_attempt(db, context, engine)
    plan, _ = factories.action_plan(db, audit)      # RECOMMENDED
    set_audit_state(db, audit, S.SUCCEEDED)
    assert api.delete('/v1/action_plans/%s' % plan['uuid']).status == 204
    row = wait_state(context, uuid, statuses.ERROR)
    assert 'the recovery plan ended DELETED' in row['message']


def test_nobody_is_told_of_an_optimisation_plan_while_no_recovery_waits(
        db, engine, context):
    running_attempt(db, context, engine)
    plan, _ = factories.action_plan(db, factories.audit(db))
    assert recoveries_db.to_tell(context, plan_uuid=plan['uuid']) == []


def test_a_notification_nobody_holds_is_told_to_every_engine(
        db, engine, context, monkeypatch):
    uuid, audit = running_attempt(db, context, engine)
    recoveries_db.release(context, engine.host)
    plan = running_plan(db, audit)
    sent = []
    engines = rpcapi.DecisionEngineAPI()
    monkeypatch.setattr(rpc, 'cast_or_log', lambda client, ctx, method,
                        **kw: sent.append((client.target, method, kw)))
    end_plan(context, plan, P.SUCCEEDED, announce=False)
    engines.plan_ended(context, plan)
    [(target, method, kwargs)] = sent
    assert (target.fanout, target.server, method, kwargs) == (
        True, None, 'follow_recovery', {'notification_uuid': uuid})


# Preemption: the recovery plan waits for the plans holding its server.

def holder_plan(db, context):
    """An optimisation plan running a migration of SERVER."""
    audit = factories.audit(db)
    row, _ = factories.action_plan(db, audit, hostname='applier-2', kinds=[
        ('migrate', {'resource_id': SERVER, 'source_node': 'failed',
                     'migration_type': 'live'})])
    for target in (P.PENDING, P.ONGOING):
        action_plans.transition(context, action_plans.get_plan(
            context, row['uuid']), target, actor=state_machines.SERVICE)
    return row['uuid']


def waiting_recovery(db, context, engine):
    """A recovery whose plan, evacuating SERVER, is stored RECOMMENDED;
    its audit's end told to the engine, as the auditor's is."""
    uuid, audit = running_attempt(db, context, engine)
    plan, _ = factories.action_plan(db, audit, kinds=[
        ('evacuate', {'resource_id': SERVER, 'source_node': 'failed',
                      'destination_node': None})])
    set_audit_state(db, audit, S.SUCCEEDED)
    rpcapi.DecisionEngineAPI().audit_ended(context, audit['uuid'])
    return uuid, plan['uuid']


def plan_state(context, uuid):
    return plan_runs.get(context, uuid)['state']


def wait_plan(context, uuid, state, timeout=10):
    deadline = time.monotonic() + timeout
    while (plan_state(context, uuid) != state
           and time.monotonic() < deadline):
        time.sleep(0.01)
    assert plan_state(context, uuid) == state


def test_the_end_of_the_preempted_plan_starts_the_recovery_plan(
        db, engine, context):
    holder = holder_plan(db, context)
    uuid, recovery = waiting_recovery(db, context, engine)
    # The audit's message took the first step: the holder is asked to
    # stop, the recovery plan waits.
    wait_plan(context, holder, P.CANCELLING)
    time.sleep(SETTLE)
    assert plan_state(context, recovery) == P.RECOMMENDED
    # Its applier stops it: that end starts the recovery plan.
    end_plan(context, holder, P.CANCELLED)
    wait_plan(context, recovery, P.PENDING)
    assert notification(context, uuid)['state'] == statuses.RUNNING


def test_a_preemption_past_its_timeout_fails_the_attempt(db, engine,
                                                         context, config):
    holder = holder_plan(db, context)
    uuid, recovery = waiting_recovery(db, context, engine)
    wait_plan(context, holder, P.CANCELLING)
    assert needs_owner(context, uuid)
    # No end comes; the self-check looks again, past the timeout.
    config.config(preemption_timeout=0, group='instance_ha')
    engine.owner.self_check()
    row = wait_state(context, uuid, statuses.ERROR)
    assert 'the recovery plan could not start' in row['message']
    assert holder in row['message']
    assert plan_state(context, recovery) == P.RECOMMENDED
