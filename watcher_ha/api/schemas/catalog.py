"""Goals, strategies and scoring engines: what the API shows of them."""

from watcher_ha.api import fields as f

GOAL = f.Fields(
    'goals',
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('name', f.STRING, in_list=True),
    f.Field('display_name', f.STRING, in_list=True),
    f.Field('efficacy_specification', f.ARRAY, in_list=True),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
    f.Field('created_at', f.DATETIME, getter=f.timestamp('created_at')),
    f.Field('updated_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('updated_at')),
    f.Field('deleted_at', f.NULLABLE_DATETIME, getter=f.always_none),
)

STRATEGY = f.Fields(
    'strategies',
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('name', f.STRING, in_list=True),
    f.Field('display_name', f.STRING, in_list=True),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
    f.Field('goal_uuid', f.UUID, in_list=True),
    f.Field('goal_name', f.STRING, in_list=True),
    f.Field('parameters_spec', f.OBJECT),
)

SCORING_ENGINE = f.Fields(
    'scoring_engines',
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('name', f.STRING, in_list=True),
    f.Field('description', f.NULLABLE_STRING, in_list=True),
    f.Field('metainfo', f.NULLABLE_STRING),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
)
