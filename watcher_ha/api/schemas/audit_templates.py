"""Audit templates: response fields and request bodies."""

from watcher_ha.api import fields as f

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

CREATE = {
    'type': 'object',
    'properties': {
        'name': NAME,
        'description': DESCRIPTION,
        'goal': REFERENCE,
        'strategy': {'type': ['string', 'null'], 'maxLength': 255},
        'scope': SCOPE,
        'default_parameters': {'type': ['object', 'null']},
    },
    'required': ['name', 'goal'],
    'additionalProperties': False,
}

# The patchable document: what a JSON patch is applied to.
PATCHABLE = ('/name', '/description', '/goal', '/strategy', '/scope',
             '/default_parameters')
MANDATORY = ('/name', '/goal')

PATCHED = {
    'type': 'object',
    'properties': {
        'name': NAME,
        'description': DESCRIPTION,
        'goal': REFERENCE,
        'strategy': {'type': ['string', 'null'], 'maxLength': 255},
        'scope': SCOPE,
        'default_parameters': {'type': ['object', 'null']},
    },
    'additionalProperties': False,
}
