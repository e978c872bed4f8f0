"""What each action type does to where servers run and to what hosts
hold, as a what-if projects it (projection.py runs them in the plan's
order).

Rules as data: ``RULES`` maps an action type to a function of the
projection's view (``View``: the model as the actions before have left
it) and the action's input parameters, which returns the action's
``Effect``: what it takes on hosts from its start (a migration's
destination, a resize's new size: Placement holds both ends while Nova
works), what it gives back at its end (the source, the old size), and
what the model reads once it ended (``edits``). An action type without a
rule changes no placement and no capacity (nop, sleep, a volume's move,
an application's activation, a server's restart...): the answer lists
them as not projected, and why.

Where the plan leaves the host to Nova (a migration or an evacuation
without a destination, a replacement member), the view chooses as Nova's
default weighers do: among the up, enabled hosts with room (and in the
server's pinned zone), the one with the most free memory. A resize is
projected on the server's host: Nova's scheduler may put it elsewhere.
A shelve frees the host, as Nova does with its default
``shelved_offload_time`` (0: offloaded at once).

Each rule also says how the model differs from what the plan expected
(``stale``): a server gone since, on another host than the plan's
``source_node``, already where or as the action would leave it. Such an
action is projected from where the server is now, or not at all when
there is nothing left for it to do, as the applier would skip it.
"""

import dataclasses

from watcher_ha.common.instance_ha import packing
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.strategy import moves

RESOURCES = moves.RESOURCES

# What became of an action in the projection.
PROJECTED = 'projected'
NOT_PROJECTED = 'not projected'
# Nova would find no host for it.
UNPLACED = 'unplaced'

NO_RULE = 'changes no placement or capacity'


def size_of(server):
    """(vcpus, memory_mb, disk_gb) a server takes on its host."""
    return moves.need_of(server)


@dataclasses.dataclass(frozen=True)
class Effect:
    """One action's effect. ``claims`` and ``releases``: ((hostname,
    size), ...); ``edits``: what the model reads once it ended, each
    ('server', uuid, {field: value}), ('node', hostname, {field:
    value}), ('gone', uuid, None) or ('new', uuid, Instance);
    ``moves``: ((server, source, destination),) for the budgets."""
    outcome: str = PROJECTED
    claims: tuple = ()
    releases: tuple = ()
    edits: tuple = ()
    moves: tuple = ()
    note: str | None = None
    stale: str | None = None


def _not_projected(note, stale=None):
    return Effect(NOT_PROJECTED, note=note, stale=stale)


def _server(view, parameters):
    """(the server the action names, None) or (None, the Effect of an
    action whose server the model does not have)."""
    uuid = parameters.get('resource_id')
    server = view.server(uuid)
    if server is not None:
        return server, None
    return None, _not_projected(
        'its server is not in the model',
        'server %s is not in the model (deleted since the plan was '
        'made?)' % uuid)


def _elsewhere(server, parameters):
    """What differs about where the server is, if anything."""
    expected = parameters.get('source_node')
    if expected and server.host != expected:
        return ('server %s is on %s, not on %s (its source_node): '
                'projected from %s' % (server.uuid, server.host, expected,
                                       server.host))
    return None


def _move(server, destination, stale, note=None):
    size = size_of(server)
    return Effect(claims=((destination, size),),
                  releases=((server.host, size),),
                  edits=(('server', server.uuid, {'host': destination}),),
                  moves=((server, server.host, destination),),
                  note=note, stale=stale)


def _to(view, server, parameters, destination, stale):
    """The Effect of moving ``server`` to ``destination`` (None: where
    Nova would put it)."""
    if server.host is None:
        return _not_projected('its server is on no host', stale or (
            'server %s is on no host now (shelved or being built)'
            % server.uuid))
    if destination is not None:
        if view.node(destination) is None:
            return _not_projected(
                'its destination is not in the model', stale or
                'destination %s is not in the model' % destination)
        if destination == server.host:
            return _not_projected(
                'its server is on its destination already',
                'server %s is on %s already' % (server.uuid, destination))
        return _move(server, destination, stale)
    chosen = view.schedule(size_of(server), exclude=(server.host,),
                           zone=server.pinned_availability_zone)
    if chosen is None:
        return Effect(UNPLACED, note='no host has room for it where Nova '
                      'would look (up, enabled, with room)', stale=stale)
    return _move(server, chosen, stale,
                 note='Nova chooses the host: projected on %s, the one '
                      'with the most free memory' % chosen)


def migrate(view, parameters):
    server, missing = _server(view, parameters)
    if missing:
        return missing
    return _to(view, server, parameters,
               parameters.get('destination_node'),
               _elsewhere(server, parameters))


def evacuate(view, parameters):
    server, missing = _server(view, parameters)
    if missing:
        return missing
    destination = parameters.get('destination_node')
    if destination is None and parameters.get('destination_from_claim'):
        destination = view.claimed_for(server.uuid)
    return _to(view, server, parameters, destination,
               _elsewhere(server, parameters))


def resize(view, parameters):
    server, missing = _server(view, parameters)
    if missing:
        return missing
    new = view.flavor(parameters['flavor'])
    if new is None:
        return _not_projected('flavor %s is unknown to Nova'
                              % parameters['flavor'])
    old = size_of(server)
    if new == old:
        return _not_projected(
            'its server has that size already',
            'server %s has the size of flavor %s already'
            % (server.uuid, parameters['flavor']))
    if server.host is None:
        return _not_projected('its server is on no host')
    return Effect(claims=((server.host, new),),
                  releases=((server.host, old),),
                  edits=(('server', server.uuid,
                          dict(zip(RESOURCES, new, strict=True))),),
                  note='projected on its host, where Nova may choose '
                       'another')


def _freeing(view, parameters, edit, already=None, note=None):
    """A server action that frees its host (shelve, delete)."""
    server, missing = _server(view, parameters)
    if missing:
        return missing
    if server.host is None or (already and server.state in already):
        return _not_projected('its server holds no host',
                              'server %s is %s already'
                              % (server.uuid, server.state))
    return Effect(releases=((server.host, size_of(server)),),
                  edits=(edit(server),), note=note)


def shelve(view, parameters):
    return _freeing(
        view, parameters,
        lambda server: ('server', server.uuid,
                        {'host': None, 'state': 'shelved_offloaded'}),
        already=('shelved', 'shelved_offloaded'),
        note='offloaded at once, as with Nova\'s default '
             'shelved_offload_time')


def delete(view, parameters):
    return _freeing(view, parameters,
                    lambda server: ('gone', server.uuid, None))


def stop(view, parameters):
    server, missing = _server(view, parameters)
    if missing:
        return missing
    return Effect(edits=(('server', server.uuid, {'state': 'stopped'}),),
                  note='a stopped server keeps what it holds')


def _node(view, hostname, values, already):
    """An action on a compute node's service or power: its node as
    ``values`` say once it ended."""
    node = view.node(hostname)
    if node is None:
        return _not_projected('its host is not in the model',
                              'host %s is not in the model' % hostname)
    if all(getattr(node, key) == value for key, value in values.items()):
        return _not_projected(already, 'host %s is %s already' % (
            hostname, ', '.join(values.values())))
    return Effect(edits=(('node', hostname, values),))


def change_nova_service_state(view, parameters):
    return _node(view, parameters['resource_name'],
                 {'status': parameters['state']},
                 'its compute service is in that state already')


def force_host_down(view, parameters):
    return _node(view, parameters['resource_name'],
                 {'state': 'down', 'status': 'disabled'},
                 'its host is down and disabled already')


def power_off_host(view, parameters):
    return _node(view, parameters['resource_name'], {'state': 'down'},
                 'its host is down already')


def change_node_power_state(view, parameters):
    hostname = parameters.get('resource_name') or parameters['resource_id']
    return _node(view, hostname,
                 {'state': 'up' if parameters['state'] == 'on' else 'down'},
                 'its host is in that power state already')


def claim_reserved_hosts(view, parameters):
    """The fewest reserved hosts that hold the failed host's servers, as
    the action chooses them (common/instance_ha/packing.py) from the
    room the plan recorded; its evacuations go there."""
    servers = {uuid: packing.Size(**size)
               for uuid, size in (parameters.get('servers') or {}).items()}
    chosen = packing.fewest_hosts(servers,
                                  parameters.get('capacity') or {})
    view.hold_reserved(chosen.placement, chosen.hosts)
    return Effect(note='holds %s' % (', '.join(chosen.hosts) or 'nothing'))


def replace_member(view, parameters):
    """A new server of the failed member's flavor, where Nova puts it
    (not on the failed member's host)."""
    size = view.flavor(parameters.get('flavor') or '')
    if size is None:
        return _not_projected('its flavor is unknown to Nova')
    failed = view.server(parameters['replaces'])
    avoid = (failed.host,) if failed is not None and failed.host else ()
    chosen = view.schedule(size, exclude=avoid)
    if chosen is None:
        return Effect(UNPLACED, note='no host has room for it where Nova '
                      'would look (up, enabled, with room)')
    uuid = 'replacement of %s' % parameters['replaces']
    new = elements.Instance(
        uuid=uuid, name=parameters.get('resource_name') or uuid,
        host=chosen, **dict(zip(RESOURCES, size, strict=True)))
    return Effect(claims=((chosen, size),), edits=(('new', uuid, new),),
                  note='Nova chooses the host: projected on %s' % chosen)


RULES = {
    'migrate': migrate,
    'evacuate': evacuate,
    'resize': resize,
    'shelve': shelve,
    'delete': delete,
    # An application's failed member, deleted in Nova.
    'evict_member': delete,
    'stop': stop,
    'change_nova_service_state': change_nova_service_state,
    'force_host_down': force_host_down,
    'power_off_host': power_off_host,
    'change_node_power_state': change_node_power_state,
    'claim_reserved_hosts': claim_reserved_hosts,
    'replace_member': replace_member,
}

# Server moves, counted against the audit's disruption budget.
MOVES = ('migrate', 'evacuate')


def effect(view, action_type, parameters):
    """The Effect of one action; NOT_PROJECTED for a type without a
    rule."""
    rule = RULES.get(action_type)
    if rule is None:
        return _not_projected(NO_RULE)
    return rule(view, parameters)
