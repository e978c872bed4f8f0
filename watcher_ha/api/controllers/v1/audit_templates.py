"""``/v1/audit_templates``."""

import pecan

from watcher_ha.api import method
from watcher_ha.api import patch
from watcher_ha.api import request
from watcher_ha.api import validation
from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.controllers.v1 import references
from watcher_ha.api.schemas import audit_templates as schema
from watcher_ha.common import audit_scope
from watcher_ha.common import exception
from watcher_ha.common import parameters
from watcher_ha.db import audit_templates as db
from watcher_ha.policies import audit_template as template_policy
from watcher_ha.policies import policy

DEFAULT_PARAMETERS_VERSION = '1.7'


def _check_default_parameters(default_parameters, strategy_row):
    """Defaults must suit the strategy; they are stored as given."""
    if not default_parameters:
        return {}
    if not request.version_at_least(DEFAULT_PARAMETERS_VERSION):
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


class AuditTemplatesController(base.ResourceController):
    collection = 'audit_templates'
    view = db.VIEW
    fields = schema.TEMPLATE
    policy_module = template_policy
    filter_names = ('goal', 'strategy')

    @method.expose(status_code=201)
    def post(self, **params):
        context = request.context()
        policy.authorize(template_policy.CREATE, context)
        body = request.json_body()
        validation.validate(schema.CREATE, body, 'audit_template_postdata')
        goal = references.goal(context, body['goal'])
        strategy = None
        if body.get('strategy'):
            strategy = references.strategy(context, body['strategy'], goal)
        defaults = _check_default_parameters(body.get('default_parameters'),
                                             strategy)
        row = db.create(context, {
            'name': references.usable_name('Audit template', body['name']),
            'description': body.get('description'),
            'goal_id': goal['id'],
            'strategy_id': strategy['id'] if strategy else None,
            'scope': _checked_scope(body.get('scope')),
            'default_parameters': defaults,
        })
        pecan.response.location = self._links(row['uuid'])[0]['href']
        return self.serialize(row)

    @method.expose()
    def patch(self, ident, **params):
        context = request.context()
        policy.authorize(template_policy.UPDATE, context)
        ops = patch.parse(request.json_body())
        row = db.get(context, ident)
        if (any(patch.root(op) == '/default_parameters' for op in ops)
                and not request.version_at_least(
                    DEFAULT_PARAMETERS_VERSION)):
            raise exception.NotAcceptable()
        document = {'name': row['name'], 'description': row['description'],
                    'goal': row['goal_uuid'],
                    'strategy': row['strategy_uuid'],
                    'scope': row['scope'],
                    'default_parameters': row['default_parameters'] or {}}
        new = patch.apply(document, ops, schema.PATCHABLE, schema.MANDATORY)
        validation.validate(schema.PATCHED, new, 'patch')
        goal = references.goal(context, new['goal'])
        strategy = None
        if new.get('strategy'):
            strategy = references.strategy(context, new['strategy'], goal)
        touched = {patch.root(op) for op in ops}
        if (row['default_parameters'] and touched & {'/goal', '/strategy'}
                and '/default_parameters' not in touched):
            raise exception.Conflict(
                'Updating goal or strategy on a template that has '
                'default_parameters requires providing updated '
                'default_parameters in the same request')
        defaults = row['default_parameters']
        if '/default_parameters' in touched:
            defaults = _check_default_parameters(
                new.get('default_parameters'), strategy)
        values = {
            'name': references.usable_name('Audit template', new['name']),
            'description': new.get('description'),
            'goal_id': goal['id'],
            'strategy_id': strategy['id'] if strategy else None,
            'scope': _checked_scope(new.get('scope')),
            'default_parameters': defaults,
        }
        return self.serialize(db.update(context, row, values))

    @method.expose(status_code=204)
    def delete(self, ident, **params):
        context = request.context()
        policy.authorize(template_policy.DELETE, context)
        row = db.get(context, ident)
        db.delete(context, row)
