"""``/v1/strategies``: what the API shows of a strategy."""

from watcher_ha.api import fields as f

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
