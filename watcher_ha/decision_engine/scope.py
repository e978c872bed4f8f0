"""An audit's scope: which part of the compute and storage data models
its strategy sees, in Watcher's format.

A scope is a list of sections, each naming its model: ``[{"compute":
[rule, ...]}]``; a list of bare compute rules (Watcher's older format)
is taken as the compute section. The rules:

- ``{"host_aggregates": [{"id": 3}, {"name": "rack-1"}]}`` and
  ``{"availability_zones": [{"name": "az1"}]}`` keep only the nodes of
  those aggregates or zones (of all such rules together); ``"*"`` alone
  means all of them. A rule that matches no node leaves none.
- ``{"exclude": [...]}`` removes ``compute_nodes`` (``{"name": ...}``)
  and the nodes of ``host_aggregates``, and leaves out of the plan the
  ``instances`` (``{"uuid": ...}``), the servers of ``projects``
  (``{"uuid": ...}``) and those whose metadata holds every pair of one
  of ``instance_metadata`` (values compared as lower-case text).

A node outside the scope is gone from the strategy's model, its servers
with it. A server left out of the plan on a node in the scope still takes
room there: it leaves the model as a server and stays as the node's
hold (``ComputeNode.*_held``), so no strategy can move it and none can
count its room as free.

The storage section's rules (``[{"storage": [rule, ...]}]``) are read by
storage_scope.py: ``availability_zones`` and ``volume_types`` keep the
backends of those zones or types, ``exclude`` removes ``storage_pools``
(``{"name": "host@backend#pool"}``) and leaves out ``volumes`` and the
volumes of ``projects`` (``{"uuid": ...}``).

The schema and ``check`` of a scope are common/audit_scope.py's.
"""

import dataclasses

from watcher_ha.common import audit_scope
from watcher_ha.common import resources


@dataclasses.dataclass
class _Selection:
    kept: set | None = None         # None: every node
    removed: set = dataclasses.field(default_factory=set)
    left_out: set = dataclasses.field(default_factory=set)


def _aggregate_nodes(state, aggregates):
    ids = {a['id'] for a in aggregates if 'id' in a}
    names = {a['name'] for a in aggregates if 'name' in a}
    every = '*' in ids or '*' in names
    wanted = {name for name, aggregate in state.aggregates.items()
              if every or name in names or aggregate.id in ids}
    return {hostname for hostname, node in state.nodes.items()
            if every and node.aggregates or node.aggregates & wanted}


def _zone_nodes(state, zones):
    names = {zone['name'] for zone in zones}
    return {hostname for hostname, node in state.nodes.items()
            if '*' in names or node.availability_zone in names}


def _select(state, rules):
    selection = _Selection(
        kept=audit_scope.kept(rules, {
            'host_aggregates': lambda named: _aggregate_nodes(state, named),
            'availability_zones': lambda named: _zone_nodes(state, named)}),
        removed=audit_scope.excluded(rules, 'compute_nodes', 'name'),
        left_out=audit_scope.excluded(rules, 'instances', 'uuid'))
    for item in audit_scope.exclusions(rules):
        if item.get('host_aggregates'):
            selection.removed |= _aggregate_nodes(
                state, item['host_aggregates'])
    projects = audit_scope.excluded(rules, 'projects', 'uuid')
    metadata = [pairs for item in audit_scope.exclusions(rules)
                for pairs in item.get('instance_metadata', ())]
    if projects or metadata:
        # Only these two look at every server.
        for uuid, instance in state.instances.items():
            if instance.project_id in projects or any(
                    _holds(instance.metadata_dict, pairs)
                    for pairs in metadata):
                selection.left_out.add(uuid)
    return selection


def _holds(metadata, pairs):
    return bool(pairs) and all(
        key in metadata and str(metadata[key]).lower()
        == str(value).lower() for key, value in pairs.items())


def narrowed(state, scope):
    """(``state`` without the nodes outside ``scope``, their servers gone
    with them; the uuids of the servers the scope leaves out of the plan,
    on the nodes kept). ``state`` itself and no server when the scope has
    no compute rule."""
    rules = audit_scope.compute_rules(scope)
    if not rules:
        return state, frozenset()
    selection = _select(state, rules)
    changes = state.changes()
    for hostname in sorted(state.nodes):
        if hostname in selection.removed or (
                selection.kept is not None
                and hostname not in selection.kept):
            for instance in state.instances_on(hostname):
                changes.remove_instance(instance.uuid, instance.stamp)
            changes.remove_node(hostname)
    kept = dataclasses.replace(changes.state(), generation=state.generation)
    return kept, frozenset(uuid for uuid in selection.left_out
                           if kept.instance(uuid) is not None)


def apply(state, scope):
    """The part of ``state`` (a ClusterState) that ``scope`` lets its
    strategy see and move; ``state`` itself when the scope has no compute
    rule."""
    kept, left_out = narrowed(state, scope)
    if not left_out:
        return kept
    changes = kept.changes()
    for hostname in sorted(kept.nodes):
        leaving = [i for i in kept.instances_on(hostname)
                   if i.uuid in left_out]
        if not leaving:
            continue
        node = kept.nodes[hostname]
        changes.put_node(dataclasses.replace(node, **{
            resource + '_held': node.held(resource) + sum(
                getattr(i, resource) for i in leaving)
            for resource in resources.RESOURCE_CLASSES.values()}))
        for instance in leaving:
            changes.remove_instance(instance.uuid, instance.stamp)
    return dataclasses.replace(changes.state(),
                               generation=state.generation)
