"""What the daemons receive of the caller's context over RPC: who asked and
the request ids, never the caller's Keystone token nor a service token."""

import json
import threading
import uuid

import pytest

from tests.helpers import in_process
from watcher_ha.applier import rpcapi as applier_rpcapi
from watcher_ha.common import context as watcher_context
from watcher_ha.decision_engine import rpcapi as engine_rpcapi
from watcher_ha.service import rpc

TOKEN = 'gAAAAAB-user-token'
SERVICE_TOKEN = 'gAAAAAB-service-token'


class Spy:
    """RPC endpoints noting the context each message arrived with, by the
    UUID or name it is about (the in-process bus may still hold other
    tests' casts)."""

    def __init__(self):
        self.contexts = {}
        self.received = threading.Event()

    def _note(self, context, key):
        self.contexts[key] = context
        self.received.set()

    def trigger_audit(self, context, audit_uuid):
        self._note(context, audit_uuid)

    def launch_action_plan(self, context, action_plan_uuid):
        self._note(context, action_plan_uuid)

    def get_strategy_info(self, context, strategy_name):
        self._note(context, strategy_name)
        return []


@pytest.fixture
def spy(conf):
    with in_process.daemon_endpoints(Spy()) as spy:
        yield spy


def received(spy, key, timeout=5.0):
    for _ in range(int(timeout / 0.05)):
        if key in spy.contexts:
            return spy.contexts[key]
        spy.received.wait(0.05)
        spy.received.clear()
    raise AssertionError('nothing received about %s' % key)


@pytest.fixture
def user_context():
    return watcher_context.RequestContext(
        auth_token=TOKEN, service_token=SERVICE_TOKEN, user_id='alice',
        project_id='project-a', roles=['admin'], request_id='req-1234')


def assert_no_secrets(context):
    sent = json.dumps(context)
    assert TOKEN not in sent
    assert SERVICE_TOKEN not in sent
    assert not rpc.SECRET_CONTEXT_KEYS & set(context)
    # What the logs and the receivers use is kept.
    assert context['request_id'] == 'req-1234'
    assert context['user'] == 'alice'
    assert context['roles'] == ['admin']


def test_casts_carry_no_token(spy, user_context):
    audit, plan = str(uuid.uuid4()), str(uuid.uuid4())
    engine_rpcapi.DecisionEngineAPI().trigger_audit(user_context, audit)
    applier_rpcapi.ApplierAPI().launch_action_plan(user_context, plan)
    assert_no_secrets(received(spy, audit))
    assert_no_secrets(received(spy, plan))


def test_calls_carry_no_token(spy, user_context):
    assert engine_rpcapi.DecisionEngineAPI().get_strategy_info(
        user_context, 'dummy') == []
    assert_no_secrets(received(spy, 'dummy'))
