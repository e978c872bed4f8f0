"""The storage section of an audit's scope, applied to a StorageState:
what part of Cinder's backends, pools and volumes the strategy sees and
may move (Watcher's storage scope; common/audit_scope.py checks the rules
on input).

- ``availability_zones`` and ``volume_types`` keep only the backends
  (storage nodes, ``host@backend``) of those zones, or whose backend
  name one of those types asks for (a type with no
  ``volume_backend_name`` asks for none); ``"*"`` alone means every
  backend. The rules add up; a rule that matches no backend leaves none.
  A backend outside the scope is gone, with its pools and their volumes.
- ``exclude`` removes ``storage_pools`` (by name, ``host@backend#pool``)
  with their volumes, and leaves out ``volumes`` and the volumes of
  ``projects`` (by uuid): those are gone from the model, so no strategy
  moves them, while their pool's capacities, which Cinder reports, still
  count the room they take.

Unlike Watcher's, nothing here asks Cinder anything: the backends' zones
and types are in the model (Watcher's volume_types rule also fails every
audit, calling its helper with an argument too many).
"""

import dataclasses

from watcher_ha.common import audit_scope
from watcher_ha.decision_engine.model import storage_elements

WILDCARD = '*'


@dataclasses.dataclass
class _Selection:
    kept: set | None = None         # backends; None: every one
    pools: set = dataclasses.field(default_factory=set)
    volumes: set = dataclasses.field(default_factory=set)
    projects: set = dataclasses.field(default_factory=set)


def _zone_backends(state, zones):
    names = {zone['name'] for zone in zones}
    return {host for host, node in state.nodes.items()
            if WILDCARD in names or node.zone in names}


def _type_backends(state, types):
    names = {volume_type['name'] for volume_type in types}
    if WILDCARD in names:
        return set(state.nodes)
    # A type's backend name is in the model's types; a node lists the
    # types bound to its backend too, as the collector read them.
    wanted = {t.volume_backend_name for t in state.volume_types.values()
              if t.name in names and t.volume_backend_name}
    return {host for host, node in state.nodes.items()
            if node.backend in wanted or names & set(node.volume_types)}


def _select(state, rules):
    return _Selection(
        kept=audit_scope.kept(rules, {
            'availability_zones': lambda named: _zone_backends(state, named),
            'volume_types': lambda named: _type_backends(state, named)}),
        pools=audit_scope.excluded(rules, 'storage_pools', 'name'),
        volumes=audit_scope.excluded(rules, 'volumes', 'uuid'),
        projects=audit_scope.excluded(rules, 'projects', 'uuid'))


def apply(state, scope):
    """The part of ``state`` (a StorageState) that ``scope`` lets its
    strategy see and move; ``state`` itself when the scope has no
    storage rule."""
    rules = audit_scope.storage_rules(scope)
    if not rules:
        return state
    selection = _select(state, rules)
    changes = state.changes()
    removed_pools = set()
    for name, pool in sorted(state.pools.items()):
        if name in selection.pools or (selection.kept is not None
                                       and pool.node not in selection.kept):
            removed_pools.add(name)
    if selection.kept is not None:
        for host in sorted(set(state.nodes) - selection.kept):
            changes.remove_node(host)
    for name in sorted(removed_pools):
        changes.remove_pool(name)
    for uuid, volume in sorted(state.volumes.items()):
        gone = (volume.pool in removed_pools
                or (volume.pool is not None and selection.kept is not None
                    and storage_elements.backend_of(volume.pool)
                    not in selection.kept)
                or uuid in selection.volumes
                or volume.project_id in selection.projects)
        if gone:
            # Not final: a scope's removal is no deletion in Cinder.
            changes.remove_volume(uuid, volume.stamp, final=False)
    return dataclasses.replace(changes.state(),
                               generation=state.generation)


def summary(whole, scoped):
    """What the scope left, for the audit's log."""
    return ('%d of %d backend(s), %d of %d pool(s) and %d of %d volume(s)'
            % (len(scoped.nodes), len(whole.nodes), len(scoped.pools),
               len(whole.pools), len(scoped.volumes), len(whole.volumes)))
