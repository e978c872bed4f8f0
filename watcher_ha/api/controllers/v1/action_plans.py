"""``/v1/action_plans``: produced by audits; started, cancelled, deleted
by operators."""

from oslo_utils import uuidutils

from watcher_ha.api import method
from watcher_ha.api import patch
from watcher_ha.api import request
from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import action_plans as schema
from watcher_ha.applier import rpcapi
from watcher_ha.common import exception
from watcher_ha.common import pipelines
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionPlanState as State
from watcher_ha.db import action_plans as db
from watcher_ha.decision_engine import rpcapi as engine_rpcapi
from watcher_ha.notifications import notifier
from watcher_ha.policies import action_plan as plan_policy
from watcher_ha.policies import policy

# The moves an operator may PATCH: the machine's user moves, except
# deleting, which is DELETE's job.
PATCH_TRANSITIONS = frozenset(
    (source, target)
    for source, target, actors in state_machines.ACTION_PLAN.edges()
    if state_machines.USER in actors and target != State.DELETED)


# The what-if of a plan (ours: decision_engine/what_if/).
WHAT_IF_VERSION = 'watcher-ha 1.3'
WHAT_IF_PARAMS = ('all_hosts',)


def require_uuid(value):
    if not uuidutils.is_uuid_like(value):
        raise exception.InvalidUUID(uuid=value)
    return value


class ActionPlansController(base.ResourceController):
    """Before watcher-ha 1.4 (common/pipelines.SINCE), the plans of audit
    pipelines are not shown, as watcher-specs audit-pipeline.rst says:
    their audit_uuid and strategy_uuid would be null, which no older
    client expects. Named, they are not found."""

    view = db.PLAN_VIEW
    fields = schema.ACTION_PLAN
    policy_module = plan_policy

    def _filters(self, params):
        filters = super()._filters(params)
        if filters['audit_uuid'] is not None:
            require_uuid(filters['audit_uuid'])
        return filters

    def query_filters(self, call):
        hidden = {db.OF_AUDITS}
        if not call.version_at_least(pipelines.SINCE):
            hidden.add('audit_pipeline_uuid')
        return tuple(name for name in self.filter_names
                     if name not in hidden)

    def version_filters(self, call):
        if call.version_at_least(pipelines.SINCE):
            return {}
        return {db.OF_AUDITS: True}

    def _find_shown(self, call, ident):
        """The plan ``ident`` names, if ``call``'s version shows it."""
        row = self._find(call.context, ident)
        if row['audit_pipeline_id'] is not None and not \
                call.version_at_least(pipelines.SINCE):
            raise exception.ActionPlanNotFound(action_plan=ident)
        return row

    @method.expose()
    def get_one(self, call, ident):
        policy.authorize(plan_policy.GET, call.context)
        request.refuse_unknown_params(call.params, ())
        return self.serialize(call, self._find_shown(call, ident))

    def _annotate(self, context, rows):
        indicators = db.indicators_of(context, [row['id'] for row in rows])
        for row in rows:
            row['efficacy_indicators'] = indicators[row['id']]
        return rows

    def _find(self, context, ident):
        # Action plans are named by UUID only.
        return super()._find(context, require_uuid(ident))

    def _launch(self, context, row):
        db.transition(context, row, State.PENDING)
        notifier.action_plan('update', row['uuid'], old_state=row['state'])
        rpcapi.ApplierAPI().launch_action_plan(context, row['uuid'])

    @method.expose()
    def start(self, call, ident):
        context = call.context
        policy.authorize(plan_policy.START, context)
        row = self._find_shown(call, ident)
        if row['state'] != State.RECOMMENDED:
            raise exception.Invalid("Couldn't start when state is '%s'."
                                    % row['state'])
        self._launch(context, row)
        return self.serialize(call, self._find(context, ident))

    @method.expose()
    def what_if(self, call, ident):
        """The plan run on a copy of a decision engine's compute model:
        changes nothing, anywhere."""
        context = call.context
        policy.authorize(plan_policy.WHAT_IF, context)
        if not call.version_at_least(WHAT_IF_VERSION):
            raise exception.NotFound(
                'A plan\'s what-if is served from microversion %s: ask '
                'with "OpenStack-API-Version: %s".'
                % (WHAT_IF_VERSION, WHAT_IF_VERSION))
        request.refuse_unknown_params(call.params, WHAT_IF_PARAMS)
        all_hosts = request.bool_param(call.params, 'all_hosts')
        plan = db.get_projectable(context, require_uuid(ident))
        return engine_rpcapi.DecisionEngineAPI().what_if(
            context, plan['uuid'], all_hosts=all_hosts)

    @method.expose()
    def patch(self, call, ident):
        context = call.context
        policy.authorize(plan_policy.UPDATE, context)
        ops = patch.parse(call.json_body())
        row = self._find_shown(call, ident)
        # The other fields are shown so that patching them says why it is
        # refused.
        document = {'state': row['state'], 'hostname': row['hostname'],
                    'status_message': row['status_message'],
                    'global_efficacy': row['global_efficacy']}
        new = patch.apply(document, ops, schema.PLAN_PATCHABLE,
                          mandatory=schema.PLAN_PATCHABLE)
        target = new['state']
        if target not in schema.PLAN_STATES:
            raise exception.PatchError(patch=patch.patch_repr(ops),
                                       reason='Invalid state: %s' % target)
        if (row['state'], target) not in PATCH_TRANSITIONS:
            raise exception.PatchError(
                patch=patch.patch_repr(ops),
                reason='State transition not allowed: (%s -> %s)'
                       % (row['state'], target))
        if target == State.PENDING:
            self._launch(context, row)
        else:
            moved = db.transition(context, row, target)
            notifier.action_plan('update', row['uuid'],
                                 old_state=row['state'])
            notifier.actions_followed(moved)
            if target in db.ENDED:
                engine_rpcapi.DecisionEngineAPI().plan_ended(context,
                                                             row['uuid'])
        return self.serialize(call, self._find(context, ident))

    @method.expose(status_code=204)
    def delete(self, call, ident):
        context = call.context
        policy.authorize(plan_policy.DELETE, context)
        row = self._find_shown(call, ident)
        try:
            moved = db.transition(context, row, State.DELETED)
        except exception.StateTransitionNotAllowed:
            raise exception.DeleteError(state=row['state'])
        notifier.action_plan('delete', row['uuid'])
        notifier.actions_followed(moved, deleted=True)
        engine_rpcapi.DecisionEngineAPI().plan_ended(context, row['uuid'])
