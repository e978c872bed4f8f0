"""State changes as compare-and-swap UPDATEs checked against the machines.

Two hosts may race on any row with a life cycle. Each change is a single
``UPDATE ... WHERE id = :id AND state IN (:allowed sources) [AND version =
:seen]``; the loser's UPDATE matches no row and gets a clean error: 409 if
the row changed since it was read, 400 if the move is simply not allowed.
"""

import sqlalchemy as sa

from watcher_ha.common import exception
from watcher_ha.db import engine
from watcher_ha.db import models


def _conflict(session, model, row):
    """The error for a lost compare-and-swap, naming the state it lost to."""
    state = None
    if hasattr(model, 'state'):
        state = session.execute(
            sa.select(model.state).where(model.id == row['id'])).scalar()
    return exception.StateConflict(
        resource=model.__name__, uuid=row['uuid'],
        now='it is now %s' % state if state else 'it changed')


def compare_and_swap(session, machine, model, row, target, actor,
                     values=None, check_version=True, also_where=()):
    """Move ``row`` (a dict with id, uuid, state, version) to ``target``.

    ``values`` are other columns set in the same UPDATE (e.g. hostname);
    ``also_where`` are extra conditions the UPDATE must meet. Returns the
    new version. Must run inside a writer transaction.
    """
    if not machine.is_allowed(row['state'], target, actor):
        raise exception.StateTransitionNotAllowed(current=row['state'],
                                                  new=target)
    sources = machine.sources_of(target, actor)
    stmt = (sa.update(model)
            .where(model.id == row['id'], model.state.in_(sources),
                   *also_where)
            .values(state=target, version=model.version + 1,
                    updated_at=models.utcnow(), **(values or {})))
    if check_version:
        stmt = stmt.where(model.version == row['version'])
    if session.execute(stmt).rowcount != 1:
        raise _conflict(session, model, row)
    return row['version'] + 1


def update_fields(session, model, row, values):
    """Change non-state columns of ``row`` if nobody changed it since."""
    stmt = (sa.update(model)
            .where(model.id == row['id'], model.version == row['version'])
            .values(version=model.version + 1, updated_at=models.utcnow(),
                    **values))
    if session.execute(stmt).rowcount != 1:
        raise _conflict(session, model, row)
    return row['version'] + 1


@engine.retry_on_deadlock
def transition(context, machine, model, row, target, actor, values=None,
               check_version=True):
    """``compare_and_swap`` in its own writer transaction."""
    with engine.writer.using(context) as session:
        return compare_and_swap(session, machine, model, row, target, actor,
                                values, check_version)
