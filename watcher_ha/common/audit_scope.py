"""An audit's scope, as Watcher writes it: its schema and the rules read
from it (decision_engine/scope.py and storage_scope.py apply them to the
data models).

A scope is a list of sections, each naming its model: ``[{"compute":
[rule, ...]}]``; a list of bare compute rules (Watcher's older format)
is taken as the compute section.

``check`` refuses, on input, what Watcher's schema refuses, and what
Watcher accepts and then fails every audit on (a wildcard next to other
names; aggregates both kept and excluded).
"""

import jsonschema

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


def kept(rules, finders):
    """What the keep rules of ``rules`` keep together: the union, over
    the rules, of ``finders[key](rule[key])`` for the first key of
    ``finders`` a rule has; None (everything) when no rule keeps."""
    found = None
    for rule in rules:
        for key, find in finders.items():
            if key in rule:
                found = (found or set()) | find(rule[key])
                break
    return found


def exclusions(rules):
    """The items of every ``exclude`` rule, in order."""
    return [item for rule in rules for item in rule.get('exclude', ())]


def excluded(rules, key, field):
    """The ``field`` (name or uuid) of everything the exclude rules name
    under ``key``."""
    return {named[field] for item in exclusions(rules)
            for named in item.get(key, ())}
