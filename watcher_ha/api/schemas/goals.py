"""``/v1/goals``: what the API shows of a goal."""

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
