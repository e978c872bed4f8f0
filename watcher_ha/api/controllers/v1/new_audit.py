"""The rules a new audit passes, and the row they make of a create body.

A body names its goal (and strategy) directly or through an audit
template, whose goal, scope and default parameters it then takes; its
own parameters win over the template's defaults and must suit the
strategy. Its type fixes whether it takes an interval and a time window.
"""

from watcher_ha.api.controllers.v1 import references
from watcher_ha.api.schemas import audits as schema
from watcher_ha.common import audit_schedule
from watcher_ha.common import exception
from watcher_ha.common import interval as intervals
from watcher_ha.common import parameters
from watcher_ha.common.states import AuditType
from watcher_ha.db import models


def values(context, body, requested):
    """The values of the audit ``body`` (checked against the create
    schema) asks for, as ``db.audits.create`` takes them; ``requested``:
    the request's microversion.Requested. A 400 (406 for a field the
    version does not accept) for a body breaking a rule."""
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
    start_time = audit_schedule.parse_time('start_time',
                                           body.get('start_time'))
    end_time = audit_schedule.parse_time('end_time', body.get('end_time'))
    audit_schedule.check(audit_type, interval, start_time, end_time)
    if ((start_time or end_time)
            and not requested.at_least(schema.INPUT['start_time'].since)):
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
    return dict(
        schema.INPUT.stored_values(body),
        name=name,
        audit_type=audit_type,
        parameters=checked,
        interval=interval,
        goal_id=goal['id'],
        strategy_id=strategy['id'] if strategy else None,
        scope=scope,
        start_time=start_time,
        end_time=end_time,
    )


def _generated_name(prefix):
    """``<prefix>-<now>``, cut to fit the name's length."""
    stamp = models.utcnow().isoformat()
    room = schema.NAME['maxLength'] - len(stamp) - 1
    return '%s-%s' % (prefix[:room], stamp)
