"""Preemptible servers: which ones may be preempted, in which order, and
how much allocated capacity a cluster is short of; the rules of Watcher's
approved spec preemptible-instances (openstack/watcher-specs, 2026.2),
as pure functions over the compute model's elements, for the strategy
workload_preemption.

A server is preemptible by its flavor: the extra spec
``lifecycle:preemptable`` (the spec's spelling) read as a boolean the
way oslo.utils reads one (``strutils.bool_from_string``: true, t, yes,
y, on, 1, in any case, with blanks around; anything else, and no extra
spec at all, is false). Nova stores a flavor's extra specs as the
strings the operator gave and checks none in the ``lifecycle:``
namespace, so an unreadable value must mean "no": preempting is
irreversible for a delete.

The flavor may also say how its servers are preempted:
``lifecycle:preempt_policy`` = ``delete`` or ``shelve`` (any case)
overrides the audit's ``preemption_mode`` for them; a value that is
neither keeps them out of the candidates, as the operator's intent is
then unknown and a delete cannot be undone.

``candidates`` is the spec's reusable filter (the mandatory invariant,
the flavor; the conditional ones, the minimum age, and what Nova can do
to the server), ``ordered`` its generalized sort, ``shortfall`` the
arithmetic of the free-capacity thresholds, all over allocated amounts.
"""

from oslo_utils import strutils

from watcher_ha.common import resources

PREEMPTABLE = 'lifecycle:preemptable'
PREEMPT_POLICY = 'lifecycle:preempt_policy'

DELETE, SHELVE = 'delete', 'shelve'
MODES = (DELETE, SHELVE)
ASCENDING, DESCENDING = 'asc', 'dec'
DIRECTIONS = (ASCENDING, DESCENDING)
AGE = 'age'
RESOURCE = 'resource:'
# A sort key: age, or resource:<CLASS> with a class Placement can know,
# the class in any case (the spec's example writes resource:vcpu).
KEY_PATTERN = '(?i)^(%s|%s%s)$' % (AGE, RESOURCE, resources.CLASS_NAME)
DEFAULT_PREFERENCE = [[AGE, DESCENDING]]

# The Nova vm_states in which each way of preempting applies: a delete
# to any server Nova still has, a shelve to the states Nova shelves.
PREEMPTABLE_STATES = {
    DELETE: None,
    SHELVE: frozenset(('active', 'stopped', 'paused', 'suspended')),
}

# {threshold parameter: the model's resource it sets a free share of}.
THRESHOLDS = {'cpu_free_percentage': 'vcpus',
              'ram_free_percentage': 'memory_mb',
              'disk_free_percentage': 'disk_gb'}
RESOURCES = tuple(THRESHOLDS.values())
# What is left short below this is rounding (allocation ratios are
# floats).
EPSILON = 1e-9


def is_preemptible(instance):
    """Whether the server's flavor says it may be preempted."""
    return strutils.bool_from_string(
        instance.flavor_extra_specs_dict.get(PREEMPTABLE), default=False)


def policy_of(instance, mode):
    """How the server is preempted: its flavor's ``preempt_policy``,
    else ``mode`` (the audit's); None when the flavor's is unreadable."""
    given = instance.flavor_extra_specs_dict.get(PREEMPT_POLICY)
    if given is None:
        return mode
    given = given.strip().lower()
    return given if given in MODES else None


def age_of(instance, now):
    """Seconds since Nova created the server; None when unknown."""
    if instance.created_at is None:
        return None
    return (now - instance.created_at).total_seconds()


def exclusion(instance, now, min_age, mode):
    """Why the server may not be preempted now (a short reason, the same
    for every server excluded alike), or None when it may: the spec's
    invariants (a preemptible flavor; at least ``min_age`` seconds old),
    and what Nova needs to do it (on a host, so holding an allocation
    there; not locked, or Nova refuses; in a state the way it is
    preempted applies to)."""
    if not is_preemptible(instance):
        return 'flavor not preemptible'
    age = age_of(instance, now)
    if age is None:
        return 'creation time unknown'
    if age < min_age:
        return 'younger than min_instance_age'
    if instance.host is None:
        return 'on no host'
    if instance.locked:
        return 'locked'
    policy = policy_of(instance, mode)
    if policy is None:
        return '%s neither %s' % (PREEMPT_POLICY, ' nor '.join(MODES))
    states = PREEMPTABLE_STATES[policy]
    if states is not None and instance.state not in states:
        return 'Nova does not %s a server %s' % (policy, instance.state)
    return None


def candidates(instances, now, min_age, mode):
    """The servers of ``instances`` that may be preempted, in their
    order (the reusable filter of the spec's "Candidate Filtering &
    Invariants")."""
    return [instance for instance in instances
            if exclusion(instance, now, min_age, mode) is None]


def preference(given):
    """The audit's ``preemption_preference`` (checked against KEY_PATTERN
    and DIRECTIONS by the parameters' schema) as (key, direction) pairs,
    the key normalized: ``age``, or ``resource:`` and the class in upper
    case."""
    found = []
    for key, direction in given:
        if key.lower() == AGE:
            key = AGE
        else:
            key = RESOURCE + key[len(RESOURCE):].upper()
        found.append((key, direction))
    return found


def sort_value(instance, key, now):
    """The server's value for a (normalized) sort key: its age in
    seconds, or its allocation of the class (0 when it holds none)."""
    if key == AGE:
        return age_of(instance, now) or 0
    return instance.allocation(key[len(RESOURCE):])


def ordered(instances, pairs, now):
    """``instances`` in the order of preemption ``pairs`` ((key,
    direction), most important first): a stable sort per key, from the
    last key to the first, so that each key breaks the ties of those
    before it and servers equal on every key keep their order
    (the spec's "Generalized Priority Sorting")."""
    found = list(instances)
    for key, direction in reversed(pairs):
        found.sort(key=lambda instance: sort_value(instance, key, now),
                   reverse=direction == DESCENDING)
    return found


def thresholds_of(parameters):
    """{resource: percentage to keep free} for the thresholds set."""
    return {resource: float(parameters[name])
            for name, resource in THRESHOLDS.items()
            if parameters.get(name) is not None}


def free_percent(capacity, used):
    """The free share of ``capacity``, in percent (0 without any)."""
    if capacity <= 0:
        return 0.0
    return 100.0 * (capacity - used) / capacity


def shortfall(capacity, used, thresholds):
    """{resource: amount to free} so that each resource of
    ``thresholds`` ({resource: percent}) has that share of its
    ``capacity`` free given what is ``used`` ({resource: amount} each);
    0 where it has already."""
    short = {}
    for resource, percent in thresholds.items():
        wanted_free = capacity[resource] * percent / 100.0
        missing = wanted_free - (capacity[resource] - used[resource])
        short[resource] = missing if missing > EPSILON else 0
    return short
