"""The one write of every row with a life cycle (audits, audit
pipelines, action plans, actions): a compare-and-swap checked against the
state machines.

Two hosts may race on any such row. Every change is one ``UPDATE ... WHERE
<which rows> AND state IN (:allowed) [AND hostname = :owner] [AND version
= :seen]`` that also bumps ``version`` and ``updated_at``: the allowed
states come from the machine (``watcher_ha.common.state_machines``) for a
state change, or are the states the caller expects the row to stay in for
a change of other fields. The loser's UPDATE matches no row: ``write``
says how many rows moved; ``swap`` raises a clean error for one row (409
if it changed since it was read, 400 if the move is simply not allowed).

Nothing else in watcher_ha writes ``state`` or ``version`` (a unit test
reads the code to make sure).
"""

import sqlalchemy as sa

from watcher_ha.common import exception
from watcher_ha.common import state_machines
from watcher_ha.db import engine
from watcher_ha.db import models

# The machine of each model that has a life cycle.
MACHINE_OF = {
    models.Audit: state_machines.AUDIT,
    models.AuditPipeline: state_machines.AUDIT_PIPELINE,
    models.ActionPlan: state_machines.ACTION_PLAN,
    models.Action: state_machines.ACTION,
    models.HostNotification: state_machines.NOTIFICATION,
}

# Where a machine's guard (state_machines.Guard) finds the children of a
# row: {(the row's model, the children's machine): the children's column
# naming their parent}.
CHILDREN = {
    (models.ActionPlan, state_machines.ACTION.name):
        models.Action.action_plan_id,
}

# ``owner``: the row may have any owner.
ANY_OWNER = object()

# Columns only this module writes.
_BOOKKEEPING = frozenset(('state', 'version', 'updated_at'))


def write(session, model, where, *, target=None, actor=state_machines.SERVICE,
          states=None, owner=ANY_OWNER, version=None, values=None,
          bump=True, stamp=True):
    """The UPDATE of the rows of ``model`` matching ``where`` (a list of
    conditions); returns how many it changed. Runs in the caller's writer
    transaction.

    ``target``: the state to move to, from the states the machine lets
    ``actor`` leave for it (narrowed to ``states`` if given: they must be
    among them). Without a target, ``states`` (if given) are the states the
    rows must be in for their other fields to change.
    ``owner``: the host that must hold the rows (None: nobody holds them).
    ``version``: the version the row must still have (one row).
    ``values``: the other columns to set.
    ``bump``: move the version on (False only for a stamp nobody compares,
    such as the fence's); ``stamp``: set updated_at to now (False where it
    must keep telling when the row last changed state).
    A move the machine guards changes only rows that no child keeps from
    it (``refusing`` tells which).
    """
    values = dict(values or {})
    assert not _BOOKKEEPING & set(values), 'set by write() itself'
    if target is not None:
        allowed = MACHINE_OF[model].sources_of(target, actor)
        if states is not None:
            assert set(states) <= allowed, (
                '%s: %s -> %s is not in the machine for %s'
                % (model.__name__, sorted(set(states) - allowed), target,
                   actor))
        states = allowed if states is None else states
        values['state'] = target
        if target == 'DELETED':
            values.setdefault('deleted_at', models.utcnow())
    conditions = _matching(model, where, states, owner)
    if target is not None:
        conditions.extend(_guarded(model, target))
    if version is not None:
        conditions.append(model.version == version)
    if bump:
        values['version'] = model.version + 1
    # Kept as it is rather than left out: the column's onupdate would
    # stamp it.
    values['updated_at'] = models.utcnow() if stamp else model.updated_at
    return session.execute(
        sa.update(model).where(*conditions).values(**values)).rowcount


def _children_refusing(model, target):
    """(the children's column naming their parent, the condition on the
    children that keeps a row from ``target``), or None if unguarded."""
    guard = MACHINE_OF[model].guard_of(target)
    if guard is None:
        return None
    parent = CHILDREN[model, guard.children]
    return parent, parent.class_.state.in_(sorted(guard.refused))


def _guarded(model, target):
    refusing = _children_refusing(model, target)
    if refusing is None:
        return []
    parent, refused = refusing
    return [~sa.exists().where(parent == model.id, refused)]


def refusing(session, model, row_id, target):
    """The children of the row ``row_id`` of ``model`` that keep it from
    moving to ``target`` (the machine's guard), as row mappings in the
    order they were made; [] if none does."""
    found = _children_refusing(model, target)
    if found is None:
        return []
    parent, refused = found
    child = parent.class_
    return [row._mapping for row in session.execute(
        sa.select(child.__table__).where(parent == row_id, refused)
        .order_by(child.id))]


def lock(session, model, where, *, states=None, owner=ANY_OWNER):
    """Lock the rows matching ``where`` (in ``states``, held by
    ``owner``) for the caller's transaction; how many.

    An UPDATE of the row's ``lock_count``, rather than SELECT ... FOR
    UPDATE: it locks the rows on MariaDB and PostgreSQL alike (SQLite has
    no row locks: a write transaction there holds the database's write
    lock from its start, see engine._begin_writers_immediately), and on a
    Galera cluster it is a write the other nodes certify. A node locks
    rows for its own transactions only: two transactions of two nodes
    both "hold" a lock that changed nothing, and both commit. Of two that
    changed the row, the second to commit fails (a deadlock, which
    engine.retry_on_deadlock runs again from the start, its reads fresh):
    the lock serialises them as it does on one server. Nothing else is
    changed (``version`` and ``updated_at`` stay).
    """
    unchanged = {'updated_at': model.updated_at,
                 'lock_count': model.lock_count + 1}
    if hasattr(model, 'version'):
        unchanged['version'] = model.version
    return session.execute(sa.update(model).where(
        *_matching(model, where, states, owner)).values(
            **unchanged)).rowcount


def share(session, model, where, *, states=None, owner=ANY_OWNER):
    """Lock the rows matching ``where`` (in ``states``, held by
    ``owner``) against writers but not against other sharers, for the
    caller's transaction; how many.

    SELECT ... FOR SHARE (LOCK IN SHARE MODE on MariaDB): transactions
    that only read the row's owner and state, then write other rows, run
    side by side, while one that writes the row (a ``lock`` or a write)
    waits for them to commit, and they for it. A locking read sees the
    latest committed row, not the transaction's snapshot. On SQLite it
    locks nothing more than the write transaction already does.

    On a Galera cluster it holds on its node only, and nothing of it is
    certified: what the sharers write must be written too by whoever
    changes the shared row from another node (plan_runs.adopt moves
    every action of the plan on, so that an action written under a
    shared lock of the plan through another node conflicts with it).
    """
    return len(_shared(session, model.id, model, where, states, owner))


def shared_state(session, model, where, *, owner=ANY_OWNER):
    """share() the row matching ``where`` (held by ``owner``) and say
    its state, in one read: None if no such row. For a caller whose
    answer depends on which state the row is in, not only on whether it
    is in one of several."""
    rows = _shared(session, model.state, model, where, None, owner)
    return rows[0][0] if rows else None


def _shared(session, column, model, where, states, owner):
    return session.execute(sa.select(column).where(
        *_matching(model, where, states, owner)).with_for_update(
            read=True)).all()


def _matching(model, where, states, owner):
    conditions = list(where)
    if states is not None:
        conditions.append(model.state.in_(sorted(states)))
    if owner is None:
        conditions.append(model.hostname.is_(None))
    elif owner is not ANY_OWNER:
        conditions.append(model.hostname == owner)
    return conditions


def _conflict(session, model, row):
    """The error for a lost compare-and-swap, naming the state it lost to."""
    state = None
    if hasattr(model, 'state'):
        state = session.execute(
            sa.select(model.state).where(model.id == row['id'])).scalar()
    return exception.StateConflict(
        resource=model.__name__, uuid=row['uuid'],
        now='it is now %s' % state if state else 'it changed')


def swap(session, model, row, target=None, actor=state_machines.SERVICE,
         values=None, check_version=True, also_where=(),
         owner=ANY_OWNER):
    """Move one ``row`` (a dict with id, uuid, state, version) to
    ``target``, or change only its ``values`` if ``target`` is None.

    Raises StateTransitionNotAllowed if the machine refuses the move from
    the state the row was read in, StateConflict if the row changed since
    (or ``also_where``/``owner`` no longer hold). Returns the new version.
    """
    if target is not None and not MACHINE_OF[model].is_allowed(
            row['state'], target, actor):
        raise exception.StateTransitionNotAllowed(current=row['state'],
                                                  new=target)
    moved = write(session, model, [model.id == row['id'], *also_where],
                  target=target, actor=actor, owner=owner,
                  version=row['version'] if check_version else None,
                  values=values)
    if moved != 1:
        raise _conflict(session, model, row)
    return row['version'] + 1


def compare_and_swap(session, machine, model, row, target, actor,
                     values=None, check_version=True, also_where=()):
    """``swap`` to ``target`` (``machine`` must be the model's)."""
    assert MACHINE_OF[model] is machine
    return swap(session, model, row, target, actor, values, check_version,
                also_where)


def update_fields(session, model, row, values):
    """Change non-state columns of ``row`` if nobody changed it since."""
    if model in MACHINE_OF:
        return swap(session, model, row, values=values)
    # A row without a life cycle (an audit template): the version alone.
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
