"""workload_preemption: keep a share of the cluster's allocated capacity
free by preempting preemptible servers (Watcher's approved spec
preemptible-instances, openstack/watcher-specs 2026.2; goal
workload_optimization).

The pool is the compute nodes of the audit's scope (the whole cluster
without one) that take new servers: enabled, up, and not kept for
failover or maintenance. A host that takes no new server has no room to
give an on-demand server, and preempting a server there frees none.
Over the pool, each threshold set (``cpu_free_percentage``,
``ram_free_percentage``, ``disk_free_percentage``; those not set are not
looked at) asks that share of the capacity Placement offers (totals less
reserved, times the allocation ratios) to be free of allocations: what
the servers' flavors hold, and what else Placement counted there at the
last full read. Real use plays no part.

If every threshold is met the audit has nothing to do. Otherwise the
candidates (preemptible.candidates: a preemptible flavor, older than
``min_instance_age``) are taken in the order of
``preemption_preference`` and each is preempted until every threshold is
met: the fewest servers, in that order. A server that frees nothing of
what is still short is passed over. The audit's disruption budget
(``max_migrations`` and its per host and per project limits, as the
strategies that move servers have it) counts the servers preempted; one
it holds back is passed over for the next.

When the candidates (or the budget) cannot meet the thresholds, the plan
preempts all it may and says by how much it falls short, as its status
message (and, with no candidate at all, as the message of an empty
plan).

Each server is deleted or shelved: by its flavor's
``lifecycle:preempt_policy`` when it sets one, else by the audit's
``preemption_mode``.
"""

import collections

from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import moves
from watcher_ha.decision_engine.strategy import preemptible as rules

_PERCENT = {'type': 'number', 'minimum': 0, 'maximum': 100}
_BUDGET = {
    'max_migrations': 'The most servers one plan (one round of a '
                      'continuous audit) may preempt; 0: no limit.',
    'max_migrations_per_host': 'The most servers one plan may preempt on '
                               'any one host; 0: no limit.',
    'max_migrations_per_project': 'The most servers of any one project '
                                  'one plan may preempt; 0: no limit.',
}
# What a resource is called in a message, and its unit.
_SHOWN = {'vcpus': ('vCPU', ''), 'memory_mb': ('RAM', ' MB'),
          'disk_gb': ('disk', ' GB')}


class WorkloadPreemption(base.Strategy):
    name = 'workload_preemption'
    display_name = 'Workload Preemption'
    goal = 'workload_optimization'
    data_models = ('compute',)
    parameters_spec = {'properties': {
        **{name: dict(_PERCENT, description='The share of the '
                      'allocatable %s to keep free of allocations, in '
                      'percent; not set: not looked at.' % what)
           for name, what in (('cpu_free_percentage', 'vCPUs'),
                              ('ram_free_percentage', 'RAM'),
                              ('disk_free_percentage', 'disk'))},
        'min_instance_age': {
            'description': 'Seconds a server must have lived before it '
                           'may be preempted.',
            'type': 'integer', 'minimum': 0, 'default': 3600},
        'preemption_preference': {
            'description': 'The order in which candidates are preempted: '
                           '[key, direction] pairs, the first the most '
                           'important; key "age" or "resource:<CLASS>" '
                           '(a Placement resource class: a standard one '
                           'or CUSTOM_*; a server holding none of it '
                           'counts 0), direction "asc" or "dec".',
            'type': 'array', 'minItems': 1,
            'items': {'type': 'array', 'minItems': 2,
                      'additionalItems': False,
                      'items': [
                          {'type': 'string', 'pattern': rules.KEY_PATTERN},
                          {'type': 'string', 'enum': list(rules.DIRECTIONS)}]},
            'default': rules.DEFAULT_PREFERENCE},
        'preemption_mode': {
            'description': 'How a server is preempted unless its flavor\'s '
                           'lifecycle:preempt_policy says: deleted, or '
                           'shelved.',
            'type': 'string', 'enum': list(rules.MODES),
            'default': rules.DELETE},
        **{key: dict(moves.BUDGET_PARAMETERS[key], description=text)
           for key, text in _BUDGET.items()},
    }}

    # When "now" is, for the servers' ages (tests set their own).
    now = staticmethod(elements.utcnow)

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        thresholds = rules.thresholds_of(parameters)
        if not thresholds:
            raise base.StrategyError(
                'workload_preemption enforces only the thresholds it is '
                'given: set at least one of %s'
                % ', '.join(rules.THRESHOLDS))
        pool = [node for node in cluster.nodes.values()
                if moves.is_destination(node, self.protected_hosts)]
        if not pool:
            raise base.NothingToDo(
                'no compute node in the audit\'s scope takes new servers '
                '(enabled, up, not kept for failover or maintenance): '
                'there is no capacity to free')
        capacity = {r: sum(node.capacity(r) for node in pool)
                    for r in rules.RESOURCES}
        used = {r: 0 for r in rules.RESOURCES}
        for node in pool:
            for resource, amount in moves.used_on(cluster, node).items():
                used[resource] += amount
        short = rules.shortfall(capacity, used, thresholds)
        if not any(short.values()):
            raise base.NothingToDo(
                'the free allocated capacity meets every threshold: %s'
                % _shares(capacity, used, thresholds))
        now = self.now()
        mode = parameters['preemption_mode']
        servers = [server for node in pool
                   for server in cluster.instances_on(node.hostname)]
        order = rules.ordered(
            rules.candidates(servers, now, parameters['min_instance_age'],
                             mode),
            rules.preference(parameters['preemption_preference']), now)
        chosen, left, held_back = choose(order, short,
                                         moves.Budget(parameters))
        solution = self.new_solution()
        for server in chosen:
            solution.add_action(rules.policy_of(server, mode),
                                {'resource_name': server.name},
                                resource_id=server.uuid)
        solution.set_indicator('preempted_instances_count', len(chosen))
        for indicator, resource in (('vcpu_freed', 'vcpus'),
                                    ('mem_mb_freed', 'memory_mb'),
                                    ('disk_gb_freed', 'disk_gb')):
            solution.set_indicator(indicator, sum(
                getattr(server, resource) for server in chosen))
        if any(left.values()):
            solution.note = _falls_short(
                left, len(order), held_back,
                _excluded(servers, now, parameters))
        return solution


def choose(ordered, short, budget):
    """(the servers to preempt, {resource: amount still short}, how many
    the budget held back): ``ordered`` taken in turn until nothing of
    ``short`` ({resource: amount to free}) is left, passing over a server
    that frees nothing still short and one ``budget`` (moves.Budget)
    does not allow."""
    left = dict(short)
    chosen, held_back = [], 0
    for server in ordered:
        if not any(left.values()):
            break
        if not any(left[r] and getattr(server, r) > 0 for r in left):
            continue
        if not budget.allows([(server.host, server.project_id)]):
            held_back += 1
            continue
        budget.spend(server.host, server.project_id)
        chosen.append(server)
        for resource in left:
            missing = left[resource] - getattr(server, resource)
            left[resource] = missing if missing > rules.EPSILON else 0
    return chosen, left, held_back


def _amount(resource, amount):
    name, unit = _SHOWN[resource]
    return '%s%s of %s' % (_number(amount), unit, name)


def _number(value):
    return '%d' % value if value == int(value) else '%.1f' % value


def _shares(capacity, used, thresholds):
    """'vCPU 45.0 % free (20 % asked), ...' of the thresholds set."""
    return ', '.join(
        '%s %.1f %% free (%s %% asked)' % (
            _SHOWN[r][0], rules.free_percent(capacity[r], used[r]),
            _number(percent))
        for r, percent in thresholds.items())


def _excluded(servers, now, parameters):
    """{reason: count} of the preemptible servers of the pool that are
    no candidates."""
    found = collections.Counter()
    for server in servers:
        if rules.is_preemptible(server):
            found[rules.exclusion(server, now,
                                  parameters['min_instance_age'],
                                  parameters['preemption_mode'])] += 1
    found.pop(None, None)
    return found


def _falls_short(left, candidates, held_back, excluded):
    """The plan's status message when it cannot meet the thresholds."""
    text = ('the thresholds cannot be met: preempting every candidate it '
            'may (%d server(s) found) leaves %s still to free'
            % (candidates, ', '.join(_amount(r, amount)
                                     for r, amount in left.items()
                                     if amount)))
    if held_back:
        text += ('; the disruption budget (max_migrations, '
                 'max_migrations_per_host, max_migrations_per_project) '
                 'held back %d candidate(s)' % held_back)
    if excluded:
        text += '; preemptible servers that are no candidates: %s' % (
            ', '.join('%d (%s)' % (count, kind)
                      for kind, count in sorted(excluded.items())))
    return text
