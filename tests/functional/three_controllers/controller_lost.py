"""Issue 30's acceptance scenario: a controller lost whole, killed or
frozen, while every kind of work runs on every controller; what it held
is adopted by the others, and nothing is lost or done twice.

The work, on the simulated cloud shared by the controllers:

* continuous audits (dummy strategy, a round every INTERVAL s) spread
  over every decision engine, controller 2's included;
* action plans, each of a live migration, a sleep and a live migration,
  on servers and hosts of its own (so that all may run at once), spread
  over every applier, controller 2's included; ``[watcher_applier]
  recovery = resume``, so that a plan taken over runs to its end;
* optionally, a failed host's recovery (instance HA, reserved_host)
  whose evacuations are under way.

What is checked, from the records the database and the cloud keep:
every plan SUCCEEDED, each migration made once (the simulator's
os-migrations), each server of the failed host evacuated once, no server
running twice, the recovery finished; and every round of every
continuous audit has one plan, announced once (ha_checks.check_rounds).
"""

import dataclasses
import time
import types
import uuid as uuidlib

import requests
import sqlalchemy as sa

from tests.functional import applier_chaos
from tests.functional import cloud
from tests.functional import daemons
from tests.functional import fixtures
from tests.functional import ha_checks
from tests.helpers import failed_host
from tools import controllers
from watcher_ha.common.instance_ha import statuses
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import models

LOST = 'c2'
# What a deployment's applier and engine do with a controller's plans and
# recoveries: carried on, not cancelled; the cloud looked at quickly.
SECTIONS = {'watcher_applier': {'recovery': 'resume', 'poll_interval': 0.5,
                                'migration_timeout': 120}}
# A live migration of an m1.tiny (512 MB) lasts MIGRATION_SECONDS in the
# simulated cloud: long enough for the loss to find some under way.
MIGRATION_SECONDS = 4
# An evacuation lasts this long in the simulated cloud: the take-over
# finds some under way.
EVACUATE_SECONDS = 2 * daemons.MEMBER_TIMEOUT
# Plans made beside those a scenario starts, started one at a time when
# none of the first landed on the lost controller's applier (the ring
# places plans by their random uuids).
SPARE_PLANS = 8
# From the loss to its work adopted: ha_checks.TAKEOVER, plus Galera's
# view change (the survivors' writes wait until the lost node is out of
# the view) and, for a freeze, the step out of its daemons.
TAKEOVER = ha_checks.TAKEOVER + controllers.GALERA_INACTIVE_SECONDS


@dataclasses.dataclass(frozen=True)
class Size:
    # The controllers whose daemons run (controller 2 among them).
    controllers: tuple
    audits: int
    plans: int
    # Servers of the failed host; 0: no recovery.
    recovery_servers: int
    # A plan's sleep between its two migrations: it outlasts the start of
    # every plan (and of the recovery), the loss and the take-over, so
    # that the loss finds each plan running, and some adopted mid-sleep.
    sleep_seconds: float


# The smallest that proves it (make test): two controllers' daemons, a
# continuous audit and plans on each, one kill.
REDUCED = Size(controllers=('c1', 'c2'), audits=2, plans=3,
               recovery_servers=0, sleep_seconds=3 * daemons.MEMBER_TIMEOUT)
# The issue's: every controller's daemons, 20 plans, a recovery.
FULL = Size(controllers=('c1', 'c2', 'c3'), audits=6, plans=20,
            recovery_servers=4, sleep_seconds=4 * daemons.MEMBER_TIMEOUT)
# From the take-over to every plan's end: what is left of the longest
# sleep and the second migration, the evacuations, and a loaded
# machine's writes.
SETTLE = fixtures.Bound(FULL.sleep_seconds, MIGRATION_SECONDS,
                        EVACUATE_SECONDS, work=30)


def cloud_spec(size):
    """The failed host's cloud (failed_host.spec), and for each plan a
    source and a destination host with two servers on the source."""
    spec = failed_host.spec(servers=max(size.recovery_servers, 1))
    spec['evacuate_seconds'] = EVACUATE_SECONDS
    spec['bandwidth_mb_per_s'] = 512 / MIGRATION_SECONDS
    for index in range(size.plans + SPARE_PLANS):
        for role in ('src', 'dst'):
            spec['hosts'].append(dict(cloud.scenario_host(
                '%s-%02d' % (role, index)), availability_zone='nova'))
        for server in ('a', 'b'):
            spec['servers'].append({
                'uuid': str(uuidlib.uuid4()),
                'name': 'vm-%02d-%s' % (index, server), 'flavor': 'm1.tiny',
                'host': 'src-%02d' % index, 'state': 'active'})
    return spec


def planned(spec, count, sleep_seconds):
    """``count`` plans (applier_chaos.PlannedAction lists): migrate the
    source's first server, sleep, migrate its second."""
    servers = {s['name']: s['uuid'] for s in spec['servers'] if 'uuid' in s}
    made = []
    for index in range(count):
        def migrate(server, parents, index=index):
            return applier_chaos.PlannedAction(
                str(uuidlib.uuid4()), 'live_migrate', 'migrate', {
                    'resource_id': servers['vm-%02d-%s' % (index, server)],
                    'migration_type': 'live',
                    'source_node': 'src-%02d' % index,
                    'destination_node': 'dst-%02d' % index}, parents, {})
        first = migrate('a', [])
        pause = applier_chaos.PlannedAction(
            str(uuidlib.uuid4()), 'sleep', 'sleep',
            {'duration': sleep_seconds}, [first.uuid], {})
        made.append([first, pause, migrate('b', [pause.uuid])])
    return made


def start_plan(url, uuid):
    resp = requests.post('%s/v1/action_plans/%s/start' % (url, uuid),
                         timeout=30)
    assert resp.status_code == 200, resp.text


def spread_audits(deployment, engine, url, size):
    """``size.audits`` continuous audits, and more while an engine holds
    none (the ring places them by their random uuids); returns them."""
    audits = []
    for _ in range(size.audits + 10):
        audits.append(ha_checks.create_audit(
            url, audit_type='CONTINUOUS', interval=str(ha_checks.INTERVAL)))
        if len(audits) < size.audits:
            continue
        # Whoever got its trigger took each: the ring's owner has it
        # once the engines know each other.
        deployment.wait_ring_settled()
        held = ha_checks.settled_owners(engine, audits, timeout=60)
        if set(held.values()) == set(size.controllers):
            return audits
    raise AssertionError('audits not on every engine: %s' % held)


def recovery_row(engine, notification):
    """(the notification's state, the engine following it, the state of
    its recovery plan, the applier running that plan; None for those of a
    plan not made yet)."""
    with engine.connect() as conn:
        # The notification's columns keep Masakari's names ('status'):
        # labelled with the model's.
        row = conn.execute(sa.select(
            models.HostNotification.state.label('state'),
            models.HostNotification.hostname,
            models.HostNotification.recovery_audit_uuid).where(
                models.HostNotification.uuid == notification)).one()
        plan = conn.execute(sa.select(
            models.ActionPlan.state, models.ActionPlan.hostname)
            .join(models.Audit,
                  models.ActionPlan.audit_id == models.Audit.id)
            .where(models.Audit.uuid == row.recovery_audit_uuid)).first()
    return (row.state, row.hostname) + (tuple(plan) if plan else (None,
                                                                  None))


class Scenario:
    """The work of one run on a Deployment, started; then the checks."""

    def __init__(self, deployment, engine, notes, sim_url, spec, size):
        self.deployment = deployment
        self.engine = engine
        self.notes = notes
        self.sim_url = sim_url
        self.size = size
        self.url = deployment.url('c1')
        self.plans = planned(spec, size.plans + SPARE_PLANS,
                             size.sleep_seconds)
        self.rows = applier_chaos.insert_plans(engine, self.plans)
        self.started = []
        self.audits = []
        self.notification = None
        self.before = None

    def start(self):
        self.audits = spread_audits(self.deployment, self.engine, self.url,
                                    self.size)
        # Started through every controller's API in turn, as a load
        # balancer spreads requests.
        for index in range(self.size.plans):
            self._start(index)
        spares = iter(range(self.size.plans, len(self.rows)))
        while LOST not in self._running_on().values():
            index = next(spares, None)
            assert index is not None, (
                'no plan on %s\'s applier: %s' % (LOST, self._running_on()))
            self._start(index)
        if self.size.recovery_servers:
            api = types.SimpleNamespace(url=self.url)
            failed_host.segment_of(api)
            self.before = requests.get(self.sim_url + '/simulator/state',
                                       timeout=10).json()['servers']
            self.notification = failed_host.report_failure(api,
                                                           self.sim_url)
            owners = fixtures.wait_for(
                lambda: failed_host.recovery_owners(self.engine,
                                                    self.notification),
                60, 'evacuations under way')
            print('the recovery is followed by %s\'s engine and run by %s\'s '
                  'applier' % owners)

    def _start(self, index):
        via = self.size.controllers[index % len(self.size.controllers)]
        start_plan(self.deployment.url(via), self.rows[index][0])
        self.started.append(index)
        fixtures.wait_for(
            lambda: self._running_on().get(self.rows[index][1]), 60,
            'plan %d running' % index)

    def _plan_ids(self):
        return [self.rows[index][1] for index in self.started]

    def _running_on(self):
        """{plan id: its applier} of the started plans that run."""
        return {plan_id: host for plan_id, (state, host, _) in
                applier_chaos.plan_states(self.engine,
                                          self._plan_ids()).items()
                if state == ActionPlanState.ONGOING and host}

    def held_by(self, host):
        """What ``host`` holds: {'plans': ids, 'audits': uuids,
        'recovery': [notification or its plan]}."""
        held = {
            'plans': sorted(plan_id for plan_id, owner
                            in self._running_on().items() if owner == host),
            'audits': sorted(uuid for uuid, owner in ha_checks.owners(
                self.engine, self.audits).items() if owner == host),
            'recovery': []}
        if self.notification:
            state, engine_host, plan_state, applier_host = recovery_row(
                self.engine, self.notification)
            if engine_host == host and state in statuses.IN_RECOVERY:
                held['recovery'].append('notification')
            if (applier_host == host
                    and plan_state not in applier_chaos.FINAL):
                held['recovery'].append('plan')
        return held

    def wait_adopted(self, host, lost_at):
        """Until nothing ``host`` held at its loss is held by it any
        more (adopted, or ended); prints and returns the seconds since
        ``lost_at`` (time.monotonic())."""
        fixtures.wait_for(lambda: not any(self.held_by(host).values()),
                          TAKEOVER, 'the work of %s adopted' % host, every=0.2)
        adopted = time.monotonic() - lost_at
        print('%s\'s work adopted after %.1f s' % (host, adopted))
        return adopted

    def check(self, lost_engine=()):
        """Every started plan SUCCEEDED, each of its migrations made once;
        the recovery finished, each server evacuated once; every round
        once (``lost_engine``: the engines that may have stored a round's
        plan without announcing it)."""
        plan_ids = self._plan_ids()

        def all_final():
            states = applier_chaos.plan_states(self.engine, plan_ids)
            return all(s in applier_chaos.FINAL
                       for s, _, _ in states.values()) and states
        ended = fixtures.wait_for(all_final, SETTLE, 'every plan ended',
                                  every=0.5)
        assert {i: s for i, s in ended.items()
                if s[0] != ActionPlanState.SUCCEEDED} == {}
        actions = applier_chaos.action_states(self.engine, plan_ids)
        assert {uuid for uuid, (state, _) in actions.items()
                if state != 'SUCCEEDED'} == set()
        self._check_migrations()
        if self.notification:
            self._check_evacuations()
        state = requests.get(self.sim_url + '/simulator/state',
                             timeout=10).json()
        assert state['split_brain'] == []
        ha_checks.check_rounds(types.SimpleNamespace(
            engine=self.engine, notes=self.notes), self.audits,
            killed=lost_engine)

    def _check_migrations(self):
        migrations = requests.get(
            self.sim_url + '/compute/v2.1/os-migrations',
            headers={'X-Auth-Token': 'any',
                     'OpenStack-API-Version': 'compute 2.96'},
            timeout=30).json()['migrations']
        made = {}
        for migration in migrations:
            if migration['migration_type'] == 'live-migration':
                made.setdefault(migration['instance_uuid'], []).append(
                    migration['dest_compute'])
        expected = {action.parameters['resource_id']:
                    [action.parameters['destination_node']]
                    for index in self.started
                    for action in self.plans[index]
                    if action.action_type == 'migrate'}
        assert made == expected

    def _check_evacuations(self):
        ended = failed_host.wait_ended(types.SimpleNamespace(url=self.url),
                                       self.notification)
        assert ended['status'] == 'finished', ended
        moved = sorted(u for u, s in self.before.items()
                       if s['host'] == failed_host.FAILED)
        assert moved
        made = sorted(m['instance_uuid']
                      for m in cloud.evacuations(self.sim_url)
                      if m['source_compute'] == failed_host.FAILED)
        assert made == moved
