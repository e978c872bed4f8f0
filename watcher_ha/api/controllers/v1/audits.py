"""``/v1/audits``."""

from watcher_ha.api import patch
from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.controllers.v1 import new_audit
from watcher_ha.api.controllers.v1 import references
from watcher_ha.api.schemas import audits as schema
from watcher_ha.common import audit_schedule
from watcher_ha.common import exception
from watcher_ha.common import interval as intervals
from watcher_ha.common import parameters
from watcher_ha.common import state_machines
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import audits as db
from watcher_ha.decision_engine import rpcapi
from watcher_ha.notifications import notifier
from watcher_ha.policies import audit as audit_policy


class AuditsController(base.EditableController):
    """A created audit starts on an engine (an EVENT audit waits for its
    webhook); a patch renames, reschedules or moves it to another state;
    a delete archives it."""

    view = db.VIEW
    fields = schema.AUDIT
    policy_module = audit_policy
    inputs = schema.INPUT

    def _create(self, call, body):
        context = call.context
        row = db.create(context, new_audit.values(context, body,
                                                  call.requested))
        notifier.audit('create', row['uuid'])
        # An event audit waits for its webhook. The others start now on
        # the engine the cast reaches (a continuous one then moves to its
        # owner on the ring); without the cast they would wait for an
        # engine's sweep of PENDING audits.
        if row['audit_type'] != AuditType.EVENT:
            rpcapi.DecisionEngineAPI().trigger_audit(context, row['uuid'])
        return row

    def _update(self, call, row, ops):
        context = call.context
        document, new = self.inputs.patched(row, ops)
        new_state = None
        # As in Watcher, replacing /state asks for a transition even to the
        # current state (CANCELLED -> CANCELLED is a 400, not a no-op 200),
        # so that of many racing cancels exactly one succeeds.
        state_replaced = any(op['op'] == 'replace' and op['path'] == '/state'
                             for op in ops)
        if new['state'] != row['state'] or state_replaced:
            if not state_machines.AUDIT.is_allowed(
                    row['state'], new['state'], state_machines.USER):
                raise exception.PatchError(
                    patch=patch.patch_repr(ops),
                    reason='State transition not allowed: (%s -> %s)'
                           % (row['state'], new['state']))
            new_state = new['state']
        values = self._changed_values(context, row, document, new)
        updated = db.update(context, row, values, new_state=new_state)
        notifier.audit('update', row['uuid'], old_state=row['state'])
        if new_state == AuditState.ONGOING:
            # Resumed with no owner: the engine the cast reaches takes it
            # (or the first engine's look, if the cast is lost).
            rpcapi.DecisionEngineAPI().trigger_audit(context, row['uuid'])
        elif new_state == AuditState.CANCELLED:
            # An instance-HA recovery's: its owner moves on.
            rpcapi.DecisionEngineAPI().audit_ended(context, row['uuid'])
        return updated

    def _changed_values(self, context, row, old, new):
        interval = new.get('interval')
        if interval != row['interval']:
            # Checked when changed only: an audit accepted under older
            # rules may still be renamed or cancelled.
            interval = intervals.normalize(interval)
        start_time = audit_schedule.parse_time('start_time',
                                               new.get('start_time'))
        end_time = audit_schedule.parse_time('end_time', new.get('end_time'))
        audit_schedule.check(row['audit_type'], interval, start_time,
                             end_time)
        values = {}
        if new['name'] != old['name']:
            values['name'] = references.usable_name('Audit', new['name'])
        if new['parameters'] != old['parameters']:
            strategy = None
            if row['strategy_uuid']:
                strategy = references.strategy(
                    context, row['strategy_uuid'],
                    references.goal(context, row['goal_uuid']))
            values['parameters'] = parameters.check(
                strategy['parameters_spec'] if strategy else None,
                new['parameters'])
        for field in schema.INPUT.stored:
            if new[field.name] != old[field.name]:
                values[field.name] = new[field.name]
        if interval != row['interval']:
            values['interval'] = interval
        if start_time != row['start_time']:
            values['start_time'] = start_time
        if end_time != row['end_time']:
            values['end_time'] = end_time
        return values

    def _delete(self, context, row):
        db.archive(context, row)
        notifier.audit('delete', row['uuid'])
        rpcapi.DecisionEngineAPI().audit_ended(context, row['uuid'])
