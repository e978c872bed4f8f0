"""``/v1/actions``: read, and from 1.5 skipped by operators."""

import functools

from watcher_ha.api import method
from watcher_ha.api import patch
from watcher_ha.api.controllers.v1 import action_plans
from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import action_plans as schema
from watcher_ha.common import exception
from watcher_ha.common import plugins
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionState
from watcher_ha.db import action_plans as db
from watcher_ha.notifications import notifier
from watcher_ha.policies import action as action_policy
from watcher_ha.policies import policy

SKIP_VERSION = '1.5'
SKIPPED_BY_USER = 'Action skipped by user.'


@functools.lru_cache(maxsize=1)
def _descriptions():
    """{action type: description} from the installed action plugins."""
    return {name: getattr(plugin, 'description', '') or ''
            for name, plugin in plugins.load_classes(plugins.ACTIONS).items()}


def _with_description(row):
    row['description'] = _descriptions().get(row['action_type'], '')
    return row


class ActionsController(base.ResourceController):
    view = db.ACTION_VIEW
    fields = schema.ACTION
    policy_module = action_policy

    def _filters(self, params):
        filters = super()._filters(params)
        if filters['action_plan_uuid'] and filters['audit_uuid']:
            raise exception.ActionFilterCombinationProhibited()
        for value in filters.values():
            if value is not None:
                action_plans.require_uuid(value)
        return filters

    def _annotate(self, context, rows):
        return [_with_description(row) for row in rows]

    def _find(self, context, ident):
        # Actions are named by UUID only.
        return super()._find(context, action_plans.require_uuid(ident))

    @method.expose()
    def patch(self, call, ident):
        context = call.context
        policy.authorize(action_policy.UPDATE, context)
        if not call.version_at_least(SKIP_VERSION):
            raise exception.Invalid('API microversion %s or higher is '
                                    'required.' % SKIP_VERSION)
        ops = patch.parse(call.json_body())
        row = self._find(context, ident)
        for op in ops:
            if patch.root(op) not in schema.ACTION_PATCHABLE:
                raise exception.Invalid(
                    "'%s' is not an allowed attribute and can not be "
                    "updated" % patch.root(op))
        document = {'state': row['state'],
                    'status_message': row['status_message']}
        new = patch.apply(document, ops, schema.ACTION_PATCHABLE,
                          mandatory=schema.ACTION_PATCHABLE)
        if new['state'] not in schema.ACTION_STATES:
            raise exception.PatchError(patch=patch.patch_repr(ops),
                                       reason='Invalid state: %s'
                                              % new['state'])
        message = new['status_message']
        if message is not None and not isinstance(message, str):
            raise exception.InvalidField(
                field='status_message', value="'%s'" % (message,),
                reason='Expected a string.')
        new_state = None
        if new['state'] != row['state']:
            if not state_machines.ACTION.is_allowed(
                    row['state'], new['state'], state_machines.USER):
                raise exception.Conflict(
                    'State transition not allowed: (%s -> %s)'
                    % (row['state'], new['state']))
            new_state = new['state']
        if new_state is None and message == row['status_message']:
            return self.serialize(call, row)
        if new_state is None and row['state'] != ActionState.SKIPPED:
            raise exception.Conflict(
                'status_message update only allowed when action state is '
                'SKIPPED')
        reason = message if message != row['status_message'] else None
        values = {'status_message': SKIPPED_BY_USER + (
            ' Reason: %s' % reason if reason else '')}
        try:
            updated = db.update_action(context, row, values, new_state)
        except exception.StateConflict:
            plan = db.get_plan(context, row['action_plan_uuid'])
            if plan['state'] not in db.SKIPPABLE_PLAN_STATES:
                raise exception.Conflict(
                    'State update not allowed for actionplan state: %s'
                    % plan['state'])
            raise
        notifier.action('update', row['uuid'], old_state=row['state'])
        return self.serialize(call, _with_description(updated))
