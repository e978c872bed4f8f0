"""Sending watcher_ha's notifications, after the change they describe has
committed. Each send reads the rows it describes afresh, so a payload
never shows a state that was rolled back. The change is made and its
notification owed: should the database go away between the commit and
that read (a restart, a failover behind HAProxy: seconds), the read is
made again for up to OUTAGE_WAIT seconds. A longer outage loses the
notification, with a warning; then the sends that follow try once each
until a read goes through again, so that one outage holds up a thread
(a periodic task, an API request) once, not once per notification.

Nothing is built when no notification driver is configured
([oslo_messaging_notifications] driver).
"""

import threading

import oslo_messaging
import sqlalchemy as sa
import tenacity
from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log

from watcher_ha.common import context as watcher_context
from watcher_ha.db import action_plans
from watcher_ha.db import audit_pipelines
from watcher_ha.db import audits
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.notifications import payloads

CONF = cfg.CONF
LOG = log.getLogger(__name__)

_NOTIFIER = None
_LOCK = threading.Lock()

# How long the read of a payload waits for the database to answer again.
OUTAGE_WAIT = 30
# Set when that wait ran out, cleared by the next read that goes through.
_WAITED_IN_VAIN = threading.Event()


def get_notifier():
    global _NOTIFIER
    if _NOTIFIER is None:
        with _LOCK:
            if _NOTIFIER is None:
                transport = oslo_messaging.get_notification_transport(CONF)
                _NOTIFIER = oslo_messaging.Notifier(
                    transport, publisher_id='infra-optim:%s' % CONF.host)
    return _NOTIFIER


def reset():
    global _NOTIFIER
    _NOTIFIER = None
    _WAITED_IN_VAIN.clear()


def _row(model, row_id):
    if row_id is None:
        return None
    with engine.reader.connection.using(
            watcher_context.admin_context()) as conn:
        found = conn.execute(sa.select(model.__table__).where(
            model.id == row_id)).first()
    return dict(found._mapping) if found else None


def _unreachable(error):
    """``error`` says the database could not be reached (oslo.db files
    a lost connection as DBConnectionError; a refused one reaches us as
    the driver's OperationalError)."""
    return isinstance(error, (db_exc.DBConnectionError,
                              sa.exc.OperationalError))


def _read_through_outage(build):
    """``build()``, called again while the database cannot be reached,
    for up to OUTAGE_WAIT seconds (once only after a wait ran out)."""
    retrying = tenacity.Retrying(
        stop=(tenacity.stop_after_attempt(1) if _WAITED_IN_VAIN.is_set()
              else tenacity.stop_after_delay(OUTAGE_WAIT)),
        wait=tenacity.wait_exponential(multiplier=0.25, max=4),
        retry=tenacity.retry_if_exception(_unreachable),
        reraise=True)
    try:
        payload = retrying(build)
    except Exception as err:
        if _unreachable(err):
            _WAITED_IN_VAIN.set()
        raise
    _WAITED_IN_VAIN.clear()
    return payload


def _send(event_type, payload_builder, error=None):
    notifier = get_notifier()
    if not notifier.is_enabled():
        return
    try:
        payload = _read_through_outage(payload_builder)
        context = watcher_context.admin_context().to_dict()
        if error is None:
            notifier.info(context, event_type, payload)
        else:
            notifier.error(context, event_type, payload)
    except Exception as err:  # noqa: BLE001
        # A notification is a courtesy: the change it reports is made.
        LOG.warning('Could not send %s: %s', event_type, err)


def _audit_row(uuid):
    return query.get_row(watcher_context.admin_context(), audits.VIEW, uuid,
                         archived_too=True)


def _plan_row(uuid):
    return query.get_row(watcher_context.admin_context(),
                         action_plans.PLAN_VIEW, uuid, archived_too=True)


PAYLOAD_NAMES = {
    'create': 'Create', 'update': 'Update', 'delete': 'Delete',
}


def _payload(kind, event, row, old_state, error, other, **state_extra):
    """(the payload's name, its extra fields) of an ``event`` of a
    ``kind`` ('Audit', 'ActionPlan', 'Action'): <kind><Event>Payload for
    create, update (with its state change) and delete; ``other`` (the
    name), with the fault of ``error``, for the others."""
    if event not in PAYLOAD_NAMES:
        return other, {'fault': payloads.fault(error)}
    extra = {}
    if event == 'update':
        extra['state_update'] = payloads.state_update(
            '%sStateUpdatePayload' % kind, old_state, row['state'],
            **state_extra)
    return '%s%sPayload' % (kind, PAYLOAD_NAMES[event]), extra


def audit(event, uuid, old_state=None, error=None):
    """audit.create|update|delete, or audit.strategy.* / audit.planner.*
    (``event`` is then 'strategy.start', 'planner.error'...)."""
    def build():
        row = _audit_row(uuid)
        name, extra = _payload('Audit', event, row, old_state, error,
                               'AuditActionPayload')
        return payloads.audit(name, row, _row(models.Goal, row['goal_id']),
                              _row(models.Strategy, row['strategy_id']),
                              **extra)
    _send('audit.' + event, build, error)


def audit_pipeline(event, uuid, old_state=None, error=None):
    """audit_pipeline.create|update|delete, or audit_pipeline.strategy.*
    (each stage) and audit_pipeline.planner.* (the pipeline planner)."""
    def build():
        row = audit_pipelines.with_stages(
            watcher_context.admin_context(),
            [audit_pipelines.get(watcher_context.admin_context(), uuid,
                                 archived_too=True)])[0]
        name, extra = _payload('AuditPipeline', event, row, old_state, error,
                               'AuditPipelineActionPayload',
                               status_message=row['status_message'])
        return payloads.audit_pipeline(name, row, **extra)
    _send('audit_pipeline.' + event, build, error)


def action_plan(event, uuid, old_state=None, error=None):
    """action_plan.create|update|delete, or action_plan.execution.* and
    action_plan.cancel.*."""
    def build():
        row = _plan_row(uuid)
        name, extra = _payload(
            'ActionPlan', event, row, old_state, error,
            'ActionPlanCancelPayload' if event.startswith('cancel')
            else 'ActionPlanActionPayload')
        audit_row = _audit_row(row['audit_uuid']) if row['audit_uuid'] \
            else None
        return payloads.action_plan(
            name, row, audit_row, _row(models.Strategy, row['strategy_id']),
            **extra)
    _send('action_plan.' + event, build, error)


def action(event, uuid, old_state=None, error=None):
    """action.create|update|delete, or action.execution.*."""
    def build():
        row = query.get_row(watcher_context.admin_context(),
                            action_plans.ACTION_VIEW, uuid,
                            archived_too=True)
        name, extra = _payload(
            'Action', event, row, old_state, error,
            'ActionCancelPayload' if event.startswith('cancel')
            else 'ActionExecutionPayload',
            status_message=row['status_message'])
        return payloads.action(name, row,
                               _plan_row(row['action_plan_uuid']), **extra)
    _send('action.' + event, build, error)


def actions_followed(moved, deleted=False):
    """action.update (action.delete if ``deleted``) for the actions that
    followed their plan: the (uuid, state before) pairs that
    action_plans.transition returns."""
    for uuid, old_state in moved:
        if deleted:
            action('delete', uuid)
        else:
            action('update', uuid, old_state=old_state)


def plan_ended(uuid, ended, message=None):
    """What an applier announces once a plan's end is recorded (``ended``,
    plan_runs.Ended): the plan's update, its actions that followed it, and
    the end of its execution or of its cancel (cancel.start, when it ends
    CANCELLED, then cancel.end)."""
    message = message or ended.message
    if ended.state == 'CANCELLED':
        action_plan('cancel.start', uuid)
    action_plan('update', uuid, old_state=ended.before)
    actions_followed(ended.cancelled)
    if ended.state == 'FAILED':
        action_plan('execution.error', uuid, error=RuntimeError(message))
    elif ended.state == 'CANCELLED':
        action_plan('cancel.end', uuid)
    else:
        action_plan('execution.end', uuid)


def service_update(row, old_status, new_status):
    """service.update: a daemon went FAILED or came back ACTIVE."""
    _send('service.update', lambda: payloads.service_update(
        row, old_status, new_status))
