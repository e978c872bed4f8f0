"""Audit templates: named goal/strategy/scope presets for audits."""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.db import transitions

AuditTemplate = models.AuditTemplate
Goal = models.Goal
Strategy = models.Strategy

VIEW = query.View(
    model=AuditTemplate,
    not_found=exception.AuditTemplateNotFound,
    not_found_arg='audit_template',
    extra_columns=(Goal.uuid.label('goal_uuid'),
                   Goal.name.label('goal_name'),
                   Strategy.uuid.label('strategy_uuid'),
                   Strategy.name.label('strategy_name')),
    joins=((Goal, AuditTemplate.goal_id == Goal.id, False),
           (Strategy, AuditTemplate.strategy_id == Strategy.id, True)),
    lookup=('id', 'uuid', 'name'),
    filters={'goal': query.by_uuid_or_name(Goal),
             'strategy': query.by_uuid_or_name(Strategy)},
)


def get(context, ident):
    return query.get_row(context, VIEW, ident)


def create(context, values):
    """Insert a template; 409 if its name is taken. Returns its row."""
    uuid = uuidutils.generate_uuid()
    try:
        with engine.writer.using(context) as session:
            session.execute(sa.insert(AuditTemplate).values(uuid=uuid,
                                                            **values))
    except db_exc.DBDuplicateEntry:
        raise exception.AlreadyExists(resource='audit_template',
                                      name=values['name'])
    return get(context, uuid)


def update(context, row, values):
    """Change fields of ``row`` unless someone changed it since it was read."""
    try:
        with engine.writer.using(context) as session:
            transitions.update_fields(session, AuditTemplate, row, values)
    except db_exc.DBDuplicateEntry:
        raise exception.AlreadyExists(resource='audit_template',
                                      name=values.get('name'))
    return get(context, row['uuid'])


def delete(context, row):
    with engine.writer.using(context) as session:
        session.execute(sa.delete(AuditTemplate).where(
            AuditTemplate.id == row['id']))
