"""The group resources: ``OS::Heat::AutoScalingGroup`` and
``OS::Heat::ResourceGroup``, each holding its members in a nested stack,
as Heat's StackResource does (heat/engine/resources/stack_resource.py,
openstack/heat/autoscaling_group.py, instance_group.py,
resource_group.py at 26.0.0).

The nested stack is named ``<stack>-<group>-<short id>`` (Heat's
physical_resource_name) and its template is generated: HOT 2015-04-30,
one resource per member, and the output ``refs_map``. An
AutoScalingGroup's members are named by Heat's short ids (12 characters,
lower case); a ResourceGroup's ``0``, ``1``... with ``%index%`` (its
``index_var``) replaced by the name in the member's properties.

A stack update always updates a group's nested stack, with a template
made again from its members (StackResource._needs_update: "let the
individual resources in it decide"), so a member marked unhealthy in the
nested stack is replaced by an update of the top stack. The new size:
a ResourceGroup's ``count``; an AutoScalingGroup's ``desired_capacity``,
or when it has none the members not FAILED, within min and max (Heat's
handle_update and resize): an AutoScalingGroup without a
desired_capacity drops a FAILED member rather than replace it when its
min_size allows. Members are kept oldest last, FAILED first, and a
shrink removes from the front (heat/scaling/template.py).

A group itself marked unhealthy (CHECK_FAILED on its parent stack) is
replaced whole by the update: a new nested stack, new members, then the
old nested stack deleted. Changing an AutoScalingGroup's ``resource`` or
a ResourceGroup's ``resource_def`` (Heat's rolling replacement) is
refused by the simulator.
"""

import uuid as uuidlib

from watcher_ha.simulator.heat import errors
from watcher_ha.simulator.heat import resource_types as types
from watcher_ha.simulator.heat import template

Prop = types.Prop
NESTED_VERSION = '2015-04-30'
MEMBER_KEYS = ('type', 'properties', 'metadata')


def _member_snippet(definition, path):
    """A member's definition as the group's property gives it."""
    unknown = sorted(set(definition) - set(MEMBER_KEYS))
    if unknown:
        raise errors.property_error(path, 'Unknown Property %s' % unknown[0])
    if not isinstance(definition.get('type'), str):
        raise errors.property_error(path, 'Property type not assigned')
    return {key: definition[key] for key in MEMBER_KEYS
            if definition.get(key)}


def nested_template(members):
    """The nested stack's template for ``members``, [(name, snippet)]."""
    return {template.VERSION_KEY: NESTED_VERSION,
            'resources': {name: snippet for name, snippet in members},
            'outputs': {'refs_map': {'value': {
                name: {'get_resource': name} for name, _ in members}}}}


class Group(types.ResourceType):
    holds_stack = True
    # The property holding the members' definition.
    definition_key = ''

    def members(self, heat, resource, size):
        """[(name, snippet)] of the nested stack at ``size``."""
        raise NotImplementedError

    def initial_size(self, values):
        raise NotImplementedError

    def update_size(self, heat, resource):
        raise NotImplementedError

    def validate(self, heat, values, path):
        """The member's definition, as Heat validates the nested stack
        before it accepts the parent (validate_nested_stack)."""
        _member_snippet(values[self.definition_key], path)
        if not self.initial_size(values):
            return
        [(name, snippet)] = self.members(heat, _Unborn(values), 1)
        try:
            heat.validate_definition(template.Definition(name, snippet),
                                     ['resources', name])
        except errors.HeatError as refusal:
            raise errors.under(refusal, [
                'resources', '%s<nested_stack>' % path[-1]])

    def create(self, heat, resource):
        members = self.members(heat, resource, self.initial_size(
            resource.properties))
        resource.nested = heat.create_nested(resource,
                                             nested_template(members))
        resource.physical_id = resource.nested.id

    def created(self, heat, resource):
        return self._settled(resource, 'CREATE')

    def update(self, heat, resource):
        members = self.members(heat, resource,
                               self.update_size(heat, resource))
        heat.update_nested(resource.nested, nested_template(members),
                           converge=resource.stack.traversal.converge)

    def updated(self, heat, resource):
        return self._settled(resource, 'UPDATE')

    def delete(self, heat, resource):
        if resource.nested is not None and resource.nested.deleted_at is None:
            heat.delete_nested(resource.nested)

    def deleted(self, heat, resource):
        nested = resource.nested
        return nested is None or (nested.action, nested.status) == (
            'DELETE', 'COMPLETE')

    def _settled(self, resource, action):
        nested = resource.nested
        if nested.action != action or nested.status == 'IN_PROGRESS':
            return False
        if nested.status == 'FAILED':
            raise errors.nested_failure(nested.status_reason, action)
        return True

    def needs_replacement(self, heat, resource, converge=False):
        # StackResource: only a mark-unhealthy (CHECK_FAILED of the group,
        # its nested stack not CHECK_FAILED) replaces the whole group;
        # any other state updates the nested stack.
        if resource.physical_id is None or resource.action in (
                'INIT', 'DELETE') or self.gone(heat, resource):
            return True     # no nested stack to update: Heat replaces
        nested = resource.nested
        return ((resource.action, resource.status) == ('CHECK', 'FAILED')
                and (nested.action, nested.status) != ('CHECK', 'FAILED'))

    def gone(self, heat, resource):
        return (resource.nested is None
                or resource.nested.deleted_at is not None)

    # The members, for attributes: oldest first, FAILED ones left out
    # (Heat's grouputils.get_members).

    def live_members(self, heat, resource):
        if resource.nested is None:
            return []
        return [m for m in resource.nested.listed()
                if m.status != 'FAILED']

    def get_attribute(self, heat, resource, name, path):
        members = self.live_members(heat, resource)
        if name == 'refs':
            return template.select([heat.refid(m) for m in members], path)
        if name == 'refs_map':
            return template.select({m.name: heat.refid(m) for m in members},
                                   path)
        if name == 'current_size':
            return len(members)
        if name in ('outputs', 'attributes', 'outputs_list'):
            if not path:
                return None
            values = {m.name: heat.member_attribute(m, path[0], path[1:])
                      for m in members}
            return (list(values.values()) if name == 'outputs_list'
                    else values)
        return None


class _Unborn:
    """A group not yet created, as ``members`` sees it when validating."""

    def __init__(self, properties):
        self.properties = properties
        self.nested = None


class AutoScalingGroup(Group):
    name = 'OS::Heat::AutoScalingGroup'
    definition_key = 'resource'
    properties = {
        'resource': Prop('Map', required=True),
        'max_size': Prop('Integer', required=True),
        'min_size': Prop('Integer', required=True),
        'cooldown': Prop('Integer'), 'desired_capacity': Prop('Integer'),
        'rolling_updates': Prop('Map', default={
            'min_in_service': 0, 'max_batch_size': 1, 'pause_time': 0}),
    }
    attributes = ('outputs', 'outputs_list', 'current_size', 'refs',
                  'refs_map')

    def validate(self, heat, values, path):
        low, high = values['min_size'], values['max_size']
        if high < low:
            raise errors.invalid('MinSize can not be greater than MaxSize')
        if low < 0:
            raise errors.invalid('The size of AutoScalingGroup can not be '
                                 'less than zero')
        wanted = values['desired_capacity']
        if wanted is not None and not low <= wanted <= high:
            raise errors.invalid('DesiredCapacity must be between MinSize '
                                 'and MaxSize')
        super().validate(heat, values, path)

    def initial_size(self, values):
        return values['desired_capacity'] or values['min_size']

    def update_size(self, heat, resource):
        props = resource.properties
        size = props['desired_capacity'] or len(
            self.live_members(heat, resource))
        return max(props['min_size'], min(props['max_size'], size))

    def members(self, heat, resource, size):
        snippet = _member_snippet(resource.properties['resource'], ())
        kept = []
        if resource.nested is not None:
            # FAILED first, then oldest first; a shrink drops the first.
            defined = resource.nested.template.raw['resources']
            ordered = sorted((m for m in resource.nested.listed()
                              if m.name in defined),
                             key=lambda m: (m.status != 'FAILED', m.order))
            kept = [(m.name, defined[m.name])
                    for m in ordered][-size:] if size else []
        while len(kept) < size:
            kept.append((types.short_id(str(uuidlib.uuid4())), snippet))
        return kept


class ResourceGroup(Group):
    name = 'OS::Heat::ResourceGroup'
    definition_key = 'resource_def'
    properties = {
        'count': Prop('Integer', default=1),
        'index_var': Prop('String', default='%index%'),
        'resource_def': Prop('Map', required=True),
        'removal_policies': Prop('List', default=[]),
        'removal_policies_mode': Prop('String', default='append',
                                      allowed=('append', 'update')),
    }
    attributes = ('refs', 'refs_map', 'attributes')

    def validate(self, heat, values, path):
        if values['count'] < 0:
            raise errors.invalid('%d is out of range (min: 0, max: None)'
                                 % values['count'],
                                 path=list(path) + ['properties', 'count'],
                                 error='Property error')
        if values['removal_policies']:
            raise errors.simulator_refuses('A ResourceGroup\'s '
                                           'removal_policies', path=path)
        super().validate(heat, values, path)

    def initial_size(self, values):
        return values['count']

    def update_size(self, heat, resource):
        return resource.properties['count']

    def members(self, heat, resource, size):
        snippet = _member_snippet(resource.properties['resource_def'], ())
        marker = resource.properties['index_var']
        return [(str(index), _indexed(snippet, marker, str(index)))
                for index in range(size)]


def _indexed(snippet, marker, name):
    """``snippet`` with ``marker`` replaced by ``name`` in its property
    strings (ResourceGroup._handle_repl_val)."""
    def replace(value):
        if isinstance(value, str):
            return value.replace(marker, name)
        if isinstance(value, dict):
            return {key: replace(item) for key, item in value.items()}
        if isinstance(value, list):
            return [replace(item) for item in value]
        return value
    found = dict(snippet)
    if 'properties' in found:
        found['properties'] = replace(found['properties'])
    return found


TYPES = {kind.name: kind for kind in (AutoScalingGroup(), ResourceGroup())}
