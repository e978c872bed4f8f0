"""Audit pipelines: response fields and request bodies (watcher-specs
audit-pipeline.rst, "REST API impact"). The whole resource is served
from watcher-ha 1.4 (common/pipelines.SINCE)."""

from watcher_ha.api import fields as f
from watcher_ha.api import inputs as i
from watcher_ha.common import pipelines

NAME = {'type': ['string', 'null'], 'maxLength': 63}
DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 255}

STAGE_FIELDS = ('uuid', 'position', 'name', 'description',
                'audit_template_uuid', 'goal_uuid', 'strategy_uuid')
STAGE = {
    'type': 'object',
    'properties': {
        'uuid': f.UUID, 'position': f.INTEGER, 'name': f.NULLABLE_STRING,
        'description': f.NULLABLE_STRING,
        # NULL once the template is deleted: the stage keeps its snapshot.
        'audit_template_uuid': f.NULLABLE_UUID,
        'goal_uuid': f.UUID, 'strategy_uuid': f.NULLABLE_UUID},
    'required': list(STAGE_FIELDS),
    'additionalProperties': False}


def _stages(row, output):
    return [{name: stage[name] for name in STAGE_FIELDS}
            for stage in row['stages']]


PIPELINE = f.Fields(
    'audit_pipelines',
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('name', f.NULLABLE_STRING, in_list=True),
    f.Field('audit_type', {'enum': list(pipelines.AUDIT_TYPES)},
            in_list=True),
    f.Field('execution_mode', {'enum': list(pipelines.EXECUTION_MODES)},
            in_list=True),
    f.Field('state', f.STRING, in_list=True),
    f.Field('auto_trigger', f.BOOLEAN, in_list=True),
    f.Field('stages', {'type': 'array', 'items': STAGE}, getter=_stages),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
    # Watcher's audits show these too.
    f.Field('hostname', f.NULLABLE_STRING),
    f.Field('status_message', f.NULLABLE_STRING),
    f.Field('created_at', f.DATETIME, getter=f.timestamp('created_at')),
    f.Field('updated_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('updated_at')),
    f.Field('deleted_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('deleted_at')),
)

# What a create body may give, per stage: the template and the stage's
# own name and description.
NEW_STAGE = {
    'type': 'object',
    'properties': {
        'name': NAME, 'description': DESCRIPTION,
        'audit_template': {'type': 'string', 'minLength': 1,
                           'maxLength': 255}},
    'required': ['audit_template'],
    'additionalProperties': False}

INPUT = i.Inputs(
    'audit_pipeline',
    i.Input('name', create=NAME),
    i.Input('audit_type', create=f.STRING, required=True),
    i.Input('execution_mode', create=f.STRING, required=True),
    i.Input('auto_trigger', create=f.BOOLEAN, stored=True, default=True),
    # Their count is checked by common/pipelines.py, which says what is
    # wrong more plainly than a schema.
    i.Input('stages', create={'type': 'array', 'items': NEW_STAGE},
            required=True),
)

# PUT: the whole of what may change (the spec's "mutable user fields"),
# each stage named by its uuid, in order.
MUTABLE = ('name', 'auto_trigger', 'stages')
MUTABLE_STAGE = ('uuid', 'name', 'description')
UPDATE = {
    'type': 'object',
    'properties': {
        'name': NAME, 'auto_trigger': f.BOOLEAN,
        'stages': {'type': 'array', 'items': {
            'type': 'object',
            'properties': {'uuid': f.STRING, 'name': NAME,
                           'description': DESCRIPTION},
            'required': ['uuid'],
            'additionalProperties': False}}},
    'required': ['stages'],
    'additionalProperties': False}
