"""Audit parameters checked against a strategy's ``parameters_spec``.

Validation is strict (no unknown parameter) and fills in the defaults the
spec declares, nested objects included, so the stored audit says exactly
what the strategy will run with.
"""

import copy

import jsonschema

from watcher_ha.common import exception


def _fill_defaults(validator_class):
    validate_properties = validator_class.VALIDATORS['properties']

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if isinstance(subschema, dict) and 'default' in subschema:
                    instance.setdefault(name,
                                        copy.deepcopy(subschema['default']))
        yield from validate_properties(validator, properties, instance,
                                       schema)

    return jsonschema.validators.extend(validator_class,
                                        {'properties': set_defaults})


_DefaultingValidator = _fill_defaults(jsonschema.Draft4Validator)


def check(spec, parameters, what='parameters', fill_defaults=True):
    """Validated (and, by default, completed) copy of ``parameters``.

    ``what`` names the input in messages (``parameters`` for audits,
    ``default_parameters`` for audit templates).
    """
    properties = (spec or {}).get('properties') or {}
    parameters = copy.deepcopy(parameters or {})
    if not properties:
        if parameters:
            raise exception.Invalid(
                'Specify parameters but no predefined strategy for audit, '
                'or no parameter spec in predefined strategy')
        return parameters
    unknown = sorted(set(parameters) - set(properties))
    if unknown:
        raise exception.Invalid('Audit parameter %s are not allowed'
                                % ', '.join(unknown))
    validator_class = (_DefaultingValidator if fill_defaults
                       else jsonschema.Draft4Validator)
    error = jsonschema.exceptions.best_match(
        validator_class(spec).iter_errors(parameters))
    if error is not None:
        where = '/'.join(str(p) for p in error.absolute_path) or what
        raise exception.Invalid('Invalid %s for strategy: %s (at %s)'
                                % (what, error.message, where))
    return parameters
