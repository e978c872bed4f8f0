"""Appliers killed and frozen at seeded moments under plans of mixed
actions: the workload (a simulated cloud and the plans that act on it),
the timeline of signals, and the cloud's own records of what was done to
it, counted per action.

Everything random is drawn from one ``random.Random(seed)``, before the
run: the same seed gives the same cloud, the same plans (uuids included)
and the same timeline of signals, so a failure can be replayed.
"""

import collections
import dataclasses
import signal
import threading
import time
import uuid as uuidlib

import oslo_messaging
import requests
import sqlalchemy as sa

from tests import factories
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import models
from watcher_ha.simulator import notifications
from watcher_ha.simulator import scenario

FINAL = (ActionPlanState.SUCCEEDED, ActionPlanState.FAILED,
         ActionPlanState.CANCELLED, ActionPlanState.SUPERSEDED)

# 512 MB at 128 MB/s: a migration or a resize lasts 4 s in the cloud,
# long enough for a signal to find one under way.
BANDWIDTH = 128
SHELVE_SECONDS = 3
FLAVOR, BIGGER = 'm1.tiny', 'm1.small'

# What each kind of action is, and the records the simulator keeps of
# what it does to the cloud: (what is counted, of the server or of the
# host). A migration is one os-migrations record; a cold migration or a
# resize is also one confirmation; a stop, a shelve and a delete are each
# one notification Nova sends as it begins them; a change of a service's
# state is one service.update.
KINDS = {
    'live_migrate': [('live-migration', 'server')],
    'cold_migrate': [('migration', 'server'),
                     ('instance.resize_confirm.start', 'server')],
    'resize': [('resize', 'server'),
               ('instance.resize_confirm.start', 'server')],
    'stop': [('instance.power_off.start', 'server')],
    'shelve': [('instance.shelve.start', 'server')],
    'delete': [('instance.delete.start', 'server')],
    'change_nova_service_state': [('service.update', 'host')],
    'nop': [],
    'sleep': [],
}
MIGRATION_KINDS = ('live-migration', 'migration', 'resize')
NOTIFIED = {record for records in KINDS.values()
            for record, _ in records} - set(MIGRATION_KINDS)


def _uuid(rng):
    return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))


@dataclasses.dataclass
class PlannedAction:
    uuid: str
    kind: str
    action_type: str
    parameters: dict
    parents: list
    # {record kind: the server or host it is counted on}
    records: dict


@dataclasses.dataclass
class Workload:
    spec: dict
    # One list of actions per plan.
    plans: list


def workload(rng, plans, actions=(2, 4)):
    """``plans`` plans of ``actions`` (min, max) actions of mixed kinds,
    and the cloud they act on. Every action has a server (or a host) of
    its own, so that each record of the cloud belongs to one action; each
    plan has its own source and destination hosts, so that the plans may
    all be started at once (a started plan holds the nodes it moves
    servers between)."""
    spec = {'seed': rng.getrandbits(32),
            'credentials': dict(scenario.DEFAULT_CREDENTIALS),
            'flavors': scenario.FLAVORS, 'hosts': [], 'servers': [],
            'bandwidth_mb_per_s': BANDWIDTH,
            'shelve_seconds': SHELVE_SECONDS}
    made = []
    for index in range(plans):
        hosts = {}

        def host(role):
            if role not in hosts:
                hosts[role] = '%s-%02d' % (role, index)
                spec['hosts'].append({
                    'name': hosts[role], 'vcpus': 64, 'memory_mb': 262144,
                    'disk_gb': 4000, 'availability_zone': 'nova'})
            return hosts[role]

        planned = []
        for _ in range(rng.randint(*actions)):
            kind = rng.choice(sorted(KINDS))
            if (kind == 'change_nova_service_state'
                    and 'svc' in hosts):
                # One per plan: its host's records are its own.
                kind = 'nop'
            parents = ([planned[-1].uuid] if planned and rng.random() < 0.7
                       else [])
            planned.append(_action(rng, kind, parents, host, spec))
        made.append(planned)
    return Workload(spec, made)


def _action(rng, kind, parents, host, spec):
    action_type, parameters, records = kind, {}, {}
    if kind == 'nop':
        parameters = {'message': 'chaos'}
    elif kind == 'sleep':
        parameters = {'duration': round(rng.uniform(0.5, 4), 1)}
    elif kind == 'change_nova_service_state':
        name = host('svc')
        parameters = {'resource_name': name, 'state': 'disabled',
                      'disabled_reason': 'chaos test'}
        records = {record: name for record, _ in KINDS[kind]}
    else:
        server = _uuid(rng)
        spec['servers'].append({
            'uuid': server, 'name': 'vm-%s' % server[:8], 'flavor': FLAVOR,
            'host': host('src'), 'state': 'active'})
        parameters = {'resource_id': server}
        if kind.endswith('_migrate'):
            action_type = 'migrate'
            parameters.update(migration_type=kind.split('_')[0],
                              source_node=host('src'),
                              destination_node=host('dst'))
        elif kind == 'resize':
            parameters['flavor'] = BIGGER
        records = {record: server for record, _ in KINDS[kind]}
    return PlannedAction(_uuid(rng), kind, action_type, parameters, parents,
                         records)


def insert_plans(engine, planned):
    """Each plan RECOMMENDED, with its actions PENDING, as the decision
    engine stores them (one audit each); returns [(plan uuid, plan id)]."""
    rows = []
    for actions in planned:
        audit = factories.audit(engine)
        with engine.begin() as conn:
            uuid = str(uuidlib.uuid4())
            plan_id = conn.execute(sa.insert(models.ActionPlan).values(
                uuid=uuid, audit_id=audit['id'],
                strategy_id=audit['strategy_id'],
                state=ActionPlanState.RECOMMENDED, global_efficacy=[],
                created_at=models.utcnow())).inserted_primary_key[0]
            for action in actions:
                conn.execute(sa.insert(models.Action).values(
                    uuid=action.uuid, action_plan_id=plan_id,
                    action_type=action.action_type,
                    input_parameters=action.parameters,
                    state=ActionState.PENDING, parents=action.parents,
                    created_at=models.utcnow()))
        rows.append((uuid, plan_id))
    return rows


def plan_states(engine, plan_ids):
    """{plan id: (state, hostname, status message)}."""
    with engine.connect() as conn:
        return {row.id: (row.state, row.hostname, row.status_message)
                for row in conn.execute(sa.select(
                    models.ActionPlan.id, models.ActionPlan.state,
                    models.ActionPlan.hostname,
                    models.ActionPlan.status_message).where(
                        models.ActionPlan.id.in_(plan_ids)))}


def action_states(engine, plan_ids):
    """{action uuid: (state, status message)}."""
    with engine.connect() as conn:
        return {row.uuid: (row.state, row.status_message)
                for row in conn.execute(sa.select(
                    models.Action.uuid, models.Action.state,
                    models.Action.status_message).where(
                        models.Action.action_plan_id.in_(plan_ids)))}


# The signals of the timeline, and what each does to the applier.
KILL, RESTART, FREEZE, THAW = 'SIGKILL', 'restart', 'SIGSTOP', 'SIGCONT'


def timeline(rng, names, events, window=40.0, gap=(2.0, 5.0),
             restart=(0.5, 20.0), frozen=(2.0, 20.0)):
    """Up to ``events`` signals at seeded moments within ``window``
    seconds after the plans were started, each to an applier neither dead
    nor frozen then, and never to the last one that is neither:

    * SIGKILL, and the restart systemd gives it (Restart=on-failure) from
      half a second (it finds its own plans at start) to 20 s later (its
      peers adopted them first);
    * SIGSTOP, and SIGCONT from 2 s (nobody noticed) to 20 s (its plans
      were adopted, and it is fenced) later.

    A take-over comes 11 to 15 s after an applier went silent
    ([coordination] member_timeout 10 s). Returns [(at, what, applier)]
    in time order."""
    steps, busy_until, at = [], dict.fromkeys(names, 0.0), 0.0
    for _ in range(events):
        at += rng.uniform(*gap)
        if at > window:
            break
        free = sorted(n for n in names if busy_until[n] <= at)
        # Drawn whether or not one is free: the draws stay in step.
        victim_draw, kind_draw, hold = (rng.random(), rng.random(),
                                        rng.random())
        if len(free) < 2:
            continue
        victim = free[int(victim_draw * len(free))]
        if kind_draw < 0.5:
            back = at + restart[0] + hold * (restart[1] - restart[0])
            steps += [(at, KILL, victim), (back, RESTART, victim)]
        else:
            back = at + frozen[0] + hold * (frozen[1] - frozen[0])
            steps += [(at, FREEZE, victim), (back, THAW, victim)]
        busy_until[victim] = back
    return sorted(steps)


def play(cluster, steps, began, log):
    """Carry the timeline out, ``began`` (time.monotonic()) being its
    zero; returns when its last step was taken (time.monotonic())."""
    last = began
    for at, what, name in steps:
        time.sleep(max(0.0, began + at - time.monotonic()))
        if what == KILL:
            cluster.kill(name)
        elif what == RESTART:
            cluster.start('applier', name)
        elif what == FREEZE:
            cluster.kill(name, signal.SIGSTOP)
        else:
            cluster.kill(name, signal.SIGCONT)
        last = time.monotonic()
        log('%6.1f s (planned %5.1f): %s %s' % (last - began, at, what,
                                                name))
    return last


class CloudRecords:
    """What the simulated cloud did, from its own records: Nova's
    migration records (os-migrations), and the notifications it sent as it
    began each stop, shelve, delete and confirmation, and as it changed a
    service. Listening starts at once: make it before the plans run."""

    def __init__(self, sim_url, transport_url):
        self.sim_url = sim_url
        self.transport = notifications.nova_transport(transport_url)
        self.seen = collections.Counter()
        self.lock = threading.Lock()
        self.listener = oslo_messaging.get_notification_listener(
            self.transport, [oslo_messaging.Target(
                exchange=notifications.NOVA_EXCHANGE,
                topic=notifications.TOPIC)], [self], executor='threading')
        self.listener.start()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        if event_type not in NOTIFIED:
            return
        data = payload['nova_object.data']
        key = data['host'] if event_type == 'service.update' else \
            data['uuid']
        with self.lock:
            self.seen[event_type, key] += 1

    def counts(self):
        """{(record kind, server uuid or host): how many}."""
        migrations = requests.get(
            self.sim_url + '/compute/v2.1/os-migrations',
            headers={'X-Auth-Token': 'any',
                     'OpenStack-API-Version': 'compute 2.96'},
            timeout=30).json()['migrations']
        found = collections.Counter(
            (m['migration_type'], m['instance_uuid']) for m in migrations)
        with self.lock:
            found.update(self.seen)
        return found

    def stop(self):
        self.listener.stop()
        self.listener.wait()
        self.transport.cleanup()


# What the appliers' logs say the signals did, by a line each writes.
MARKS = {
    'adopted': ' adopted from ',
    'recovered': ' was interrupted (',
    'fenced or lost': ' stops on ',
    'taken while frozen': ' were taken over while ',
    'started': 'watcher-ha-applier started on ',
}


def what_happened(cluster, names):
    """{mark: how many times the appliers logged it} (see MARKS)."""
    found = collections.Counter()
    for name in names:
        text = (cluster.tmp_path / (name + '.log')).read_text()
        for mark, line in MARKS.items():
            found[mark] += text.count(line)
    return found
