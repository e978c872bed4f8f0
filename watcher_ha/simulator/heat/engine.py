"""The simulated heat-engine: what the API asks of it (create, update,
delete, mark a resource unhealthy, signal one, look things up), the
stacks it keeps, and their time.

Like Heat's engine (heat/engine/service.py at 26.0.0), it checks a
request before it answers, and works on afterwards: the answer leaves
the stack ``*_IN_PROGRESS``; its traversal (traversal.py) then moves on
every ``poll_seconds`` of the simulator's clock, as Heat's workers poll
the services. Every stack state change is an event and a notification
(notifications.py); each resource state change an event.

Scoping: stacks belong to the project in the request's path; a name is
looked up among that project's live stacks, nested ones included (Heat's
stack_get_by_name), an id among all of them, deleted ones too.
"""

import re

from watcher_ha.simulator.heat import errors
from watcher_ha.simulator.heat import groups
from watcher_ha.simulator.heat import records
from watcher_ha.simulator.heat import resource_types
from watcher_ha.simulator.heat import template as template_mod
from watcher_ha.simulator.heat import traversal as traversal_mod

TYPES = dict(resource_types.TYPES, **groups.TYPES)
# Seconds between two polls of the resources under way.
POLL_SECONDS = 1.0
STACK_NAME = r'^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$'


class Scope:
    """The functions' view of a stack: its parameters, its resources'
    references and attributes."""

    def __init__(self, heat, stack):
        self.heat, self.stack = heat, stack

    def param(self, name):
        return self.stack.values[name]

    def reference(self, name):
        row = self.stack.current(name)
        return None if row is None else self.heat.refid(row)

    def attribute(self, name, attribute, path):
        row = self.stack.current(name)
        if row is None:
            return None
        return TYPES[row.type].get_attribute(self.heat, row, attribute,
                                             path)


class _Validating:
    """The functions' view while a template is checked: references are
    the resources' names, attributes unknown yet."""

    def __init__(self, values):
        self.values = values

    def param(self, name):
        return self.values[name]

    def reference(self, name):
        return name

    def attribute(self, name, attribute, path):
        return None


class Heat:

    def __init__(self, cloud, notifier=None, poll_seconds=POLL_SECONDS):
        self.cloud = cloud
        self.clock = cloud.clock
        self.notifier = notifier
        self.poll_seconds = poll_seconds
        self.stacks = {}           # id -> records.Stack, deleted ones too
        self.traversals = []       # those still moving
        self._ticking = False

    def now(self):
        return self.clock.now()

    # Types and values.

    def kind(self, type_name):
        return TYPES[type_name]

    def refid(self, row):
        return TYPES[row.type].refid(row)

    def member_attribute(self, row, name, path):
        return TYPES[row.type].get_attribute(self, row, name, path)

    def resolve_properties(self, stack, definition):
        values = template_mod.resolve(definition.properties,
                                      Scope(self, stack))
        return resource_types.check_properties(
            TYPES[definition.type], values, ['resources', definition.name])

    def validate_definition(self, definition, path, scope=None):
        """A resource definition as Heat validates it: a known type,
        known properties of the right types, the type's own checks."""
        kind = TYPES.get(definition.type)
        if kind is None:
            raise errors.invalid('The Resource Type (%s) could not be '
                                 'found.' % definition.type)
        values = template_mod.resolve(definition.properties,
                                      scope or _Validating({}))
        checked = resource_types.check_properties(kind, values, path)
        kind.validate(self, checked, path)

    def _validate(self, template, values):
        scope = _Validating(values)
        for name in template.order:
            definition = template.resources[name]
            self.validate_definition(definition, ['resources', name], scope)
            for used, attribute in template_mod.attributes_used(
                    definition.properties):
                if attribute not in TYPES[
                        template.resources[used].type].attributes:
                    raise errors.HeatError(
                        400, 'InvalidTemplateAttribute',
                        'The Referenced Attribute (%s %s) is incorrect.'
                        % (used, attribute))

    # Looking up.

    def find(self, tenant, name_or_id):
        """Heat's identify_stack: by id (deleted too), else by name."""
        found = self.stacks.get(name_or_id)
        if found is None or found.tenant != tenant:
            live = sorted((s for s in self.stacks.values()
                           if s.name == name_or_id and s.tenant == tenant
                           and s.deleted_at is None),
                          key=lambda s: s.order)
            found = live[0] if live else None
        if found is None:
            raise errors.stack_not_found(name_or_id)
        return found

    def get(self, tenant, name, stack_id, deleted=False):
        """The stack at ``name``/``stack_id`` (Heat's _get_stack)."""
        found = self.stacks.get(stack_id)
        if (found is None or found.tenant != tenant or found.name != name
                or (found.deleted_at is not None and not deleted)):
            raise errors.stack_not_found(name)
        return found

    def listed(self, tenant, nested=False, deleted=False):
        """The project's stacks, newest first (Heat's default sort)."""
        return sorted((s for s in self.stacks.values()
                       if s.tenant == tenant
                       and (nested or s.owner is None)
                       and (deleted or s.deleted_at is None)),
                      key=lambda s: (s.created_at, s.order), reverse=True)

    def named(self, stack, name):
        """A stack's resource by its name (Heat's resource_get)."""
        row = stack.current(name)
        if row is None:
            raise errors.resource_not_found(name, stack.name)
        return row

    def resource(self, stack, name):
        """A stack's resource by name or by physical id (Heat's
        _find_resource_in_stack)."""
        row = stack.current(name)
        if row is None:
            matches = [r for r in stack.listed() if r.physical_id == name]
            if len(matches) > 1:
                raise errors.HeatError(400, 'PhysicalResourceIDAmbiguity',
                                       'Multiple resources were found with '
                                       'the physical ID (%s).' % name)
            row = matches[0] if matches else None
        if row is None:
            raise errors.resource_not_found(name, stack.name)
        return row

    # Stacks.

    def create_stack(self, tenant, name, raw, parameters, args=None,
                     user=(None, None), owner=None, parent_resource=None):
        args = args or {}
        if owner is None and not re.match(STACK_NAME, str(name)):
            raise errors.invalid(
                'Invalid stack name %s must contain only alphanumeric or '
                '"_-." characters, must start with alpha and must be 255 '
                'characters or less.' % name)
        if any(s.name == name and s.tenant == tenant and s.deleted_at is None
               for s in self.stacks.values()):
            raise errors.HeatError(409, 'StackExists', 'The Stack (%s) '
                                   'already exists.' % name)
        template = template_mod.Template(raw, versions=(
            template_mod.VERSIONS + (groups.NESTED_VERSION,)
            if owner else template_mod.VERSIONS))
        stack = records.Stack(
            id=records.new_uuid(), name=name, tenant=tenant,
            template=template, parameters=dict(parameters),
            values={}, created_at=self.now(), user_id=user[0],
            username=user[1], owner=owner, parent_resource=parent_resource,
            nested_depth=owner.nested_depth + 1 if owner else 0,
            timeout_mins=args.get('timeout_mins'), tags=args.get('tags'))
        stack.values = template.parameter_values(parameters,
                                                 self._pseudo(stack))
        if owner is None:
            self._validate(template, stack.values)
        self.stacks[stack.id] = stack
        self._begin(stack, 'CREATE', template)
        return stack

    def update_stack(self, stack, raw, parameters, args, existing):
        """A PUT (``existing`` False: the template and parameters given)
        or a PATCH (the stored template unless one is given, the stored
        parameters with those given over them)."""
        if stack.action == 'DELETE':
            raise errors.not_supported('Updating a stack when it is '
                                       'deleting')
        if existing:
            given = {k: v for k, v in stack.parameters.items()
                     if k not in (args.get('clear_parameters') or ())}
            given.update(parameters)
            raw = raw if raw is not None else stack.template.raw
        else:
            given = dict(parameters)
        template = template_mod.Template(raw, versions=(
            template_mod.VERSIONS + (groups.NESTED_VERSION,)
            if stack.owner else template_mod.VERSIONS))
        values = template.parameter_values(given, self._pseudo(stack))
        if stack.owner is None:
            self._validate(template, values)
            self._refuse_unmodelled_changes(stack, template, values,
                                            bool(args.get('converge')))
        stack.template, stack.parameters, stack.values = template, given, \
            values
        stack.updated_at = self.now()
        stack.updates += 1
        for key in ('timeout_mins', 'tags'):
            if key in args:
                setattr(stack, key, args[key])
        self._begin(stack, 'UPDATE', template,
                    converge=bool(args.get('converge')))

    def _refuse_unmodelled_changes(self, stack, template, values,
                                   converge):
        """An update the simulator cannot do as Heat would: a changed
        property of a resource kept (Heat updates some in place, replaces
        for others), or a group's member definition changed (Heat's
        rolling update). A resource the update replaces takes its new
        properties, as in Heat."""
        probe = records.Stack(id=stack.id, name=stack.name,
                              tenant=stack.tenant, template=template,
                              parameters={}, values=values,
                              created_at=stack.created_at,
                              resources=stack.resources)
        for name, definition in template.resources.items():
            row = stack.current(name)
            if row is None or row.action == 'INIT' or (
                    row.type != definition.type):
                if row is not None and row.type != definition.type:
                    raise errors.simulator_refuses(
                        'Changing the type of resource %s' % name)
                continue
            kind = TYPES[row.type]
            if kind.needs_replacement(self, row, converge):
                continue
            new = self.resolve_properties(probe, definition)
            changed = sorted(key for key in new
                             if new[key] != row.properties.get(key))
            if kind.holds_stack:
                changed = [k for k in changed if k == kind.definition_key]
            if changed:
                raise errors.simulator_refuses(
                    'Updating %s of %s (%s)' % (', '.join(changed), name,
                                                row.type))

    def delete_stack(self, stack):
        if (stack.action, stack.status) == ('DELETE', 'COMPLETE'):
            raise errors.stack_not_found(stack.name)
        stack.updated_at = self.now()
        self._begin(stack, 'DELETE', stack.template)

    def _pseudo(self, stack):
        return {'OS::stack_id': stack.id, 'OS::stack_name': stack.name,
                'OS::project_id': stack.tenant}

    def _begin(self, stack, action, template, converge=False):
        traversal = traversal_mod.Traversal(self, stack, action, template,
                                            converge)
        self.set_stack_state(stack, action, 'IN_PROGRESS',
                             'Stack %s started' % action)
        self.traversals.append(traversal)
        self._tick_soon(0)

    def stack_done(self, stack, action):
        self.set_stack_state(stack, action, 'COMPLETE',
                             'Stack %s completed successfully' % action)
        if action == 'DELETE':
            stack.deleted_at = self.now()

    # Nested stacks (a group's).

    def create_nested(self, row, raw):
        stack = row.stack
        name = resource_types.physical_name(row)
        return self.create_stack(stack.tenant, name, raw, {},
                                 {'timeout_mins': stack.timeout_mins},
                                 (stack.user_id, stack.username),
                                 owner=stack, parent_resource=row.name)

    def update_nested(self, nested, raw, converge=False):
        """``converge`` passes on the parent update's (StackResource.
        update_with_template)."""
        self.update_stack(nested, raw, {}, {'converge': converge},
                          existing=False)

    def delete_nested(self, nested):
        self.delete_stack(nested)

    # Resources.

    def new_row(self, stack, definition, replaces=None):
        row = records.Resource(
            stack=stack, name=definition.name, type=definition.type,
            created_at=self.now(), requires=frozenset(definition.requires()),
            replaces=replaces, metadata=dict(definition.metadata))
        stack.resources.append(row)
        return row

    def forget_row(self, row):
        if row in row.stack.resources:
            row.stack.resources.remove(row)

    def mark_unhealthy(self, stack, name, unhealthy, reason):
        """Heat's resource_mark_unhealthy: CHECK_FAILED (unless the
        resource is being deleted), or back to CHECK_COMPLETE from it; 409
        while an action holds the resource."""
        row = self.resource(stack, name)
        if row.operation is not None:
            raise errors.action_in_progress(stack)
        reason = reason or 'state changed by resource_mark_unhealthy api'
        if unhealthy and row.action != 'DELETE':
            self.set_resource_state(row, 'CHECK', 'FAILED', reason)
        elif not unhealthy and row.state == ('CHECK', 'FAILED'):
            self.set_resource_state(row, 'CHECK', 'COMPLETE', reason)

    def signal(self, stack, name, details):
        """Heat's resource_signal: refused at once for a resource whose
        type takes no signals or that is being deleted; otherwise taken,
        and handled by the engine after the answer, as Heat's thread
        does."""
        row = self.named(stack, name)
        kind = TYPES[row.type]
        if row.action in ('SUSPEND', 'DELETE'):
            self.add_event(row, row.action, row.status,
                           'Cannot signal resource during %s' % row.action)
            raise errors.not_supported('Signal resource during %s'
                                       % row.action)
        if not kind.takes_signals:
            raise errors.HeatError(400, 'ResourceActionNotSupported',
                                   'signal is not supported for resource.')
        received = {'details': details, 'at': self.now().isoformat(),
                    'accepted': None}
        row.signals.append(received)
        self.cloud._later(0, self._handle_signal, row, details, received)

    def _handle_signal(self, row, details, received):
        reason = TYPES[row.type].signal(self, row, details)
        received['accepted'] = reason is not None
        if reason is not None:
            self.add_event(row, 'SIGNAL', row.status, reason)

    # States, events, notifications.

    def set_stack_state(self, stack, action, status, reason):
        stack.action, stack.status, stack.status_reason = (action, status,
                                                           reason)
        self._event(stack, stack.name, stack.id, action, status, reason,
                    records.STACK_TYPE, {})
        if self.notifier is not None:
            self.notifier.stack_state(stack, self.cloud.api_host)

    def set_resource_state(self, row, action, status, reason):
        changed = row.state != (action, status)
        row.action, row.status, row.status_reason = action, status, reason
        if changed:
            self.add_event(row, action, status, reason)

    def add_event(self, row, action, status, reason):
        self._event(row.stack, row.name,
                    row.physical_id or resource_types.physical_name(row),
                    action, status, reason, row.type, dict(row.properties))

    def _event(self, stack, name, physical_id, action, status, reason,
               resource_type, properties):
        stack.events.append(records.Event(
            stack=stack, resource_name=name, physical_resource_id=physical_id,
            action=action, status=status,
            reason=(reason or '')[:records.EVENT_REASON_LENGTH],
            resource_type=resource_type, time=self.now(),
            properties=properties))

    # Time.

    def _tick_soon(self, delay):
        if not self._ticking:
            self._ticking = True
            self.cloud._later(delay, self._tick)

    def _tick(self):
        self._ticking = False
        for traversal in list(self.traversals):
            if traversal.step():
                self.traversals.remove(traversal)
        if self.traversals:
            self._tick_soon(self.poll_seconds)

