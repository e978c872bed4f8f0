"""The rules a new audit pipeline and a PUT of one pass, and the rows
they make (watcher-specs audit-pipeline.rst, "Audit Pipeline Resource"
and "REST API impact").

Each stage takes its template's goal, strategy, scope and default
parameters as they are now (a snapshot: later edits of the template
change nothing); the parameters must suit the strategy. A PUT may
change the pipeline's name and auto_trigger and its stages' names and
descriptions, nothing else, while the pipeline is PENDING.
"""

from watcher_ha.api.controllers.v1 import references
from watcher_ha.api.schemas import audit_pipelines as schema
from watcher_ha.api import validation
from watcher_ha.common import exception
from watcher_ha.common import parameters
from watcher_ha.common import pipelines


def _stage(context, position, given):
    """The row of stage ``position`` (from 0) that ``given`` describes."""
    where = 'stage %d' % (position + 1)
    try:
        template = references.template(context, given['audit_template'])
    except exception.Invalid as err:
        raise exception.Invalid('%s: %s' % (where, err.message))
    strategy = None
    if template['strategy_uuid']:
        strategy = references.strategy(
            context, template['strategy_uuid'],
            references.goal(context, template['goal_uuid']))
    try:
        checked = parameters.check(
            strategy['parameters_spec'] if strategy else None,
            template['default_parameters'] or {},
            what='default_parameters of audit template %s'
                 % template['name'])
    except exception.Invalid as err:
        raise exception.Invalid('%s: %s' % (where, err.message))
    return dict(
        name=given.get('name'), description=given.get('description'),
        source_audit_template_id=template['id'],
        goal_id=template['goal_id'],
        strategy_id=strategy['id'] if strategy else None,
        scope=template['scope'] or [], parameters=checked)


def values(context, body):
    """(the pipeline's columns, its stages' columns in order) from a
    create body checked against the create schema; a 400 saying what is
    wrong otherwise."""
    refused = pipelines.refusal(body['audit_type'], body['execution_mode'],
                                body['stages'])
    if refused:
        raise exception.Invalid(refused)
    name = body.get('name')
    if name:
        name = references.usable_name('Audit pipeline', name)
    stages = [_stage(context, position, given)
              for position, given in enumerate(body['stages'])]
    return dict(schema.INPUT.stored_values(body), name=name,
                audit_type=body['audit_type'],
                execution_mode=body['execution_mode']), stages


def updated(row, body):
    """(the pipeline's new columns, {stage id: its new columns}) of a PUT
    ``body`` on ``row`` (with its stages); a 400 for a body that changes
    anything else."""
    if isinstance(body, dict):
        fixed = sorted(set(body) - set(schema.MUTABLE))
        if fixed:
            raise exception.Invalid(
                '%s cannot be changed: a PUT of an audit pipeline gives '
                'its %s only' % (', '.join(fixed), ', '.join(schema.MUTABLE)))
    validation.validate(schema.UPDATE, body, 'audit_pipeline')
    given = [stage['uuid'] for stage in body['stages']]
    stages = row['stages']
    if given != [stage['uuid'] for stage in stages]:
        raise exception.Invalid(
            'the stages of an audit pipeline are fixed when it is made: '
            'give each of its %d stages by its uuid, in their order (%s), '
            'with its name and description' % (
                len(stages), ', '.join(s['uuid'] for s in stages)))
    name = body.get('name')
    if name:
        name = references.usable_name('Audit pipeline', name)
    return (
        {'name': name, 'auto_trigger': body.get('auto_trigger', True)},
        {stage['id']: {'name': new.get('name'),
                       'description': new.get('description')}
         for stage, new in zip(stages, body['stages'], strict=True)})
