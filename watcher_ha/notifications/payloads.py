"""Watcher's versioned notification payloads, built from our rows.

The shapes follow Watcher's documented samples (watcher_object.name,
.namespace, .version, .data). Audit and action plan payloads also carry
``host``: the engine or applier that runs them, or, while none has taken
them, the host whose service made the change being notified.
"""

import datetime

from oslo_config import cfg

CONF = cfg.CONF

NAMESPACE = 'watcher'


def versioned(name, data, version='1.0'):
    return {'watcher_object.name': name,
            'watcher_object.namespace': NAMESPACE,
            'watcher_object.version': version,
            'watcher_object.data': data}


def timestamp(value):
    if value is None:
        return None
    return value.replace(tzinfo=datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ')


def _times(row):
    return {'created_at': timestamp(row.get('created_at')),
            'updated_at': timestamp(row.get('updated_at')),
            'deleted_at': timestamp(row.get('deleted_at'))}


def goal(row):
    return versioned('GoalPayload', dict(
        uuid=row['uuid'], name=row['name'],
        display_name=row['display_name'],
        efficacy_specification=row['efficacy_specification'], **_times(row)))


def strategy(row):
    if row is None:
        return None
    return versioned('StrategyPayload', dict(
        uuid=row['uuid'], name=row['name'],
        display_name=row['display_name'],
        parameters_spec=row['parameters_spec'], **_times(row)))


def fault(error):
    """ExceptionPayload of the error that made an operation fail."""
    if error is None:
        return None
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    frame = trace.tb_frame if trace is not None else None
    return versioned('ExceptionPayload', {
        'exception': type(error).__name__,
        'exception_message': str(error),
        'function_name': frame.f_code.co_name if frame else None,
        'module_name': frame.f_globals.get('__name__') if frame else None,
    })


def state_update(name, old_state, new_state, **extra):
    return versioned(name, dict(old_state=old_state, state=new_state,
                                **extra))


def _terse_audit_data(row):
    return dict(
        uuid=row['uuid'], name=row['name'], audit_type=row['audit_type'],
        state=row['state'], parameters=row['parameters'],
        interval=row['interval'], scope=row['scope'],
        goal_uuid=row['goal_uuid'], strategy_uuid=row['strategy_uuid'],
        status_message=row['status_message'],
        host=row['hostname'] or CONF.host, **_times(row))


def audit(name, row, goal_row, strategy_row, **extra):
    """AuditCreatePayload, AuditUpdatePayload, AuditActionPayload..."""
    data = _terse_audit_data(row)
    data.update(goal=goal(goal_row), strategy=strategy(strategy_row),
                **extra)
    return versioned(name, data)


def terse_audit(row):
    return versioned('TerseAuditPayload', _terse_audit_data(row))


def _terse_plan_data(row):
    return dict(
        uuid=row['uuid'], state=row['state'],
        global_efficacy=row['global_efficacy'],
        audit_uuid=row['audit_uuid'], strategy_uuid=row['strategy_uuid'],
        status_message=row['status_message'],
        host=row['hostname'] or CONF.host, **_times(row))


# The version of action plan payloads that name the audit pipeline that
# made the plan (watcher-specs audit-pipeline.rst, "Notifications
# impact"): only the plans of pipelines carry it, so that an audit's plan
# is notified exactly as Watcher notifies it.
PIPELINE_PLAN_VERSION = '1.1'


def action_plan(name, row, audit_row, strategy_row, **extra):
    data = _terse_plan_data(row)
    data.update(audit=terse_audit(audit_row) if audit_row else None,
                strategy=strategy(strategy_row), **extra)
    if row.get('audit_pipeline_uuid'):
        # No audit made it: no nested audit payload.
        data['audit_pipeline_uuid'] = row['audit_pipeline_uuid']
        data.pop('audit')
        return versioned(name, data, PIPELINE_PLAN_VERSION)
    return versioned(name, data)


def _terse_stage(stage):
    return versioned('TerseAuditPipelineStagePayload', dict(
        uuid=stage['uuid'], position=stage['position'], name=stage['name'],
        goal_uuid=stage['goal_uuid'], strategy_uuid=stage['strategy_uuid']))


def _terse_pipeline_data(row):
    return dict(
        uuid=row['uuid'], name=row['name'], audit_type=row['audit_type'],
        execution_mode=row['execution_mode'], state=row['state'],
        auto_trigger=row['auto_trigger'], hostname=row['hostname'],
        status_message=row['status_message'],
        stages=[_terse_stage(stage) for stage in row['stages']])


def audit_pipeline(name, row, **extra):
    """AuditPipelineCreatePayload, ...UpdatePayload (with its
    state_update), ...DeletePayload, ...ActionPayload (with its fault),
    as watcher-specs audit-pipeline.rst lists their fields."""
    data = _terse_pipeline_data(row)
    data.update(extra)
    return versioned(name, data)


def action(name, row, plan_row, **extra):
    data = dict(
        uuid=row['uuid'], action_type=row['action_type'],
        input_parameters=row['input_parameters'], state=row['state'],
        parents=row['parents'], status_message=row['status_message'],
        action_plan=versioned('TerseActionPlanPayload',
                              _terse_plan_data(plan_row)),
        **_times(row))
    data.update(extra)
    return versioned(name, data)


def service_update(row, old_status, new_status):
    # "sevice_host" is Watcher's spelling on the wire.
    return versioned('ServiceUpdatePayload', {
        'status_update': state_update('ServiceStatusUpdatePayload',
                                      old_status, new_status),
        'last_seen_up': timestamp(row['last_seen_up']),
        'name': row['name'],
        'sevice_host': row['host'],
    })
