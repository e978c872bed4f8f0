"""What Heat's list calls select, and in which order: the query
parameters of resource and event lists (heat/api/openstack/v1/
resources.py index, events.py index; heat/engine/service.py
list_stack_resources, list_events; heat/db/api.py at 26.0.0).

Resources: ``nested_depth`` (at most Heat's max_nested_stack_depth, 5)
goes down into the groups' nested stacks, each stack's resources before
its nested ones; filters ``name``, ``status`` (``FAILED`` or
``CHECK_FAILED``), ``action``, ``type`` (contained in the type, as Heat
matches it), ``id`` and ``physical_resource_id`` apply at every depth;
``with_detail`` adds descriptions and attributes; any other parameter
is Heat's 400. Events: newest first unless ``sort_dir=asc`` (or a
``sort_keys`` given), ``limit`` and ``marker``, filters
``resource_status``, ``resource_action``, ``resource_name``,
``resource_type``, and ``nested_depth``.
"""

from watcher_ha.simulator.heat import errors

# heat.conf [DEFAULT] max_nested_stack_depth.
MAX_NESTED_DEPTH = 5
RESOURCE_FILTERS = ('type', 'status', 'name', 'action', 'id',
                    'physical_resource_id')
EVENT_FILTERS = ('resource_status', 'resource_action', 'resource_name',
                 'resource_type')


def flag(name, value):
    """Heat's param_utils.extract_bool."""
    if isinstance(value, bool):
        return value
    if str(value).lower() not in ('true', 'false'):
        raise errors.api_refusal(400, 'Unrecognized value "%s" for "%s", '
                                      'acceptable values are: true, false.'
                                 % (value, name))
    return str(value).lower() == 'true'


def number(name, value):
    """Heat's param_utils.extract_int (zero allowed, no negative)."""
    try:
        found = int(value)
    except (TypeError, ValueError):
        raise errors.api_refusal(400, 'Only integer is acceptable by "%s".'
                                 % name)
    if found < 0:
        raise errors.api_refusal(400, 'Only non-negative integer is '
                                      'acceptable by "%s".' % name)
    return found


def split_status(value):
    """'CHECK_FAILED' -> ('CHECK', 'FAILED'); 'FAILED' -> (None, ...)."""
    for status in ('COMPLETE', 'FAILED', 'IN_PROGRESS'):
        if value.endswith(status):
            action = value[:-len(status)].rstrip('_')
            return action or None, status
    return None, value


def resources(stack, params):
    """(the rows selected, whether with detail)."""
    invalid = set(params) - set(RESOURCE_FILTERS) - {'nested_depth',
                                                     'with_detail'}
    if invalid:
        raise errors.api_refusal(400, 'Invalid filter parameters %s'
                                 % str(list(invalid)))
    depth = min(number('nested_depth', params.get('nested_depth', 0)),
                MAX_NESTED_DEPTH)
    detail = flag('with_detail', params.get('with_detail', False))
    return [row for row in rows(stack, depth)
            if _resource_matches(row, params)], detail


def events(stack, params, resource_name=None):
    """The events of ``stack`` (and its nested stacks, ``nested_depth``
    down) the query ``params`` selects, in its order (newest first by
    default), and the stack to link as their root when nested."""
    depth = number('nested_depth', params.get('nested_depth', 0))
    stacks = [stack] + (_nested_stacks(stack, depth) if depth else [])
    found = [e for s in stacks for e in s.events]
    filters = {key: params.getall(key) for key in EVENT_FILTERS
               if key in params}
    if resource_name is not None:
        filters['resource_name'] = [resource_name]
    found = [e for e in found if all(
        _event_field(e, key) in wanted
        for key, wanted in filters.items())]
    direction = params.get('sort_dir', 'desc' if not params.get(
        'sort_keys') else 'asc')
    if direction not in ('asc', 'desc'):
        raise errors.HeatError(400, 'Invalid', 'Data supplied was not '
                               'valid: Unknown sort direction, must be '
                               "'desc' or 'asc'")
    by_type = 'resource_type' in params.getall('sort_keys')
    found.sort(key=lambda e: ((e.resource_type,) if by_type else ())
               + (e.time, e.order), reverse=direction == 'desc')
    if 'marker' in params:
        ids = [e.uuid for e in found]
        found = found[ids.index(params['marker']) + 1:] if (
            params['marker'] in ids) else found
    if 'limit' in params:
        found = found[:number('limit', params['limit'])]
    return found, stack if depth else None


def rows(stack, depth):
    """Heat's iter_resources: a stack's resources, then those of its
    resources' nested stacks, ``depth`` levels down."""
    found = stack.listed()
    yield from found
    if depth:
        for row in found:
            if row.nested is not None and row.nested.deleted_at is None:
                yield from rows(row.nested, depth - 1)


def _nested_stacks(stack, depth):
    found = []
    for row in stack.listed():
        if row.nested is not None and depth:
            found += [row.nested] + _nested_stacks(row.nested, depth - 1)
    return found


def _resource_matches(row, params):
    for key in RESOURCE_FILTERS:
        wanted = params.getall(key)
        if not wanted:
            continue
        if key == 'type':
            # Heat keeps a row whose type contains the one asked.
            if not any(value in row.type for value in wanted):
                return False
        elif key == 'status':
            states = [split_status(value) for value in wanted]
            if not any(row.status == status and action in (None, row.action)
                       for action, status in states):
                return False
        elif {'name': row.name, 'action': row.action, 'id': row.uuid,
              'physical_resource_id': row.physical_id}[key] not in wanted:
            return False
    return True


def _event_field(event, key):
    return {'resource_status': event.status,
            'resource_action': event.action,
            'resource_name': event.resource_name,
            'resource_type': event.resource_type}[key]
