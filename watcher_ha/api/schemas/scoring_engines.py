"""``/v1/scoring_engines``: what the API shows of a scoring engine."""

from watcher_ha.api import fields as f

SCORING_ENGINE = f.Fields(
    'scoring_engines',
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('name', f.STRING, in_list=True),
    f.Field('description', f.NULLABLE_STRING, in_list=True),
    f.Field('metainfo', f.NULLABLE_STRING),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
)
