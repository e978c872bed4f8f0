"""A what-if: a RECOMMENDED plan run on a copy of the engine's compute
model, and the answer the API gives of it (watcher-ha 1.3, ``GET
/v1/action_plans/{uuid}/what_if``; doc/source/what_if.rst).

``for_plan`` reads what the projection needs (the plan, its actions, its
audit's parameters and goal, the failover segments) and hands it, with
the model's current state, to ``answer``, which runs the projection
(projection.py) and says, per host, what it holds before and after; the
plan's worst moment; its efficacy indicators, stored and as the goal
tells them from the projection; what each failover segment keeps to
absorb a host failure (failover.py); and the budget the plan's moves
take (budgets.py). Nothing is written: the live model, the database and
the cloud are only read.

The projection starts from the model as it is now, not as it was when
the plan was made: where the two differ for an action (its server gone,
or moved), the answer names the difference and projects from now.
"""

import collections

from keystoneauth1 import exceptions as ks_exc
from novaclient import exceptions as nova_exc

from watcher_ha.cloud import flavors as flavors_mod
from watcher_ha.db import action_plans
from watcher_ha.db import audit_pipelines
from watcher_ha.db import audit_runs
from watcher_ha.db import failover_segments
from watcher_ha.db import plan_runs
from watcher_ha.db import reserved_hosts
from watcher_ha.decision_engine.datasources import metrics as metrics_mod
from watcher_ha.decision_engine.what_if import budgets
from watcher_ha.decision_engine.what_if import effects
from watcher_ha.decision_engine.what_if import failover
from watcher_ha.decision_engine.what_if import projection as projection_mod

RESOURCES = projection_mod.RESOURCES
# At most this many differences between the plan and the model are named.
NAMED_DIFFERENCES = 100
CPU_METRIC = 'instance_cpu_usage'


class Projected:
    """What a goal reads of a projection (Goal.projected_indicators)."""

    def __init__(self, run):
        self.before = run.before
        self.after = run.after
        self.moves = run.moved()


def nova_flavors(nova):
    """A flavor's size by its id or name, read from Nova (``nova()``: the
    client, made on first use) once per flavor; None for one Nova does
    not have or did not tell."""
    found = {}

    def size(ref):
        if ref not in found:
            try:
                found[ref] = flavors_mod.size(flavors_mod.find(nova(), ref))
            except (nova_exc.ClientException, ks_exc.ClientException):
                found[ref] = None
        return found[ref]
    return size


def cpu_reader(datasources):
    """The CPU use of servers, in percent of their vcpus, through the
    engine's ``datasources`` as an audit reads it (None without any)."""
    if not datasources:
        return None

    def read(servers):
        try:
            return metrics_mod.AuditMetrics(datasources).instances(
                CPU_METRIC, servers)
        except metrics_mod.MetricUnavailable as err:
            raise ValueError(str(err))
    return read


def for_plan(context, uuid, model, goals, flavors=None, cpu_usage=None,
             all_hosts=False, host=None):
    """The answer for plan ``uuid`` on ``model`` (a ready ClusterModel of
    the engine ``host``); ``goals``: {name: goal class}; ``flavors``,
    ``cpu_usage``: as ``answer`` takes them."""
    plan = action_plans.get_projectable(context, uuid)
    audit = _maker(context, plan)
    plan = dict(plan, efficacy_indicators=action_plans.indicators_of(
        context, [plan['id']])[plan['id']])
    return answer(
        plan, plan_runs.actions_of(context, plan), audit,
        goals.get(audit['goal_name']), model.snapshot(),
        dict(model.info(), host=host),
        failover_segments.every_segment(context),
        reserved_hosts.kept_for_failover(context), flavors=flavors,
        cpu_usage=cpu_usage, all_hosts=all_hosts)


def _maker(context, plan):
    """What made ``plan``, as ``answer`` reads it: its audit; or, for an
    audit pipeline's plan, the pipeline: its stages' goals and strategies
    in order, and no budget of its own (each stage's audit template has
    its own, none of them the plan's as a whole)."""
    if plan.get('audit_uuid'):
        return audit_runs.get(context, plan['audit_uuid'])
    pipeline = audit_pipelines.get(context, plan['audit_pipeline_uuid'],
                                   archived_too=True)
    stages = audit_pipelines.stages_of(context, [pipeline['id']])[
        pipeline['id']]
    return {'goal_name': ', '.join(s['goal_name'] for s in stages),
            'strategy_name': ', '.join(s['strategy_name'] or '?'
                                       for s in stages),
            'parameters': {}}


def answer(plan, actions, audit, goal, state, model_info, segments,
           protected, flavors=None, cpu_usage=None, all_hosts=False):
    """The what-if of ``plan`` (its row, with ``efficacy_indicators``)
    and its ``actions`` (rows, creation order) on ``state`` (the model's
    ClusterState). ``flavors``: {id or name: size} or a function of one,
    for resizes; ``cpu_usage(servers)``: {uuid: percent of its vcpus}
    (None: no metrics), raising ValueError to say why there are none."""
    run = projection_mod.Projection(state, actions, flavors)
    changed = run.changed_hosts()
    listed = changed + (sorted(set(run.capacity) - set(changed))
                        if all_hosts else [])
    usage, usage_note = _cpu_usage(run, changed, cpu_usage)
    differences = run.differences()
    return {
        'action_plan_uuid': plan['uuid'],
        'state': plan['state'],
        'audit_uuid': plan['audit_uuid'],
        'audit_pipeline_uuid': plan.get('audit_pipeline_uuid'),
        'goal': audit['goal_name'],
        'strategy': audit.get('strategy_name'),
        'model': {key: model_info.get(key) for key in (
            'name', 'host', 'generation', 'seconds_since_resync',
            'seconds_since_notification')},
        'stale': bool(differences),
        'differences': [_difference(action, text) for action, text
                        in differences[:NAMED_DIFFERENCES]],
        'differences_count': len(differences),
        'steps': len(run.steps),
        'hosts': [_host(run, hostname, hostname in changed, usage)
                  for hostname in listed],
        'hosts_changed': len(changed),
        'hosts_total': len(run.capacity),
        'cpu_utilisation': usage_note,
        'worst_moment': _moment(run.worst),
        'highest_load_percent': {
            'before': _highest(run.used_before, run.capacity),
            'after': _highest(run.used, run.capacity)},
        'efficacy_indicators': _indicators(plan, goal, run),
        'global_efficacy': plan['global_efficacy'] or [],
        'failover_segments': failover.capacity(
            segments, protected,
            failover.Side(run.before, dict(run.before.nodes.items()),
                          run.used_before, run.capacity),
            failover.Side(run.after, run.nodes, run.used, run.capacity,
                          run.held)),
        'budgets': budgets.used(run.moved(), audit.get('parameters') or {}),
        'actions': _actions(run),
    }


def _round(value):
    return round(value, 2)


def _side(run, hostname, state, node, used, usage):
    capacity = run.capacity[hostname]
    servers = state.placement.get(hostname, ())
    side = {'status': node.status, 'state': node.state,
            'servers': len(servers)}
    for resource, amount, room in zip(RESOURCES, used, capacity,
                                      strict=True):
        side[resource] = {'used': _round(amount), 'capacity': _round(room),
                          'percent': _round(100.0 * amount / room)
                          if room else None}
    side['load_percent'] = _round(projection_mod.load_of(used,
                                                         capacity)[0])
    side['cpu_utilisation_percent'] = _utilisation(
        usage, node, [state.instances[uuid] for uuid in servers])
    return side


def _host(run, hostname, changed, usage):
    return {'name': hostname, 'changed': changed,
            'before': _side(run, hostname, run.before,
                            run.before.node(hostname),
                            run.used_before[hostname], usage),
            'after': _side(run, hostname, run.after, run.nodes[hostname],
                           run.used[hostname], usage)}


def _cpu_usage(run, changed, cpu_usage):
    """({uuid: percent} of the servers on the changed hosts, before and
    after, or None; what the answer says of it)."""
    if cpu_usage is None:
        return None, {'available': False,
                      'reason': 'the decision engine has no datasource'}
    servers = {}
    for state in (run.before, run.after):
        for hostname in changed:
            for uuid in state.placement.get(hostname, ()):
                servers[uuid] = state.instances[uuid]
    try:
        return cpu_usage(list(servers.values())), {
            'available': True, 'metric': CPU_METRIC}
    except ValueError as err:
        return None, {'available': False, 'reason': str(err)}


def _utilisation(usage, node, servers):
    """The CPU the node's ``servers`` use, in percent of its vcpus; None
    without a reading for every one of them."""
    if usage is None or not node.vcpus:
        return None
    try:
        cores = sum(usage[server.uuid] * server.vcpus / 100.0
                    for server in servers)
    except KeyError:
        return None
    return _round(100.0 * cores / node.vcpus)


def _highest(used, capacity):
    best = None
    for hostname, amounts in used.items():
        percent, resource = projection_mod.load_of(amounts,
                                                   capacity[hostname])
        if best is None or percent > best['load_percent']:
            best = {'host': hostname, 'load_percent': _round(percent),
                    'resource': resource}
    return best


def _moment(worst):
    if worst is None:
        return None
    action = worst.action
    return {'host': worst.host, 'load_percent': _round(worst.percent),
            'resource': worst.resource, 'step': worst.step,
            'running': worst.running, 'action_uuid': action['uuid'],
            'action_type': action['action_type'],
            'resource_id': (action['input_parameters'] or {}).get(
                'resource_id')}


def _difference(action, text):
    return {'action_uuid': action['uuid'],
            'action_type': action['action_type'], 'difference': text}


def _indicators(plan, goal, run):
    """The plan's indicators as stored, each with the value the goal
    tells from the projection (None where it cannot), and those only the
    projection has."""
    projected = goal.projected_indicators(Projected(run)) if goal else {}
    shown = []
    for indicator in plan['efficacy_indicators']:
        shown.append(dict(indicator, projected=projected.pop(
            indicator['name'], None), stored=indicator['value']))
        del shown[-1]['value']
    specs = {spec.name: spec for spec in getattr(
        goal, 'efficacy_specification', ())}
    for name, value in projected.items():
        spec = specs.get(name)
        shown.append({'name': name,
                      'description': spec.description if spec else None,
                      'unit': spec.unit if spec else None,
                      'stored': None, 'projected': value})
    return shown


def _actions(run):
    """How many actions of each type were projected, and why the others
    were not."""
    total = collections.Counter()
    projected = collections.Counter()
    others = collections.Counter()
    unplaced = []
    for outcome in run.outcomes:
        kind, effect = outcome.action['action_type'], outcome.effect
        total[kind] += 1
        if effect.outcome == effects.PROJECTED:
            projected[kind] += 1
        elif effect.outcome == effects.UNPLACED:
            unplaced.append({'action_uuid': outcome.action['uuid'],
                             'action_type': kind, 'why': effect.note})
        else:
            others[kind, effect.note] += 1
    return {
        'total': dict(total), 'projected': dict(projected),
        'not_projected': [{'action_type': kind, 'count': count,
                           'why': why}
                          for (kind, why), count in sorted(others.items())],
        'unplaced': unplaced[:NAMED_DIFFERENCES]}
