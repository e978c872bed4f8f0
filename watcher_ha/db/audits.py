"""Audits: SQL for reading, creating, changing and archiving them."""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.common import state_machines
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import engine
from watcher_ha.db import goals
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.db import transitions

Audit = models.Audit
Goal = models.Goal
Strategy = models.Strategy

VIEW = query.View(
    model=Audit,
    not_found=exception.AuditNotFound, not_found_arg='audit',
    references=(goals.GOAL_REFERENCE, goals.STRATEGY_REFERENCE),
    archivable=True,
    lookup=('id', 'uuid', 'name'),
    filters={'goal': query.refers_to(Audit.goal_id, Goal),
             'strategy': query.refers_to(Audit.strategy_id, Strategy)},
)


def get(context, ident):
    return query.get_row(context, VIEW, ident)


@engine.retry_on_deadlock
def create(context, values):
    """Insert a PENDING audit, recording the request that creates it
    (``context``'s); 409 if a live audit has its name."""
    uuid = uuidutils.generate_uuid()
    try:
        with engine.writer.using(context) as session:
            session.execute(sa.insert(Audit).values(
                uuid=uuid, state=AuditState.PENDING,
                request_id=context.request_id, **values))
    except db_exc.DBDuplicateEntry:
        raise exception.AlreadyExists(resource='audit', name=values['name'])
    return get(context, uuid)


@engine.retry_on_deadlock
def update(context, row, values, new_state=None,
           actor=state_machines.USER):
    """Change ``row``'s fields, and its state if ``new_state``, in one
    compare-and-swap UPDATE."""
    try:
        with engine.writer.using(context) as session:
            if new_state is None:
                transitions.update_fields(session, Audit, row, values)
            else:
                if new_state == AuditState.DELETED:
                    values = dict(values, deleted_at=models.utcnow())
                if new_state == AuditState.ONGOING:
                    # Resumed: whatever engine ran it before may have
                    # dropped it meanwhile (a one-shot audit's result is
                    # refused while it is SUSPENDED). Owned by nobody, it
                    # is taken by the first engine to look.
                    values = dict(values, hostname=None)
                transitions.compare_and_swap(
                    session, state_machines.AUDIT, Audit, row, new_state,
                    actor, values)
    except db_exc.DBDuplicateEntry:
        raise exception.AlreadyExists(resource='audit',
                                      name=values.get('name'))
    return query.get_row(context, VIEW, row['uuid'], archived_too=True)


def archive(context, row):
    """DELETE: move to DELETED if the machine allows it, else 400."""
    if not state_machines.AUDIT.is_allowed(row['state'], AuditState.DELETED,
                                           state_machines.USER):
        raise exception.DeleteError(state=row['state'])
    update(context, row, {}, new_state=AuditState.DELETED)


def continuous_by_host(context, hosts):
    """{host: [uuids of the continuous audits it runs]} for ``hosts``."""
    owned = {}
    if not hosts:
        return owned
    with engine.reader.connection.using(context) as conn:
        for host, uuid in conn.execute(
                sa.select(Audit.hostname, Audit.uuid).where(
                    Audit.hostname.in_(hosts),
                    Audit.audit_type == AuditType.CONTINUOUS,
                    Audit.state == AuditState.ONGOING,
                    Audit.deleted_at.is_(None)).order_by(Audit.id)):
            owned.setdefault(host, []).append(uuid)
    return owned


def live_events_of_goal(context, goal):
    """[{uuid, name, state, parameters}] of the EVENT audits of ``goal``
    (a name) that may still run: not cancelled, not archived."""
    with engine.reader.connection.using(context) as conn:
        return [dict(row._mapping) for row in conn.execute(
            sa.select(Audit.uuid, Audit.name, Audit.state, Audit.parameters)
            .join(Goal, Audit.goal_id == Goal.id)
            .where(Goal.name == goal,
                   Audit.audit_type == AuditType.EVENT,
                   Audit.state != AuditState.CANCELLED,
                   Audit.deleted_at.is_(None)).order_by(Audit.id))]
