"""``/v1/audit_templates``."""

from watcher_ha.api import patch
from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.controllers.v1 import references
from watcher_ha.api.schemas import audit_templates as schema
from watcher_ha.common import audit_scope
from watcher_ha.common import exception
from watcher_ha.common import parameters
from watcher_ha.db import audit_templates as db
from watcher_ha.policies import audit_template as template_policy

DEFAULT_PARAMETERS = schema.INPUT['default_parameters']


def _check_default_parameters(call, default_parameters, strategy_row):
    """Defaults must suit the strategy; they are stored as given."""
    if not default_parameters:
        return {}
    if not call.version_at_least(DEFAULT_PARAMETERS.since):
        raise exception.NotAcceptable()
    if strategy_row is None:
        raise exception.Invalid(
            'default_parameters requires a strategy to be specified')
    parameters.check(strategy_row['parameters_spec'], default_parameters,
                     what='default_parameters', fill_defaults=False)
    return default_parameters


def _checked_scope(scope):
    """The scope as stored: bare compute rules put in a compute section,
    as Watcher stores them; a 400 saying what is wrong."""
    try:
        return audit_scope.check(scope or [])
    except audit_scope.InvalidScope as err:
        raise exception.Invalid(str(err))


def _values(context, given, defaults):
    """The row of the template ``given`` (a create body or a patched
    document) describes; ``defaults(strategy row or None)`` gives its
    default_parameters."""
    goal = references.goal(context, given['goal'])
    strategy = None
    if given.get('strategy'):
        strategy = references.strategy(context, given['strategy'], goal)
    default_parameters = defaults(strategy)
    return dict(
        schema.INPUT.stored_values(given),
        name=references.usable_name('Audit template', given['name']),
        goal_id=goal['id'],
        strategy_id=strategy['id'] if strategy else None,
        scope=_checked_scope(given.get('scope')),
        default_parameters=default_parameters,
    )


class AuditTemplatesController(base.EditableController):
    """Templates hold no state: every patch rewrites the whole row from
    the patched document, and a delete removes it."""

    view = db.VIEW
    fields = schema.TEMPLATE
    policy_module = template_policy
    inputs = schema.INPUT

    def _create(self, call, body):
        context = call.context
        return db.create(context, _values(
            context, body, lambda strategy: _check_default_parameters(
                call, body.get('default_parameters'), strategy)))

    def _update(self, call, row, ops):
        context = call.context
        touched = {patch.root(op) for op in ops}
        if (DEFAULT_PARAMETERS.path in touched
                and not call.version_at_least(DEFAULT_PARAMETERS.since)):
            raise exception.NotAcceptable()
        _, new = self.inputs.patched(row, ops)

        def defaults(strategy):
            if (row['default_parameters']
                    and touched & {'/goal', '/strategy'}
                    and DEFAULT_PARAMETERS.path not in touched):
                raise exception.Conflict(
                    'Updating goal or strategy on a template that has '
                    'default_parameters requires providing updated '
                    'default_parameters in the same request')
            if DEFAULT_PARAMETERS.path in touched:
                return _check_default_parameters(
                    call, new['default_parameters'], strategy)
            return row['default_parameters']
        return db.update(context, row, _values(context, new, defaults))

    def _delete(self, context, row):
        db.delete(context, row)
