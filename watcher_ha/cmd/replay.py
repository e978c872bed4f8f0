"""The what-if's replay (``watcher-ha what-if PLAN --replay``): how long
an action plan would take, learnt by running it on a simulated copy of
the cloud.

The copy is a simulator seeded with what the API shows of a decision
engine's compute model (``GET /v1/data_model``, imported by
scenario.from_data_model, which says what it carries over), served on a
loopback port of this process, with the cloud's timings given (live
migration bandwidth, an evacuation's, a power action's seconds...). The
plan's actions, read from the API, are run against it by the applier's
own action plugins, along their parents with the applier's parallelism
(applier/workflow.py: an action starts once its parents ended, as many
threads as the plan's widest step needs, ``[watcher_applier] workers`` at
least): each waits for the simulated cloud as it would for a real one,
looking every ``poll_interval``. Each action is timed from its
pre-condition to its post-condition, as the applier's metrics time it.

At a speedup N (``--replay-speedup``), everything that waits runs N
times faster, and the timing is told in the cloud's time: the
simulator's clock (clock.ScaledClock: its migrations, evacuations, power
actions... each N times sooner), the applier's looks (poll_interval / N)
and time-outs (/ N), a sleep action's duration (/ N); the timing is read
on the simulator's clock. What does not wait but works (this process's
requests and bookkeeping, the simulator's answers) takes the same real
time, so it counts N times: the report gives the share of the replay
this process was busy (``cpu_share``), and says when it was busy enough
to lengthen the timing.

Meanwhile, and only meanwhile (conf.overridden), this process's clients
([nova], [placement], [ironic], [cinder], [heat]) point at the simulator
without credentials, and its [database] at an empty database in memory:
nothing a replay does reaches the cloud, the database, or the API, which
it only reads (GET).

The action types NOT_REPLAYED (instance HA's and application failover's
bookkeeping, which lives in the database; what needs volumes, stacks or
server groups, which the copy lacks; a resize, whose flavor the API does
not show) count as done at once, so that their children go on; the
report names them.
"""

import dataclasses
import math
import time
import urllib.parse

from taskflow import exceptions as taskflow_exc
from taskflow import task

from watcher_ha.applier.actions import base as action_base
from watcher_ha.applier import workflow
from watcher_ha.common import plugins
from watcher_ha.conf import overridden
from watcher_ha.conf import CONF
from watcher_ha.decision_engine.what_if import projection
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import embedded
from watcher_ha.simulator import scenario

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')
# How far a replayed host may end from the what-if's projection of it
# and still count as projected (as the what-if's own acceptance test).
PROJECTED_WITHIN = 0.01

_DATABASE = 'keeps its records in the database'
_NOT_COPIED = 'the copy has no %s'
# Action type: why the replay does not run it.
NOT_REPLAYED = {
    'claim_reserved_hosts': 'instance HA ' + _DATABASE,
    'settle_recovery': 'instance HA ' + _DATABASE,
    'set_host_maintenance': 'instance HA ' + _DATABASE,
    'activate': 'application failover ' + _DATABASE,
    'quiesce_server': _NOT_COPIED % 'server groups',
    'evict_member': _NOT_COPIED % 'server groups, volumes or stacks',
    'replace_member': _NOT_COPIED % 'server groups or stacks',
    'volume_migrate': _NOT_COPIED % 'volumes',
    'move_volume_attachment': _NOT_COPIED % 'volumes',
    'resize': 'the API does not show its flavor\'s size',
}
# An evacuation of a recovery records its move in the database.
_RECOVERY_EVACUATION = ('notification_uuid', 'destination_from_claim')

# The time-outs of the actions' waits ((group, option), whole seconds,
# at least 1), divided by the speedup.
TIMEOUTS = (('watcher_applier', 'migration_timeout'),
            ('watcher_applier', 'shelve_timeout'),
            ('watcher_applier', 'delete_timeout'),
            ('watcher_applier', 'change_node_power_state_timeout'),
            ('watcher_applier', 'volume_migration_timeout'),
            ('ironic', 'power_timeout'))
# The parameters that are a wait of the action's own (type: parameter),
# divided by the speedup.
WAITS = {'sleep': 'duration'}
# [watcher_applier] poll_interval's least value: how much a speedup may
# shorten the applier's looks.
LEAST_POLL_INTERVAL = 0.1
# The share of one core this process may be busy (Python runs one thread
# at a time) before its own work, counted N times at a speedup N, is
# said to lengthen the timing.
BUSY = 0.5

# What each action of the replay ended in, beside the applier's states.
NOT_RUN = 'NOT_RUN'             # the replay stopped before it
REPLAY_SKIPPED = 'NOT_REPLAYED'


def not_replayed(action, installed):
    """Why ``action`` (the API's) is not replayed, or None."""
    kind = action['action_type']
    if kind not in installed:
        return 'not installed here'
    if kind in NOT_REPLAYED:
        return NOT_REPLAYED[kind]
    parameters = action['input_parameters'] or {}
    if kind == 'evacuate' and any(parameters.get(key)
                                  for key in _RECOVERY_EVACUATION):
        return 'instance HA ' + _DATABASE
    return None


@dataclasses.dataclass
class Settings:
    """The simulated cloud's timings (scenario.TIMINGS), the applier's
    polling and parallelism ([watcher_applier] poll_interval, workers),
    and how many times faster than the cloud the replay runs."""
    timings: dict
    poll_interval: float
    workers: int
    speedup: float = 1.0


def fastest(poll_interval):
    """The highest speedup of a replay whose applier looks every
    ``poll_interval`` seconds (of the cloud's time)."""
    return poll_interval / LEAST_POLL_INTERVAL


def actions_of(read, plan_uuid):
    """The plan's actions as the API lists them (every page): ``read``
    is a GET of a path, answering its JSON."""
    path = '/v1/actions/detail?action_plan_uuid=%s' % plan_uuid
    found = []
    while True:
        page = read(path)
        found += page['actions']
        if not page.get('next'):
            return found
        # The link's query, asked of the endpoint this reader reaches.
        path = '/v1/actions/detail?' + urllib.parse.urlsplit(
            page['next']).query


def _pointed_at(url, settings):
    """This process's clients at the simulator at ``url``, its database
    nowhere, the applier's polling and parallelism as ``settings``, its
    waits' time-outs divided by the speedup."""
    endpoints = {'nova': '/compute/v2.1', 'placement': '/placement',
                 'ironic': '/baremetal', 'cinder': '/volume/v3',
                 'heat': '/heat-api/v1/admin'}
    speedup = settings.speedup
    overrides = [('database', 'connection', 'sqlite://'),
                 ('watcher_applier', 'poll_interval',
                  settings.poll_interval / speedup),
                 ('watcher_applier', 'workers', settings.workers)]
    overrides += [(group, name, max(1, math.ceil(CONF[group][name]
                                                  / speedup)))
                  for group, name in TIMEOUTS]
    for group, path in endpoints.items():
        overrides += [(group, 'auth_type', 'none'),
                      (group, 'endpoint_override', url + path)]
    return overridden(overrides)


def usage(cloud):
    """{host: {'used': {resource: amount}, 'servers': count, 'status',
    'state'}} of a simulated cloud (simulator/nova/cloud.py)."""
    servers = {}
    for server in cloud.servers.values():
        if server.host is not None:
            servers[server.host] = servers.get(server.host, 0) + 1
    return {name: {'used': {r: cloud.used(name).get(r, 0)
                            for r in RESOURCES},
                   'servers': servers.get(name, 0), 'status': host.status,
                   'state': host.state}
            for name, host in sorted(cloud.hosts.items())}


def run(read, plan_uuid, answer, settings):
    """The replay of the plan (its report, the ``replay`` of the what-if's
    JSON): ``read`` GETs a path of the API, ``answer`` is the plan's
    what-if (whose projected hosts the replayed cloud is held against)."""
    data_model = read('/v1/data_model')
    actions = actions_of(read, plan_uuid)
    spec = scenario.from_data_model(data_model['context'])
    spec.update(settings.timings)
    threads = max(embedded.THREADS, settings.workers)
    clock = clock_mod.ScaledClock(settings.speedup)
    with embedded.serving(spec, threads=threads, clock=clock) as (
            sim, url), _pointed_at(url, settings):
        before = usage(sim.cloud)
        replay = Replay(actions, plugins.load_classes(plugins.ACTIONS),
                        clock)
        replay.run()
        after = usage(sim.cloud)
    return report(replay, actions, spec, settings, data_model.get('model'),
                  answer, before, after)


class Replay:
    """One run of a plan's ``actions`` on the simulated cloud this
    process's clients point at, timed on that cloud's ``clock`` (a
    clock.ScaledClock); ``classes``: the installed action plugins. Its
    ``records`` say, per action uuid, what each did and when; its
    ``cpu_share`` how busy this process was meanwhile (CPU seconds per
    real second)."""

    def __init__(self, actions, classes, clock):
        self.actions = actions
        self.classes = classes
        self.clock = clock
        self.records = {a['uuid']: {'state': NOT_RUN, 'started': None,
                                    'seconds': None, 'message': None}
                        for a in actions}
        self.state, self.message = None, None
        self.seconds = 0.0
        self.cpu_share = None

    def run(self):
        began, busy = time.monotonic(), time.process_time()
        try:
            self._run()
        finally:
            real = time.monotonic() - began
            self.cpu_share = ((time.process_time() - busy) / real
                              if real > 0 else None)

    def _run(self):
        flow = workflow.graph('replay', self.actions,
                              lambda action: _Task(self, action))
        try:
            workflow.run_graph(flow, self.actions)
        except taskflow_exc.WrappedFailure as failures:
            self._stopped([f.exception for f in failures])
        except _Stopped as err:
            self._stopped([err])
        else:
            failed = [r for r in self.records.values()
                      if r['state'] == 'FAILED']
            self.state = 'FAILED' if failed else 'SUCCEEDED'
            self.message = failed[0]['message'] if failed else None
        self._from_the_first_start()

    def _from_the_first_start(self):
        """The actions' starts counted from the first one, and the plan's
        time from then to the last end: what the cloud saw (not the
        taskflow engine's compilation before, nor its threads' stop
        after)."""
        ran = [r for r in self.records.values() if r['started'] is not None]
        if not ran:
            return
        first = min(r['started'] for r in ran)
        for record in ran:
            record['started'] -= first
        self.seconds = max(r['started'] + (r['seconds'] or 0.0)
                           for r in ran)

    def _stopped(self, errors):
        self.state = 'FAILED'
        self.message = str(errors[0])

    def one(self, action):
        """Run ``action`` as the applier's task does (applier/workflow.py
        ActionTask), without the database: pre-condition (a skip ends
        it), execute, post-condition."""
        record = self.records[action['uuid']]
        record['started'] = self.clock.elapsed()
        why = not_replayed(action, self.classes)
        if why:
            record.update(state=REPLAY_SKIPPED, seconds=0.0, message=why)
            return
        cls = self.classes[action['action_type']]
        try:
            try:
                cls.validate(action['input_parameters'])
                plugin = cls(self._scaled(action))
                plugin.pre_condition()
            except action_base.ActionSkipped as skipped:
                self._ended(record, 'SKIPPED', str(skipped) or None)
                return
            plugin.execute()
            plugin.post_condition()
        except Exception as err:  # noqa: BLE001 (the applier's rule)
            self._ended(record, 'FAILED', '%s: %s' % (
                action['action_type'], str(err) or type(err).__name__))
            if not cls.failure_is_contained:
                raise _Stopped('action %s (%s) failed: %s' % (
                    action['uuid'], action['action_type'], err))
            return
        self._ended(record, 'SUCCEEDED', plugin.outcome)

    def _scaled(self, action):
        """The action's parameters, its own wait divided by the
        clock's speed."""
        parameters = dict(action['input_parameters'] or {})
        waits = WAITS.get(action['action_type'])
        if waits in parameters:
            parameters[waits] = parameters[waits] / self.clock.speed
        return parameters

    def _ended(self, record, state, message):
        record.update(state=state, message=message,
                      seconds=self.clock.elapsed() - record['started'])


class _Stopped(Exception):
    """An action failed: as in the applier, nothing more starts."""


class _Task(task.Task):

    def __init__(self, replay, action):
        super().__init__(name=action['uuid'])
        self.replay = replay
        self.action = action

    def execute(self):
        self.replay.one(self.action)

    def revert(self, *args, **kwargs):
        pass


def lanes(actions):
    """The plan's lanes, as its planner made them (planner/base.py
    Lanes): [[action uuid...]], each a chain of actions of one type in
    which each follows the one before (its only parent of its type); an
    action whose parents of its type are none or several starts a lane.
    In the planner's order (projection.steps)."""
    by_uuid = {a['uuid']: a for a in actions}
    lane_of, continued, found = {}, set(), []
    for step in projection.steps(actions):
        for action in step:
            kind = action['action_type']
            same = [p for p in action['parents'] or ()
                    if p in by_uuid and by_uuid[p]['action_type'] == kind]
            if len(same) == 1 and same[0] not in continued:
                continued.add(same[0])
                lane = lane_of[same[0]]
            else:
                lane = len(found)
                found.append([])
            lane_of[action['uuid']] = lane
            found[lane].append(action['uuid'])
    return found


def slowest_lane(actions, records):
    """The lane whose actions took longest in all (the first of those
    that took as long), or None for a plan without actions."""
    best = None
    for lane in lanes(actions):
        busy = sum(records[uuid]['seconds'] or 0.0 for uuid in lane)
        if best is None or busy > best[0]:
            best = (busy, lane)
    if best is None:
        return None
    busy, lane = best
    timed = [records[uuid] for uuid in lane
             if records[uuid]['started'] is not None]
    kind = {a['uuid']: a['action_type'] for a in actions}[lane[0]]
    return {'action_type': kind, 'actions': lane, 'count': len(lane),
            'seconds': busy,
            'started': min((r['started'] for r in timed), default=None),
            'ended': max((r['started'] + (r['seconds'] or 0.0)
                          for r in timed), default=None)}


def by_type(actions, records):
    """[{action_type, count, seconds, longest, longest_action}] of the
    actions that ran, by type."""
    found = {}
    for action in actions:
        record = records[action['uuid']]
        if record['seconds'] is None or record['state'] == REPLAY_SKIPPED:
            continue
        item = found.setdefault(action['action_type'], {
            'action_type': action['action_type'], 'count': 0,
            'seconds': 0.0, 'longest': 0.0, 'longest_action': None})
        item['count'] += 1
        item['seconds'] += record['seconds']
        if item['longest_action'] is None or \
                record['seconds'] > item['longest']:
            item['longest'] = record['seconds']
            item['longest_action'] = action['uuid']
    return [found[kind] for kind in sorted(found)]


def off_projection(hosts, before, after):
    """[{host, side, resource, projected, replayed}] of the what-if's
    ``hosts`` whose usage in the replayed cloud, before or after the
    plan, is off the projection by more than PROJECTED_WITHIN."""
    off = []
    for host in hosts:
        for side, replayed in (('before', before), ('after', after)):
            found = replayed.get(host['name'])
            for resource in RESOURCES:
                projected = host[side][resource]['used']
                amount = None if found is None else found['used'][resource]
                if amount is None or abs(projected - amount) > \
                        PROJECTED_WITHIN * max(abs(amount), 1):
                    off.append({'host': host['name'], 'side': side,
                                'resource': resource,
                                'projected': projected,
                                'replayed': amount})
    return off


def report(replay, actions, spec, settings, model, answer, before, after):
    """The replay's part of the what-if's JSON."""
    records = replay.records
    skipped = {}
    for action in actions:
        if records[action['uuid']]['state'] == REPLAY_SKIPPED:
            key = (action['action_type'], records[action['uuid']]['message'])
            skipped[key] = skipped.get(key, 0) + 1
    return {
        'cloud': {'hosts': len(spec['hosts']),
                  'servers': len(spec['servers']),
                  'timings': scenario.timings(spec),
                  'poll_interval': settings.poll_interval,
                  'workers': settings.workers, 'model': model},
        'speedup': settings.speedup, 'cpu_share': replay.cpu_share,
        'busy': (settings.speedup > 1 and replay.cpu_share is not None
                 and replay.cpu_share > BUSY),
        'state': replay.state, 'message': replay.message,
        'seconds': replay.seconds,
        'action_types': by_type(actions, records),
        'slowest_lane': slowest_lane(actions, records),
        'not_replayed': [{'action_type': kind, 'count': count, 'why': why}
                         for (kind, why), count in sorted(skipped.items())],
        'actions': [dict(records[a['uuid']], uuid=a['uuid'],
                         action_type=a['action_type'],
                         resource_id=(a['input_parameters'] or {}).get(
                             'resource_id'))
                    for a in actions],
        'hosts': {'before': before, 'after': after},
        'off_projection': off_projection(answer['hosts'], before, after),
    }
