"""Audits: response fields and request bodies."""

from watcher_ha.api import fields as f
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType


def _force(row, output):
    # Watcher shows the stored value only in detail views from 1.2 on.
    if not output.detail or not output.version.at_least('1.2'):
        return False
    return row['force']


AUDIT = f.Fields(
    'audits',
    f.Field('uuid', f.UUID, in_list=True),
    f.Field('name', f.STRING, in_list=True),
    f.Field('audit_type', {'enum': list(AuditType.ALL)}, in_list=True),
    f.Field('state', f.STRING, in_list=True),
    f.Field('goal_uuid', f.UUID, in_list=True),
    f.Field('goal_name', f.STRING, in_list=True),
    f.Field('strategy_uuid', f.NULLABLE_UUID, in_list=True),
    f.Field('strategy_name', f.NULLABLE_STRING, in_list=True),
    f.Field('parameters', f.OBJECT),
    f.Field('links', f.LINKS, in_list=True, getter=f.links_of()),
    f.Field('interval', f.NULLABLE_STRING, in_list=True),
    f.Field('scope', f.ARRAY, in_list=True),
    f.Field('auto_trigger', f.BOOLEAN, in_list=True),
    f.Field('next_run_time', f.NULLABLE_DATETIME, in_list=True,
            getter=f.naive_timestamp('next_run_time')),
    f.Field('hostname', f.NULLABLE_STRING),
    f.Field('start_time', f.NULLABLE_DATETIME, since='1.1',
            getter=f.naive_timestamp('start_time')),
    f.Field('end_time', f.NULLABLE_DATETIME, since='1.1',
            getter=f.naive_timestamp('end_time')),
    f.Field('force', f.BOOLEAN, in_list=True, getter=_force),
    f.Field('status_message', f.NULLABLE_STRING, since='1.5'),
    f.Field('created_at', f.DATETIME, getter=f.timestamp('created_at')),
    f.Field('deleted_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('deleted_at')),
    f.Field('updated_at', f.NULLABLE_DATETIME,
            getter=f.timestamp('updated_at')),
)

NAME = {'type': ['string', 'null'], 'maxLength': 63}
REFERENCE = {'type': ['string', 'null'], 'maxLength': 255}
INTERVAL = {'type': ['string', 'integer', 'null'], 'maxLength': 64}
TIME = {'type': ['string', 'null'], 'maxLength': 64}

CREATE = {
    'type': 'object',
    'properties': {
        'audit_type': {'type': 'string'},
        'name': NAME,
        'audit_template_uuid': {'type': ['string', 'null']},
        'goal': REFERENCE,
        'strategy': REFERENCE,
        'parameters': {'type': ['object', 'null']},
        'interval': INTERVAL,
        'auto_trigger': {'type': 'boolean'},
        'start_time': TIME,
        'end_time': TIME,
        'force': {'type': 'boolean'},
    },
    'required': ['audit_type'],
    'additionalProperties': False,
}

# Fields a user may PATCH; the scheduling fields (hostname, next_run_time)
# belong to the decision engines.
PATCHABLE = ('/name', '/state', '/interval', '/parameters', '/auto_trigger',
             '/force', '/start_time', '/end_time')
MANDATORY = ('/name', '/state', '/parameters', '/auto_trigger', '/force')

PATCHED = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 63},
        'state': {'enum': [AuditState.PENDING, AuditState.ONGOING,
                           AuditState.SUCCEEDED, AuditState.FAILED,
                           AuditState.CANCELLED, AuditState.SUSPENDED,
                           AuditState.DELETED]},
        'interval': INTERVAL,
        'parameters': {'type': 'object'},
        'auto_trigger': {'type': 'boolean'},
        'force': {'type': 'boolean'},
        'start_time': TIME,
        'end_time': TIME,
    },
    'additionalProperties': False,
}
