"""How Heat's API shows stacks, resources, events and outputs
(heat/engine/api.py format_*, heat/api/openstack/v1/views/stacks_view.py,
resources.py and events.py format_* at 26.0.0).

Statuses are shown joined to their action (``UPDATE_COMPLETE``), times as
``2026-01-01T00:00:00Z``, and every object carries links: a stack's
``self``; a resource's ``self``, ``stack`` (the stack that holds it: a
nested stack for a group's member) and ``nested`` (a group's nested
stack); an event's ``self``, ``resource``, ``stack`` and, when listed
with ``nested_depth``, ``root_stack``. A link is
``<base>/<project>/stacks/<name>/<id>[/resources/<name>[/events/<id>]]``
with ``<base>`` the API's ``.../heat-api/v1``.
"""

from urllib import parse

from watcher_ha.simulator.heat import records

OUTPUT_DESCRIPTION = 'No description given'


def stack_path(stack):
    return '%s/stacks/%s/%s' % (parse.quote(stack.tenant, ''),
                                parse.quote(stack.name, ''),
                                parse.quote(stack.id, ''))


def _link(base, path, rel='self'):
    return {'href': '%s/%s' % (base, path), 'rel': rel}


def stack_links(base, stack):
    return [_link(base, stack_path(stack))]


def stack_summary(base, stack):
    """A stack in a list (Heat's basic_keys)."""
    return {
        'id': stack.id, 'links': stack_links(base, stack),
        'stack_name': stack.name, 'description': '',
        'stack_status': '%s_%s' % (stack.action, stack.status),
        'stack_status_reason': stack.status_reason,
        'creation_time': records.isotime(stack.created_at),
        'updated_time': records.isotime(stack.updated_at),
        'deletion_time': records.isotime(stack.deleted_at),
        'stack_owner': stack.username,
        'parent': stack.owner.id if stack.owner else None,
        'stack_user_project_id': stack.root().id.replace('-', ''),
        'tags': stack.tags,
    }


def stack_detail(base, stack, outputs):
    """A stack shown; ``outputs`` its resolved outputs, or None to leave
    them out (a deleted stack, or ``resolve_outputs=False``)."""
    view = stack_summary(base, stack)
    view.update({
        'description': stack.template.description,
        'template_description': stack.template.description,
        'notification_topics': [], 'capabilities': [],
        'parameters': {name: str(value)
                       for name, value in stack.values.items()},
        'disable_rollback': stack.disable_rollback,
        'timeout_mins': stack.timeout_mins,
    })
    if outputs is not None:
        view['outputs'] = outputs
    return view


def output(name, definition, value=None, error=None, resolved=True):
    found = {'output_key': name,
             'description': (definition.get('description')
                             or OUTPUT_DESCRIPTION)}
    if resolved:
        found['output_value'] = value
        if error is not None:
            found['output_error'] = error
    return found


def resource_path(row):
    return '%s/resources/%s' % (stack_path(row.stack),
                                parse.quote(row.name, ''))


def resource(base, row, detail=False, attributes=None):
    """A resource; ``detail`` adds its description and ``attributes``."""
    links = [_link(base, resource_path(row)),
             _link(base, stack_path(row.stack), 'stack')]
    if row.nested is not None:
        links.append(_link(base, stack_path(row.nested), 'nested'))
    view = {
        'resource_name': row.name, 'logical_resource_id': row.name,
        'physical_resource_id': row.physical_id or '',
        'resource_status': '%s_%s' % (row.action, row.status),
        'resource_status_reason': row.status_reason,
        'resource_type': row.type, 'links': links,
        'creation_time': records.isotime(row.created_at),
        'updated_time': records.isotime(row.updated_at or row.created_at),
        'required_by': row.stack.template.required_by(row.name),
    }
    if row.stack.parent_resource:
        view['parent_resource'] = row.stack.parent_resource
    if detail:
        definition = row.stack.template.resources.get(row.name)
        view['description'] = definition.description if definition else ''
        view['attributes'] = attributes or {}
    return view


def event(base, found, detail=False, root=None):
    """An event; ``detail`` (an event shown) adds its resource's type and
    properties; ``root``, the stack listed with nested_depth, a link to
    it."""
    event_path = '%s/resources/%s/events/%s' % (
        stack_path(found.stack), parse.quote(found.resource_name, ''),
        found.uuid)
    view = {
        'id': found.uuid,
        'links': [_link(base, event_path),
                  _link(base, '%s/resources/%s' % (
                      stack_path(found.stack),
                      parse.quote(found.resource_name, '')), 'resource'),
                  _link(base, stack_path(found.stack), 'stack')],
        'event_time': records.isotime(found.time),
        'resource_name': found.resource_name,
        'logical_resource_id': found.resource_name,
        'physical_resource_id': found.physical_resource_id,
        'resource_status': '%s_%s' % (found.action, found.status),
        'resource_status_reason': found.reason,
    }
    if detail:
        view['resource_type'] = found.resource_type
        view['resource_properties'] = found.properties
    if root is not None:
        view['links'].append(_link(base, stack_path(root), 'root_stack'))
    return view
