"""common/tracing.py: a thread works under a request id, and only while
it works on what that request asked for."""

import logging
import threading

import sqlalchemy as sa
from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_log import formatters
from oslo_log import log

from tests import factories
from watcher_ha.common import context
from watcher_ha.common import tracing
from watcher_ha.db import models
from watcher_ha.service import ownership

REQ = 'req-11111111-2222-3333-4444-555555555555'


def _formatted(message):
    conf = cfg.ConfigOpts()
    log.register_options(conf)
    conf([])
    record = logging.LogRecord('watcher_ha.test', logging.INFO, __file__, 1,
                               message, (), None)
    return formatters.ContextFormatter(config=conf).format(record)


def _in_thread(func):
    result = []
    thread = threading.Thread(target=lambda: result.append(func()))
    thread.start()
    thread.join()
    return result[0]


def test_lines_and_admin_contexts_carry_the_request_id_meanwhile():
    def work():
        with tracing.working_on(REQ):
            inside = (_formatted('working'), context.admin_context())
        return inside, _formatted('done'), context.admin_context()
    (line, admin), after, admin_after = _in_thread(work)
    assert ' %s ' % REQ in line
    # What the daemon stores or casts meanwhile names the request too.
    assert admin.request_id == REQ and admin.is_admin
    assert REQ not in after
    assert admin_after.request_id != REQ


def test_no_request_id_hides_the_one_worked_under_before():
    def work():
        with tracing.working_on(REQ):
            with tracing.working_on(None):
                hidden = _formatted('other work')
            again = _formatted('back')
        return hidden, again
    hidden, again = _in_thread(work)
    assert REQ not in hidden
    assert REQ in again


def test_the_previous_context_is_restored():
    def work():
        mine = context.RequestContext(request_id='req-mine')
        with tracing.working_on(REQ):
            pass
        return oslo_context.get_current() is mine
    assert _in_thread(work)


def test_an_explicit_request_id_wins_over_the_threads():
    def work():
        with tracing.working_on(REQ):
            return context.admin_context(request_id='req-given').request_id
    assert _in_thread(work) == 'req-given'


class _Domain:
    kind = 'traced-row'

    def __init__(self):
        self.seen = []
        self.done = threading.Event()

    def held(self, context):
        return []

    def request_id(self, uuid):
        return {'row-1': REQ}.get(uuid)

    def take(self, uuid):
        self.seen.append((uuid, _formatted('taking %s' % uuid)))
        if len(self.seen) == 2:
            self.done.set()

    def interrupt(self, uuids, why=None):
        return set()

    def release(self, context):
        pass


def test_an_owned_rows_job_runs_under_its_request_id():
    domain = _Domain()
    # One worker: the second job runs in the thread the first one used.
    owner = ownership.Owner(domain, 'me', 1, threading.Event())
    owner.start(None)
    try:
        owner.submit('row-1', domain.take, 'row-1')
        owner.submit('row-2', domain.take, 'row-2')
        assert domain.done.wait(5)
    finally:
        owner.stop(1)
    lines = dict(domain.seen)
    assert REQ in lines['row-1']
    assert REQ not in lines['row-2']


def _request_id_column(db, table, uuid):
    model = {'audits': models.Audit, 'action_plans': models.ActionPlan}[table]
    with db.connect() as conn:
        return conn.execute(sa.select(model.request_id).where(
            model.uuid == uuid)).scalar()


def test_the_api_records_the_request_ids_it_answers_with(api, db):
    created = api.post('/v1/audits', body={
        'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'EVENT'},
        headers={'X-Openstack-Request-Id': REQ})
    assert created.status == 201, created
    answered = created.headers['X-Openstack-Request-Id']
    # The client's id is the global one; the API answers with its own.
    assert answered.startswith('req-') and answered != REQ
    assert _request_id_column(db, 'audits', created.json['uuid']) == answered
    assert 'request_id' not in created.json

    audit = factories.audit(db, request_id=answered)
    plan, _ = factories.action_plan(db, audit)
    started = api.post('/v1/action_plans/%s/start' % plan['uuid'], body={})
    assert started.status == 200, started
    assert _request_id_column(db, 'action_plans', plan['uuid']) == (
        started.headers['X-Openstack-Request-Id'])
    assert 'request_id' not in started.json
    listed = api.get('/v1/audits?sort_key=request_id')
    assert listed.status == 400
