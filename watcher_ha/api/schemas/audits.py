"""Audits: response fields and request bodies."""

from watcher_ha.api import fields as f
from watcher_ha.api import inputs as i
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
# The states a user may ask for; the audit machine says which moves.
STATES = {'enum': [AuditState.PENDING, AuditState.ONGOING,
                   AuditState.SUCCEEDED, AuditState.FAILED,
                   AuditState.CANCELLED, AuditState.SUSPENDED,
                   AuditState.DELETED]}


def _utc(column):
    return lambda row: f.iso_utc(row[column])


# What a client may send. The scheduling fields (hostname, next_run_time)
# belong to the decision engines: shown to a patch, changed by none.
INPUT = i.Inputs(
    'audit_p',
    i.Input('audit_type', create=f.STRING, required=True, fixed=True),
    i.Input('name', create=NAME,
            patch={'type': 'string', 'minLength': 1, 'maxLength': 63},
            mandatory=True),
    i.Input('audit_template_uuid', create=f.NULLABLE_STRING, fixed=True),
    i.Input('goal', create=REFERENCE, fixed=True),
    i.Input('strategy', create=REFERENCE, fixed=True),
    i.Input('parameters', create={'type': ['object', 'null']},
            patch=f.OBJECT, mandatory=True),
    i.Input('interval', create=INTERVAL, patch=i.SAME),
    i.Input('auto_trigger', create=f.BOOLEAN, patch=i.SAME, mandatory=True,
            stored=True, default=False),
    i.Input('start_time', create=TIME, patch=i.SAME, since='1.1',
            shown=_utc('start_time')),
    i.Input('end_time', create=TIME, patch=i.SAME, since='1.1',
            shown=_utc('end_time')),
    # Run despite an ongoing action plan.
    i.Input('force', create=f.BOOLEAN, patch=i.SAME, mandatory=True,
            stored=True, default=False),
    i.Input('state', patch=STATES, mandatory=True),
    i.Input('status_message', internal=True),
    i.Input('hostname', internal=True),
    i.Input('next_run_time', internal=True, shown=_utc('next_run_time')),
    # Names Watcher refuses to patch with its "can't be updated" though
    # no create body gives them.
    i.Input('type', fixed=True),
    i.Input('scope', fixed=True),
)
