"""A resource's properties as Heat checks them (heat/engine/
properties.py and constraints.py at 26.0.0): each type declares its
properties with Heat's names, Heat's data types (String, Integer,
Number, Boolean, List, Map), whether required, their default and their
allowed values; the values a template gives, functions resolved, are
refused with Heat's messages (``Property error: resources.<name>.
properties[.<key>]: ...``) or returned with defaults filled in."""

import collections
import json

from watcher_ha.simulator.heat import errors

Prop = collections.namedtuple('Prop', 'kind required default allowed',
                              defaults=(False, None, ()))


def _check_value(name, prop, value, path):
    where = list(path) + ['properties', name]
    kinds = {'String': str, 'Map': dict, 'List': list}
    if prop.kind in ('Integer', 'Number'):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
        if (number is None or isinstance(value, bool)
                or (prop.kind == 'Integer' and number != int(number))):
            raise errors.invalid('Value "%s" is invalid for data type '
                                 '"%s".' % (value, prop.kind), path=where,
                                 error='Property error')
    elif prop.kind in kinds and not isinstance(value, kinds[prop.kind]):
        if prop.kind == 'String':
            message = 'Value must be a string; got %r' % (value,)
        else:
            message = '"%s" is not a %s' % (value, prop.kind.lower())
        raise errors.invalid(message, path=where, error='Property error')
    for item in (value if prop.kind == 'List' else [value]):
        if prop.allowed and item not in prop.allowed:
            raise errors.invalid('%s is not an allowed value [%s]' % (
                json.dumps(item), ', '.join(json.dumps(a)
                                            for a in prop.allowed)),
                path=where, error='Property error')


def check(kind, values, path):
    """``values`` (resolved) as Heat validates a resource's properties;
    returns them with defaults filled in and numbers converted."""
    for name in values:
        if name not in kind.properties:
            raise errors.property_error(path, 'Unknown Property %s' % name)
    checked = {}
    for name, prop in kind.properties.items():
        value = values.get(name)
        if value is None:
            if prop.required:
                raise errors.property_error(path, 'Property %s not '
                                                  'assigned' % name)
            checked[name] = prop.default
            continue
        _check_value(name, prop, value, path)
        checked[name] = (int(float(value)) if prop.kind == 'Integer'
                         else value)
    return checked
