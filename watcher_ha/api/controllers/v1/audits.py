"""``/v1/audits``."""

import pecan
from oslo_utils import timeutils

from watcher_ha.api import fields
from watcher_ha.api import method
from watcher_ha.api import patch
from watcher_ha.api import request
from watcher_ha.api import validation
from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.controllers.v1 import references
from watcher_ha.api.schemas import audits as schema
from watcher_ha.common import exception
from watcher_ha.common import interval as intervals
from watcher_ha.common import parameters
from watcher_ha.common import state_machines
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import audits as db
from watcher_ha.db import models
from watcher_ha.decision_engine import rpcapi
from watcher_ha.notifications import notifier
from watcher_ha.policies import audit as audit_policy
from watcher_ha.policies import policy

NAME_MAX = 63
TIMES_VERSION = '1.1'
# Paths Watcher names as never updatable, with its wording.
FIXED = ('/audit_template_uuid', '/type', '/audit_type', '/goal',
         '/strategy', '/scope')


def _parse_time(name, value):
    """An ISO 8601 time as naive UTC; a time without offset is UTC."""
    if value is None:
        return None
    try:
        # Converting to UTC overflows near the ends of the calendar
        # (0001-01-01T00:00:00+01:00).
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except (ValueError, OverflowError):
        raise exception.InvalidField(
            field=name, value="'%s'" % value,
            reason='Expected an ISO 8601 date and time such as '
                   '2030-01-01T08:00:00Z, between years 1 and 9999 in '
                   'UTC.')


def _check_schedule(audit_type, interval, start_time, end_time):
    """Rules tying the audit type to its interval and time window."""
    if audit_type == AuditType.CONTINUOUS and interval is None:
        raise exception.Invalid(
            'Interval of audit must be specified for CONTINUOUS.')
    if audit_type != AuditType.CONTINUOUS and interval is not None:
        raise exception.Invalid(
            'Interval of audit must not be set for %s.' % audit_type)
    if audit_type == AuditType.ONESHOT and (start_time or end_time):
        raise exception.Invalid(
            'Start or End time of audit must not be set for ONESHOT.')
    if start_time and end_time and end_time <= start_time:
        raise exception.Invalid(
            'end_time (%s) must be later than start_time (%s).'
            % (end_time.isoformat(), start_time.isoformat()))


def _generated_name(prefix):
    stamp = models.utcnow().isoformat()
    return '%s-%s' % (prefix[:NAME_MAX - len(stamp) - 1], stamp)


class AuditsController(base.ResourceController):
    collection = 'audits'
    view = db.VIEW
    fields = schema.AUDIT
    policy_module = audit_policy
    filter_names = ('goal', 'strategy')

    @method.expose(status_code=201)
    def post(self, **params):
        context = request.context()
        policy.authorize(audit_policy.CREATE, context)
        body = request.json_body()
        validation.validate(schema.CREATE, body, 'audit_p')
        values = self._new_audit(context, body)
        row = db.create(context, values)
        notifier.audit('create', row['uuid'])
        # An event audit waits for its webhook. The others start now on
        # the engine the cast reaches (a continuous one then moves to its
        # owner on the ring); without the cast they would wait for an
        # engine's sweep of PENDING audits.
        if row['audit_type'] != AuditType.EVENT:
            rpcapi.DecisionEngineAPI().trigger_audit(context, row['uuid'])
        pecan.response.location = self._links(row['uuid'])[0]['href']
        return self.serialize(row)

    def _new_audit(self, context, body):
        audit_type = body['audit_type']
        if audit_type not in AuditType.ALL:
            raise exception.Invalid(
                'Audit type %s could not be found; use one of %s.'
                % (audit_type, ', '.join(AuditType.ALL)))
        template_ref = body.get('audit_template_uuid')
        if not template_ref and not body.get('goal'):
            raise exception.Invalid(
                'A valid goal or audit_template_id must be provided')
        if template_ref and body.get('goal'):
            raise exception.Invalid(
                'Either audit_template_uuid or goal should be provided.')
        interval = intervals.normalize(body.get('interval'))
        start_time = _parse_time('start_time', body.get('start_time'))
        end_time = _parse_time('end_time', body.get('end_time'))
        _check_schedule(audit_type, interval, start_time, end_time)
        if ((start_time or end_time)
                and not request.version_at_least(TIMES_VERSION)):
            raise exception.NotAcceptable()

        template = None
        goal_ref, strategy_ref = body.get('goal'), body.get('strategy')
        scope, given = [], dict(body.get('parameters') or {})
        if template_ref:
            template = references.template(context, template_ref)
            goal_ref = template['goal_uuid']
            strategy_ref = strategy_ref or template['strategy_uuid']
            scope = template['scope']
            given = dict(template['default_parameters'] or {}, **given)
        goal = references.goal(context, goal_ref)
        strategy = (references.strategy(context, strategy_ref, goal)
                    if strategy_ref else None)
        checked = parameters.check(
            strategy['parameters_spec'] if strategy else None, given)
        name = body.get('name')
        if name:
            name = references.usable_name('Audit', name)
        else:
            name = _generated_name(
                strategy['name'] if strategy else
                template['name'] if template else goal['name'])
        return {
            'name': name,
            'audit_type': audit_type,
            'parameters': checked,
            'interval': interval,
            'goal_id': goal['id'],
            'strategy_id': strategy['id'] if strategy else None,
            'scope': scope,
            'auto_trigger': body.get('auto_trigger', False),
            'force': body.get('force', False),
            'start_time': start_time,
            'end_time': end_time,
        }

    @method.expose()
    def patch(self, ident, **params):
        context = request.context()
        policy.authorize(audit_policy.UPDATE, context)
        ops = patch.parse(request.json_body())
        row = db.get(context, ident)
        for op in ops:
            if patch.root(op) in FIXED:
                raise exception.PatchError(
                    patch=patch.patch_repr(op),
                    reason="%s can't be updated." % patch.root(op))
        document = {
            'name': row['name'], 'state': row['state'],
            'interval': row['interval'], 'parameters': row['parameters'],
            'auto_trigger': row['auto_trigger'], 'force': row['force'],
            'start_time': fields.iso_utc(row['start_time']),
            'end_time': fields.iso_utc(row['end_time']),
            # Shown so that patching them says why it is refused.
            'status_message': row['status_message'],
            'hostname': row['hostname'],
            'next_run_time': fields.iso_utc(row['next_run_time']),
        }
        new = patch.apply(document, ops, schema.PATCHABLE, schema.MANDATORY)
        # patch.apply refused changes to anything else.
        new = {path[1:]: new.get(path[1:]) for path in schema.PATCHABLE}
        validation.validate(schema.PATCHED, new, 'patch')
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
        return self.serialize(updated)

    def _changed_values(self, context, row, old, new):
        interval = new.get('interval')
        if interval != row['interval']:
            # Checked when changed only: an audit accepted under older
            # rules may still be renamed or cancelled.
            interval = intervals.normalize(interval)
        start_time = _parse_time('start_time', new.get('start_time'))
        end_time = _parse_time('end_time', new.get('end_time'))
        _check_schedule(row['audit_type'], interval, start_time, end_time)
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
        for field in ('auto_trigger', 'force'):
            if new[field] != old[field]:
                values[field] = new[field]
        if interval != row['interval']:
            values['interval'] = interval
        if start_time != row['start_time']:
            values['start_time'] = start_time
        if end_time != row['end_time']:
            values['end_time'] = end_time
        return values

    @method.expose(status_code=204)
    def delete(self, ident, **params):
        context = request.context()
        policy.authorize(audit_policy.DELETE, context)
        row = db.get(context, ident)
        db.archive(context, row)
        notifier.audit('delete', row['uuid'])
        rpcapi.DecisionEngineAPI().audit_ended(context, row['uuid'])

