"""Audit templates: named goal/strategy/scope presets for audits."""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.db import engine
from watcher_ha.db import goals
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
    references=(goals.GOAL_REFERENCE, goals.STRATEGY_REFERENCE),
    lookup=('id', 'uuid', 'name'),
    filters={'goal': query.refers_to(AuditTemplate.goal_id, Goal),
             'strategy': query.refers_to(AuditTemplate.strategy_id,
                                         Strategy)},
)


def get(context, ident):
    return query.get_row(context, VIEW, ident)


@engine.retry_on_deadlock
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


@engine.retry_on_deadlock
def update(context, row, values):
    """Change fields of ``row`` unless someone changed it since it was read."""
    try:
        with engine.writer.using(context) as session:
            transitions.update_fields(session, AuditTemplate, row, values)
    except db_exc.DBDuplicateEntry:
        raise exception.AlreadyExists(resource='audit_template',
                                      name=values.get('name'))
    return get(context, row['uuid'])


@engine.retry_on_deadlock
def delete(context, row):
    with engine.writer.using(context) as session:
        session.execute(sa.delete(AuditTemplate).where(
            AuditTemplate.id == row['id']))
