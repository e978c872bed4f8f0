"""JSON Schema validation of request bodies, with Watcher's messages."""

import jsonschema

from watcher_ha.common import exception


def _shown(value):
    return "'%s'" % (value,)


def validate(schema, body, argname):
    """Raise a 400 naming the first problem of ``body`` against ``schema``.

    ``argname`` is the name Watcher gives the whole body in messages
    (``audit_p``, ``audit_template_postdata``, ``patch``...).
    """
    if schema.get('type') == 'object' and not isinstance(body, dict):
        raise exception.InvalidField(
            field=argname, value=_shown(body),
            reason='Expected a JSON object.')
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(body))
    if error is None:
        return
    raise _to_exception(error, body, argname)


def _to_exception(error, body, argname):
    if error.validator == 'required':
        missing = [name for name in error.validator_value
                   if name not in error.instance]
        return exception.InvalidField(
            field=missing[0], value="'None'",
            reason='Mandatory field missing.')
    if error.validator == 'additionalProperties':
        allowed = set(error.schema.get('properties', {}))
        unknown = sorted(set(error.instance) - allowed)
        if len(unknown) == 1:
            return exception.Invalid('Unknown attribute for argument %s: %s'
                                     % (argname, unknown[0]))
        return exception.Invalid('Unknown attributes for argument %s: %s'
                                 % (argname, ', '.join(unknown)))
    path = [str(part) for part in error.absolute_path]
    field = path[0] if path else argname
    value = error.instance
    reason = error.message
    if len(reason) > 300:
        reason = reason[:300] + '...'
    return exception.InvalidField(field=field, value=_shown(value)[:500],
                                  reason=reason + '.')
