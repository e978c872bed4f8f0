"""import-watcher: audit templates, audits and action plans (with their
actions and efficacy indicators) copied from a Watcher 17 database.

Rows are matched by UUID: what is here already is left alone, so a second
run copies only what Watcher gained since. Everything is written in one
transaction: a failure copies nothing. How each kind of Watcher row is
brought over is told in doc/source/migrating_from_watcher.rst; in short:

* goals and strategies are ours (synced from our plugins first) and are
  matched by name; ours take the UUIDs Watcher gave them, so that what
  clients kept of them still finds them; a row whose goal or strategy
  we do not provide is skipped, with what depends on it, and listed:
  install the plugin and run the import again;
* rows Watcher soft-deleted: audits, plans and actions are archived here
  (DELETED, for ``purge``), audit templates (which we delete outright)
  are skipped;
* work Watcher's stopped daemons held is handed to ours as our own
  daemons hand theirs back when they stop: ONGOING audits and plans go
  back to PENDING with no owner, CANCELLING plans lose their owner; the
  interrupted actions inside stay as they are, for the applier that takes
  the plan to check in the cloud.
"""

import uuid as uuid_lib

import sqlalchemy as sa

from watcher_ha.common import exception
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import action_plans
from watcher_ha.db import installed_plugins
from watcher_ha.db import foreign_db
from watcher_ha.db import models
from watcher_ha.db import plan_holds
from watcher_ha.db import watcher17

# What is copied, in the order it is copied (parents first).
TABLES = ('audit_templates', 'audits', 'action_plans', 'actions',
          'efficacy_indicators')
MODEL_OF = {
    'audit_templates': models.AuditTemplate,
    'audits': models.Audit,
    'action_plans': models.ActionPlan,
    'actions': models.Action,
    'efficacy_indicators': models.EfficacyIndicator,
}
# Rows inserted per statement.
BATCH = 500
# Names for efficacy indicators Watcher stored without a UUID: the same
# on every run, so that they too are copied once.
_INDICATOR_NAMESPACE = uuid_lib.UUID('7d1c2a64-5d0b-4c55-9a4e-5f3f0e7c1b19')


class WatcherStillRunning(exception.WatcherHAError):
    msg_fmt = ('Watcher\'s %(daemons)s still run (seen up within the last '
               '%(seconds)d s in its services table): they would go on '
               'with the audits and action plans that watcher_ha takes '
               'over. Stop every Watcher decision engine and applier, '
               'wait until "openstack optimize service list" shows them '
               'failed, and run the import again (or pass --force if they '
               'are stopped and the services table is stale).')


def run(context, url, force=False, dry_run=False):
    """Copy what Watcher at ``url`` has and we do not. Returns {table:
    Tally}; with ``dry_run``, what would be copied, nothing written.
    Raises NotWatcher17 or WatcherStillRunning, writing nothing."""
    source = watcher17.Source(url)
    try:
        source.check()
        live = source.live_daemons(models.utcnow())
        if live and not (force or dry_run):
            raise WatcherStillRunning(
                daemons=', '.join('%s on %s (%d s ago)' % (
                    d.name, d.host, d.seen_seconds_ago) for d in live),
                seconds=watcher17.SERVICE_DOWN_SECONDS)
        rows = {table: source.rows(table)
                for table in ('goals', 'strategies') + TABLES}
    finally:
        source.close()
    # A freshly migrated database has no catalog until a daemon starts.
    installed_plugins.sync(context)
    return foreign_db.write(
        context, TABLES,
        lambda session, tallies: _Copy(session, rows, tallies).all(),
        dry_run)


def _deleted(row):
    return bool(row['deleted'])


class _Copy:
    """One import, in the caller's transaction."""

    def __init__(self, session, rows, tallies):
        self.session = session
        self.rows = rows
        self.tallies = tallies
        self.goal_name = {r['id']: r['name'] for r in rows['goals']}
        self.strategy_name = {r['id']: r['name']
                              for r in rows['strategies']}
        self.goal_id = dict(session.execute(
            sa.select(models.Goal.name, models.Goal.id)).all())
        self.strategy_id = dict(session.execute(
            sa.select(models.Strategy.name, models.Strategy.id)).all())
        # {table: {Watcher id: our id}} of the rows copied or present.
        self.ours = {table: {} for table in TABLES}
        # {Watcher id: why} of the parents not copied.
        self.left_out = {table: {} for table in TABLES}

    def all(self):
        self._plugin_uuids(models.Goal, 'goals')
        self._plugin_uuids(models.Strategy, 'strategies')
        self._templates()
        self._audits()
        self._plans()
        self._actions()
        self._indicators()

    def _plugin_uuids(self, model, table):
        """Give our goals (strategies) the UUIDs of Watcher's of the same
        name: a script, or an audit template created with
        ``"goal": "<uuid>"``, goes on finding them."""
        ours = dict(self.session.execute(
            sa.select(model.name, model.uuid)).all())
        for row in self.rows[table]:
            if (not _deleted(row) and row['name'] in ours
                    and ours[row['name']] != row['uuid']):
                self.session.execute(sa.update(model).where(
                    model.name == row['name']).values(uuid=row['uuid']))

    # Shared steps.

    def _existing(self, table):
        model = MODEL_OF[table]
        return dict(self.session.execute(
            sa.select(model.uuid, model.id)).all())

    def _skip(self, table, row, why):
        self.tallies[table].skipped.append((row['uuid'], why))
        self.left_out[table][row['id']] = why

    def _plugin_refs(self, row):
        """(our goal id, our strategy id) for the row's, or (None, why)."""
        goal = self.goal_name.get(row['goal_id'])
        if goal not in self.goal_id:
            return None, 'goal %s is not provided by watcher_ha' % goal
        strategy_id = None
        if row['strategy_id'] is not None:
            strategy = self.strategy_name.get(row['strategy_id'])
            if strategy not in self.strategy_id:
                return None, ('strategy %s is not provided by watcher_ha'
                              % strategy)
            strategy_id = self.strategy_id[strategy]
        return (self.goal_id[goal], strategy_id), None

    def _parent(self, table, parent_table, row, column):
        """Our id of the row's parent, or None after skipping the row."""
        parent = row[column]
        if parent in self.ours[parent_table]:
            return self.ours[parent_table][parent]
        why = self.left_out[parent_table].get(parent)
        self._skip(table, row, 'its %s was not copied%s' % (
            parent_table[:-1].replace('_', ' '),
            ' (%s)' % why if why else ''))
        return None

    def _insert(self, table, pending):
        """Insert ``pending`` [(Watcher id, values)]; remember our ids."""
        model = MODEL_OF[table]
        for start in range(0, len(pending), BATCH):
            chunk = pending[start:start + BATCH]
            self.session.execute(sa.insert(model),
                                 [values for _, values in chunk])
        if pending:
            ids = self._existing(table)
            for watcher_id, values in pending:
                self.ours[table][watcher_id] = ids[values['uuid']]
        self.tallies[table].copied += len(pending)

    def _sort(self, table, row, existing):
        """True if the row is still to be copied; counts it if present."""
        if row['uuid'] in existing:
            self.ours[table][row['id']] = existing[row['uuid']]
            self.tallies[table].present += 1
            return False
        return True

    # The tables.

    def _templates(self):
        table = 'audit_templates'
        existing = self._existing(table)
        names = set(self.session.execute(
            sa.select(models.AuditTemplate.name)).scalars())
        pending = []
        for row in self.rows[table]:
            if not self._sort(table, row, existing):
                continue
            if _deleted(row):
                self._skip(table, row, 'deleted in Watcher (watcher_ha '
                           'deletes audit templates outright)')
                continue
            refs, why = self._plugin_refs(row)
            name = row['name'] or row['uuid']
            if why is None and name in names:
                why = 'another audit template is named %s here' % name
            if why is not None:
                self._skip(table, row, why)
                continue
            names.add(name)
            pending.append((row['id'], dict(
                uuid=row['uuid'], name=name,
                description=row['description'], goal_id=refs[0],
                strategy_id=refs[1], scope=row['scope'] or [],
                default_parameters=row['default_parameters'] or {},
                created_at=row['created_at'],
                updated_at=row['updated_at'])))
        self._insert(table, pending)

    def _audits(self):
        table = 'audits'
        existing = self._existing(table)
        live_names = set(self.session.execute(
            sa.select(models.Audit.name).where(
                models.Audit.state != AuditState.DELETED)).scalars())
        pending = []
        for row in self.rows[table]:
            if not self._sort(table, row, existing):
                continue
            refs, why = self._plugin_refs(row)
            name = row['name'] or row['uuid']
            values = _audit_values(row)
            live = values['state'] != AuditState.DELETED
            if why is None and live and name in live_names:
                why = 'another audit is named %s here' % name
            if why is not None:
                self._skip(table, row, why)
                continue
            if live:
                live_names.add(name)
            values.update(uuid=row['uuid'], name=name, goal_id=refs[0],
                          strategy_id=refs[1])
            pending.append((row['id'], values))
        self._insert(table, pending)

    def _plans(self):
        table = 'action_plans'
        existing = self._existing(table)
        actions_of = {}
        for action in self.rows['actions']:
            actions_of.setdefault(action['action_plan_id'], []).append(
                action)
        held = {tuple(claim) for claim in self.session.execute(sa.select(
            models.PlanHold.resource_type,
            models.PlanHold.resource_id))}
        pending, wanted_of = [], {}
        for row in self.rows[table]:
            if not self._sort(table, row, existing):
                continue
            audit_id = self._parent(table, 'audits', row, 'audit_id')
            if audit_id is None:
                continue
            strategy = self.strategy_name.get(row['strategy_id'])
            if strategy not in self.strategy_id:
                self._skip(table, row, 'strategy %s is not provided by '
                           'watcher_ha' % strategy)
                continue
            values = _plan_values(row)
            wanted = set()
            if values['state'] in plan_holds.HOLDING:
                wanted, why = _resources(actions_of.get(row['id'], []))
                if why is None and wanted & held:
                    why = ('started in Watcher, but %s is held by another '
                           'started action plan here: run the import again '
                           'once that plan has ended' % ', '.join(
                               '%s %s' % r for r in sorted(wanted & held)))
                if why is not None:
                    self._skip(table, row, why)
                    continue
                held |= wanted
            values.update(uuid=row['uuid'], audit_id=audit_id,
                          strategy_id=self.strategy_id[strategy])
            pending.append((row['id'], values))
            wanted_of[row['id']] = wanted
        self._insert(table, pending)
        for watcher_id, wanted in wanted_of.items():
            # A started plan holds what its actions touch, as when it is
            # started here.
            plan_holds.insert(self.session, self.ours[table][watcher_id],
                          wanted)

    def _actions(self):
        table = 'actions'
        existing = self._existing(table)
        pending = []
        for row in self.rows[table]:
            if not self._sort(table, row, existing):
                continue
            plan_id = self._parent(table, 'action_plans', row,
                                   'action_plan_id')
            if plan_id is None:
                continue
            state = ActionState.DELETED if _deleted(row) else row['state']
            pending.append((row['id'], dict(
                uuid=row['uuid'], action_plan_id=plan_id,
                action_type=row['action_type'],
                input_parameters=row['input_parameters'] or {},
                state=state, parents=row['parents'] or [],
                status_message=row['status_message'],
                created_at=row['created_at'], updated_at=row['updated_at'],
                deleted_at=row['deleted_at'] if _deleted(row) else None)))
        self._insert(table, pending)

    def _indicators(self):
        table = 'efficacy_indicators'
        existing = self._existing(table)
        # Watcher deletes a plan's indicators with it; archived here, the
        # plan keeps them until purged.
        deleted_plans = {p['id'] for p in self.rows['action_plans']
                         if _deleted(p)}
        pending = []
        for row in self.rows[table]:
            row = dict(row, uuid=row['uuid'] or _indicator_uuid(row))
            if not self._sort(table, row, existing):
                continue
            if (_deleted(row)
                    and row['action_plan_id'] not in deleted_plans):
                self._skip(table, row, 'deleted in Watcher')
                continue
            plan_id = self._parent(table, 'action_plans', row,
                                   'action_plan_id')
            if plan_id is None:
                continue
            # Watcher 17 stores the value in ``data``; ``value`` is the
            # column older releases rounded (Launchpad bug 2103458).
            value = row['data'] if row['data'] is not None else row['value']
            pending.append((row['id'], dict(
                uuid=row['uuid'], action_plan_id=plan_id, name=row['name'],
                description=row['description'], unit=row['unit'],
                value=None if value is None else float(value),
                created_at=row['created_at'],
                updated_at=row['updated_at'])))
        self._insert(table, pending)


def _audit_values(row):
    """Our columns of a Watcher audit, but for its references."""
    state, hostname = row['state'], row['hostname']
    next_run_time = row['next_run_time']
    if _deleted(row):
        state = AuditState.DELETED
    elif state == AuditState.ONGOING:
        # Its decision engine stopped: any of ours takes it.
        state, hostname = AuditState.PENDING, None
        if row['audit_type'] == AuditType.EVENT and next_run_time is None:
            # It was triggered: the trigger stands.
            next_run_time = row['updated_at'] or row['created_at']
    return dict(
        audit_type=row['audit_type'], state=state,
        parameters=row['parameters'] or {}, interval=row['interval'],
        scope=row['scope'] or [], auto_trigger=bool(row['auto_trigger']),
        next_run_time=next_run_time, hostname=hostname,
        start_time=row['start_time'], end_time=row['end_time'],
        force=bool(row['force']), status_message=row['status_message'],
        created_at=row['created_at'], updated_at=row['updated_at'],
        deleted_at=row['deleted_at'] if _deleted(row) else None)


def _plan_values(row):
    """Our columns of a Watcher action plan, but for its references."""
    state, hostname = row['state'], row['hostname']
    if _deleted(row):
        state = ActionPlanState.DELETED
    elif state == ActionPlanState.ONGOING:
        # Its applier stopped: any of ours takes it, and checks the
        # actions it interrupted before going on.
        state, hostname = ActionPlanState.PENDING, None
    elif state in (ActionPlanState.PENDING, ActionPlanState.CANCELLING):
        hostname = None
    return dict(
        state=state, global_efficacy=row['global_efficacy'] or [],
        hostname=hostname, status_message=row['status_message'],
        created_at=row['created_at'], updated_at=row['updated_at'],
        deleted_at=row['deleted_at'] if _deleted(row) else None)


def _resources(actions):
    """What a started plan's actions touch, as our action plugins declare
    it: (resources, None), or (None, why) if their parameters do not fit
    our plugins."""
    running = [a for a in actions if not _deleted(a)
               and a['state'] != ActionState.SKIPPED]
    try:
        return action_plans.resources_of(
            {'action_type': a['action_type'],
             'input_parameters': a['input_parameters']}
            for a in running), None
    except (KeyError, TypeError, ValueError) as err:
        return None, ('started in Watcher, but its actions\' input '
                      'parameters do not fit watcher_ha\'s action plugins '
                      '(%s: %s)' % (type(err).__name__, err))


def _indicator_uuid(row):
    return str(uuid_lib.uuid5(_INDICATOR_NAMESPACE, '%s/%s' % (
        row['action_plan_id'], row['id'])))
