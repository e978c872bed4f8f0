"""Action plans and actions: response fields and PATCH documents."""

from watcher_ha.api import fields as f
from watcher_ha.common import pipelines
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState

INDICATORS = {'type': 'array', 'items': {
    'type': 'object',
    'required': ['name', 'description', 'unit', 'value'],
    'properties': {'name': f.STRING, 'description': f.NULLABLE_STRING,
                   'unit': f.NULLABLE_STRING,
                   'value': {'type': ['number', 'null']}}}}

ACTION_PLAN = f.Fields(
    'action_plans',
    f.Field('efficacy_indicators', INDICATORS, in_list=True),
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('audit_uuid', f.NULLABLE_UUID, in_list=True),
    # The pipeline that made the plan (null for an audit's); before this
    # version, pipelines' plans are not shown at all.
    f.Field('audit_pipeline_uuid', f.NULLABLE_UUID, in_list=True,
            since=pipelines.SINCE),
    f.Field('strategy_uuid', f.NULLABLE_UUID, in_list=True),
    f.Field('strategy_name', f.NULLABLE_STRING, in_list=True),
    f.Field('global_efficacy', f.ARRAY, in_list=True),
    f.Field('state', f.STRING, in_list=True),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
    f.Field('hostname', f.NULLABLE_STRING),
    f.Field('status_message', f.NULLABLE_STRING, since='1.5'),
    f.Field('created_at', f.DATETIME, getter=f.timestamp('created_at')),
    f.Field('deleted_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('deleted_at')),
    f.Field('updated_at', f.NULLABLE_DATETIME, in_list=True,
            getter=f.timestamp('updated_at')),
)

ACTION = f.Fields(
    'actions',
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('action_plan_uuid', f.UUID, in_list=True),
    f.Field('state', f.STRING, in_list=True),
    f.Field('action_type', f.STRING, in_list=True),
    f.Field('description', f.STRING),
    f.Field('input_parameters', f.OBJECT),
    f.Field('parents', {'type': 'array', 'items': f.UUID}, in_list=True),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
    f.Field('status_message', f.NULLABLE_STRING, since='1.5'),
    f.Field('created_at', f.DATETIME, getter=f.timestamp('created_at')),
    f.Field('deleted_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('deleted_at')),
    f.Field('updated_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('updated_at')),
)

PLAN_STATES = [ActionPlanState.RECOMMENDED, ActionPlanState.PENDING,
               ActionPlanState.ONGOING, ActionPlanState.SUCCEEDED,
               ActionPlanState.FAILED, ActionPlanState.CANCELLING,
               ActionPlanState.CANCELLED, ActionPlanState.SUPERSEDED,
               ActionPlanState.DELETED]
ACTION_STATES = [ActionState.PENDING, ActionState.ONGOING,
                 ActionState.SUCCEEDED, ActionState.FAILED,
                 ActionState.CANCELLING, ActionState.CANCELLED,
                 ActionState.SKIPPED, ActionState.DELETED]

PLAN_PATCHABLE = ('/state',)
ACTION_PATCHABLE = ('/state', '/status_message')
