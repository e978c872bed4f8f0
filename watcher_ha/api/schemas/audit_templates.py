"""Audit templates: response fields and request bodies."""

from watcher_ha.api import fields as f
from watcher_ha.api import inputs as i

TEMPLATE = f.Fields(
    'audit_templates',
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('name', f.STRING, in_list=True),
    f.Field('description', f.NULLABLE_STRING),
    f.Field('goal_uuid', f.UUID, in_list=True),
    f.Field('goal_name', f.STRING, in_list=True),
    f.Field('strategy_uuid', f.NULLABLE_UUID, in_list=True),
    f.Field('strategy_name', f.NULLABLE_STRING, in_list=True),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
    f.Field('scope', f.ARRAY, in_list=True),
    # Watcher shows {} (not null) for a template created without defaults.
    f.Field('default_parameters', f.OBJECT,
            since='1.7',
            getter=lambda row, output: row['default_parameters'] or {}),
    f.Field('created_at', f.DATETIME, getter=f.timestamp('created_at')),
    f.Field('deleted_at', f.NULLABLE_DATETIME, getter=f.always_none),
    f.Field('updated_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('updated_at')),
)

NAME = {'type': 'string', 'minLength': 1, 'maxLength': 63}
DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 255}
REFERENCE = {'type': 'string', 'minLength': 1, 'maxLength': 255}
SCOPE = {'type': 'array', 'items': {'type': 'object'}}

# What a client may send: on create, and in the document a patch changes.
INPUT = i.Inputs(
    'audit_template_postdata',
    i.Input('name', create=NAME, patch=i.SAME, required=True,
            mandatory=True),
    i.Input('description', create=DESCRIPTION, patch=i.SAME, stored=True),
    i.Input('goal', create=REFERENCE, patch=i.SAME, required=True,
            mandatory=True, shown=lambda row: row['goal_uuid']),
    i.Input('strategy', create={'type': ['string', 'null'], 'maxLength': 255},
            patch=i.SAME, shown=lambda row: row['strategy_uuid']),
    i.Input('scope', create=SCOPE, patch=i.SAME),
    i.Input('default_parameters', create={'type': ['object', 'null']},
            patch=i.SAME, since='1.7',
            shown=lambda row: row['default_parameters'] or {}),
)
