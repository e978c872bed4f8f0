"""What ``GET /v1/action_plans/{uuid}/what_if`` answers (watcher-ha 1.3),
as a decision engine computes it (decision_engine/what_if/report.py;
doc/source/what_if.rst tells each field). The tests hold answers to it."""

from watcher_ha.api import fields as f

NUMBER = {'type': 'number'}
NULLABLE_NUMBER = {'type': ['number', 'null']}
NULLABLE_INTEGER = {'type': ['integer', 'null']}
COUNTS = {'type': 'object', 'additionalProperties': f.INTEGER}


def _object(properties, optional=()):
    """A closed object whose ``properties`` are all required but the
    ``optional`` ones."""
    return {'type': 'object', 'properties': properties,
            'required': [name for name in properties if name not in
                         optional],
            'additionalProperties': False}


_RESOURCE = _object({'used': NUMBER, 'capacity': NUMBER,
                     'percent': NULLABLE_NUMBER})
_SIDE = _object({'status': f.STRING, 'state': f.STRING,
                 'servers': f.INTEGER, 'vcpus': _RESOURCE,
                 'memory_mb': _RESOURCE, 'disk_gb': _RESOURCE,
                 'load_percent': NUMBER,
                 'cpu_utilisation_percent': NULLABLE_NUMBER})
_HOST = _object({'name': f.STRING, 'changed': f.BOOLEAN, 'before': _SIDE,
                 'after': _SIDE})
_LOAD = {'type': ['object', 'null'], 'properties': {
    'host': f.STRING, 'load_percent': NUMBER,
    'resource': f.NULLABLE_STRING},
    'required': ['host', 'load_percent', 'resource'],
    'additionalProperties': False}
_MOMENT = dict(_object({
    'host': f.STRING, 'load_percent': NUMBER,
    'resource': f.NULLABLE_STRING, 'step': f.INTEGER, 'running': f.INTEGER,
    'action_uuid': f.STRING, 'action_type': f.STRING,
    'resource_id': f.NULLABLE_STRING}), type=['object', 'null'])
_ROOM = _object({'vcpus': NUMBER, 'memory_mb': NUMBER, 'disk_gb': NUMBER})
_SEGMENT_SIDE = _object({
    'hosts': f.INTEGER, 'absorbed': f.INTEGER,
    'not_absorbed': {'type': 'array', 'items': f.STRING},
    'reserved_hosts': {'type': 'array', 'items': f.STRING},
    'reserved_free': _ROOM,
    'most_reserved_hosts_one_failure_takes': f.INTEGER})
_SEGMENT = _object({
    'uuid': f.UUID, 'name': f.STRING, 'recovery_method': f.STRING,
    'enabled': f.BOOLEAN, 'before': _SEGMENT_SIDE,
    'after': _SEGMENT_SIDE})
_INDICATOR = _object({
    'name': f.STRING, 'description': f.NULLABLE_STRING,
    'unit': f.NULLABLE_STRING, 'stored': NULLABLE_NUMBER,
    'projected': NULLABLE_NUMBER})
_BUDGET = _object({
    'name': f.STRING, 'description': f.STRING, 'limit': NUMBER,
    'used': f.INTEGER, 'where': f.NULLABLE_STRING, 'within': f.BOOLEAN})
_DIFFERENCE = _object({'action_uuid': f.STRING, 'action_type': f.STRING,
                       'difference': f.STRING})
_ACTIONS = _object({
    'total': COUNTS, 'projected': COUNTS,
    'not_projected': {'type': 'array', 'items': _object({
        'action_type': f.STRING, 'count': f.INTEGER,
        'why': f.NULLABLE_STRING})},
    'unplaced': {'type': 'array', 'items': _object({
        'action_uuid': f.STRING, 'action_type': f.STRING,
        'why': f.NULLABLE_STRING})}})

WHAT_IF = _object({
    'action_plan_uuid': f.UUID,
    'state': f.STRING,
    # An audit's plan, or an audit pipeline's (watcher-ha 1.4).
    'audit_uuid': f.NULLABLE_UUID,
    'audit_pipeline_uuid': f.NULLABLE_UUID,
    'goal': f.STRING,
    'strategy': f.NULLABLE_STRING,
    'model': _object({
        'name': f.STRING, 'host': f.NULLABLE_STRING,
        'generation': NULLABLE_INTEGER,
        'seconds_since_resync': NULLABLE_NUMBER,
        'seconds_since_notification': NULLABLE_NUMBER}),
    'stale': f.BOOLEAN,
    'differences': {'type': 'array', 'items': _DIFFERENCE},
    'differences_count': f.INTEGER,
    'steps': f.INTEGER,
    'hosts': {'type': 'array', 'items': _HOST},
    'hosts_changed': f.INTEGER,
    'hosts_total': f.INTEGER,
    'cpu_utilisation': _object({
        'available': f.BOOLEAN, 'metric': f.STRING, 'reason': f.STRING},
        optional=('metric', 'reason')),
    'worst_moment': _MOMENT,
    'highest_load_percent': _object({'before': _LOAD, 'after': _LOAD}),
    'efficacy_indicators': {'type': 'array', 'items': _INDICATOR},
    'global_efficacy': {'type': 'array', 'items': f.OBJECT},
    'failover_segments': {'type': 'array', 'items': _SEGMENT},
    'budgets': {'type': 'array', 'items': _BUDGET},
    'actions': _ACTIONS,
})
