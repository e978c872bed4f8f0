"""An application's members as Heat holds them (doc/source/
app_failover.rst, "Through Heat"), read and acted on as Heat's API
expects (doc/source/simulator.rst, "Orchestration (Heat)", has the facts
and where in Heat they were read):

* a member of an AutoScalingGroup or a ResourceGroup is a resource of
  the group's NESTED stack: found from the top stack by its server's id
  (``physical_resource_id``, ``nested_depth``), and marked unhealthy
  there (Heat looks for the resource among that stack's own only);
* an update of the top stack with ``existing`` replaces every resource
  marked unhealthy (CHECK_FAILED), the parent always updating a group's
  nested stack: the new server made first, the old deleted after (a
  server already gone from Nova deletes fine);
* a second update while one runs is accepted by Heat's convergence
  engine (it supersedes the first), so an update is sent only when none
  runs;
* a signal to an OS::Heat::WaitConditionHandle is kept in its metadata
  under the signal's ``id``: what tells a signal sent from one not.
"""

from heatclient import exc as heat_exc

# Heat caps nested_depth at 5.
NESTED_DEPTH = 5
UNHEALTHY = 'CHECK_FAILED'


class StackError(Exception):
    """Heat does not show what the caller needs, or refused it."""


def said(err):
    """What a heatclient error says (Heat's error document's message)."""
    error = getattr(err, 'error', None)
    if isinstance(error, dict):
        found = error.get('error') or {}
        return '%s: %s' % (found.get('type'), found.get('message'))
    return str(err)


class Member:
    """Where Heat holds a server: ``stack`` (``name/id``) holding the
    resource ``name``, with its ``status`` and ``server``."""

    def __init__(self, resource):
        self.name = resource.resource_name
        self.status = resource.resource_status
        self.server = resource.physical_resource_id
        [href] = [link['href'] for link in resource.links
                  if link['rel'] == 'stack']
        self.stack = '/'.join(href.split('/')[-2:])


def top(heat, stack):
    """The top stack ``stack`` (a name or id) as Heat shows it, or
    StackError."""
    try:
        return heat.stacks.get(stack, resolve_outputs=False)
    except heat_exc.HTTPNotFound:
        raise StackError('Heat has no stack %s: give the name or id of the '
                         'application\'s top stack (openstack stack list)'
                         % stack)


def member_of(heat, stack, server):
    """The Member holding ``server`` anywhere under the top ``stack``, or
    None."""
    found = heat.resources.list(
        stack, nested_depth=NESTED_DEPTH,
        filters={'physical_resource_id': server})
    found = [r for r in found if r.physical_resource_id == server]
    return Member(found[0]) if found else None


def resource(heat, stack, name):
    """The Member ``name`` of ``stack`` (``name/id``), or None."""
    try:
        return Member(heat.resources.get(stack, name))
    except heat_exc.HTTPNotFound:
        return None


def signalled(heat, stack, name, signal_id):
    """Whether the WaitConditionHandle ``name`` of ``stack`` holds the
    signal ``signal_id`` (its metadata keeps each signal under its id)."""
    try:
        return signal_id in (heat.resources.metadata(stack, name) or {})
    except heat_exc.HTTPNotFound:
        raise StackError('stack %s has no resource %s to signal'
                         % (stack, name))
