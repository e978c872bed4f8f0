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

``check`` refuses, on input, what Watcher's schema refuses, and what
Watcher accepts and then fails every audit on (a wildcard next to other
names; aggregates both kept and excluded).
"""

import dataclasses

import jsonschema

from watcher_ha.decision_engine.model import elements

# An aggregate named by Nova's id ("*": every one) or by its name.
_AGGREGATE = {'anyOf': [
    {'type': 'object',
     'properties': {'id': {'oneOf': [{'type': 'integer'},
                                     {'enum': ['*']}]}},
     'required': ['id'], 'additionalProperties': False},
    {'type': 'object', 'properties': {'name': {'type': 'string'}},
     'required': ['name'], 'additionalProperties': False}]}


def _named(key):
    return {'type': 'array', 'items': {
        'type': 'object', 'properties': {key: {'type': 'string'}},
        'required': [key], 'additionalProperties': False}}


COMPUTE_SCHEMA = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'host_aggregates': {'type': 'array', 'items': _AGGREGATE},
            'availability_zones': _named('name'),
            'exclude': {'type': 'array', 'items': {
                'type': 'object',
                'properties': {
                    'instances': _named('uuid'),
                    'compute_nodes': _named('name'),
                    'host_aggregates': {'type': 'array',
                                        'items': _AGGREGATE},
                    'instance_metadata': {'type': 'array',
                                          'items': {'type': 'object'}},
                    'projects': _named('uuid'),
                },
                'additionalProperties': False}},
        },
        'additionalProperties': False}}

# Watcher's (its Cinder collector's SCHEMA), each item naming what it
# names; Watcher lets anything more through in an exclude item, by a
# misplaced additionalProperties.
STORAGE_SCHEMA = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'availability_zones': _named('name'),
            'volume_types': _named('name'),
            'exclude': {'type': 'array', 'items': {
                'type': 'object',
                'properties': {
                    'storage_pools': _named('name'),
                    'volumes': _named('uuid'),
                    'projects': _named('uuid'),
                },
                'additionalProperties': False}},
        },
        'additionalProperties': False}}

# The sections of the models watcher_ha keeps; Watcher's baremetal
# section is accepted (watcher_ha keeps no baremetal model) but not read.
SCHEMA = {
    'type': 'array',
    'items': {'type': 'object',
              'properties': {'compute': COMPUTE_SCHEMA,
                             'storage': STORAGE_SCHEMA,
                             'baremetal': {'type': 'array'}},
              'additionalProperties': False}}

_VALIDATOR = jsonschema.Draft4Validator(SCHEMA)


class InvalidScope(ValueError):
    pass


def normalised(scope):
    """``scope`` with bare compute rules (Watcher's older format) put in
    a compute section."""
    if scope and isinstance(scope[0], dict) and scope[0] and next(
            iter(scope[0])) not in ('compute', 'storage', 'baremetal'):
        return [{'compute': scope}]
    return scope


def check(scope):
    """The scope, normalised; InvalidScope saying what is wrong."""
    if not isinstance(scope, list):
        raise InvalidScope('scope must be a list of sections, such as '
                           '[{"compute": [{"availability_zones": '
                           '[{"name": "az1"}]}]}]')
    scope = normalised(scope)
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(scope))
    if error is not None:
        where = ''.join('[%r]' % p for p in error.absolute_path)
        raise InvalidScope('scope%s: %s' % (where, error.message))
    rules = compute_rules(scope)
    kept = [a for rule in rules for a in rule.get('host_aggregates', ())]
    excluded = [a for rule in rules for item in rule.get('exclude', ())
                for a in item.get('host_aggregates', ())]
    if kept and excluded:
        raise InvalidScope('scope: host_aggregates cannot be both kept and '
                           'excluded; keep the aggregates you want, or '
                           'exclude those you do not')
    storage = storage_rules(scope)
    for what, names in (
            ('host_aggregates', [a.get('id', a.get('name'))
                                 for a in kept + excluded]),
            ('availability_zones',
             [z['name'] for rule in rules
              for z in rule.get('availability_zones', ())]),
            ('storage availability_zones',
             [z['name'] for rule in storage
              for z in rule.get('availability_zones', ())]),
            ('volume_types',
             [t['name'] for rule in storage
              for t in rule.get('volume_types', ())])):
        if '*' in names and len(names) > 1:
            raise InvalidScope('scope: "*" stands for all %s: give it '
                               'alone' % what)
    return scope


def compute_rules(scope):
    """The rules of the first compute section."""
    return _rules(scope, 'compute')


def storage_rules(scope):
    """The rules of the first storage section."""
    return _rules(scope, 'storage')


def _rules(scope, model):
    for section in normalised(scope or []):
        if section.get(model):
            return section[model]
    return []


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
    selection = _Selection()
    for rule in rules:
        found = None
        if 'host_aggregates' in rule:
            found = _aggregate_nodes(state, rule['host_aggregates'])
        elif 'availability_zones' in rule:
            found = _zone_nodes(state, rule['availability_zones'])
        if found is not None:
            selection.kept = (selection.kept or set()) | found
        for item in rule.get('exclude', ()):
            selection.removed |= {n['name']
                                  for n in item.get('compute_nodes', ())}
            if item.get('host_aggregates'):
                selection.removed |= _aggregate_nodes(
                    state, item['host_aggregates'])
            selection.left_out |= {i['uuid']
                                   for i in item.get('instances', ())}
            projects = {p['uuid'] for p in item.get('projects', ())}
            metadata = item.get('instance_metadata', ())
            if not (projects or metadata):
                continue
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
    rules = compute_rules(scope)
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
            for resource in elements.RESOURCE_CLASSES.values()}))
        for instance in leaving:
            changes.remove_instance(instance.uuid, instance.stamp)
    return dataclasses.replace(changes.state(),
                               generation=state.generation)
