"""When an audit may run: the rules tying its type to its interval and
time window, on create and on every patch."""

from oslo_utils import timeutils

from watcher_ha.common import exception
from watcher_ha.common.states import AuditType


def parse_time(name, value):
    """An ISO 8601 time as naive UTC; a time without offset is UTC."""
    if value is None:
        return None
    try:
        # Converting to UTC overflows near the ends of the calendar
        # (0001-01-01T00:00:00+01:00).
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except (ValueError, OverflowError):
        raise exception.InvalidField(
            field=name, value="'%s'" % value,
            reason='Expected an ISO 8601 date and time such as '
                   '2030-01-01T08:00:00Z, between years 1 and 9999 in '
                   'UTC.')


def check(audit_type, interval, start_time, end_time):
    """A 400 unless ``interval`` (normalized) and the window
    (``start_time``, ``end_time``: naive UTC or None) suit the type."""
    if audit_type == AuditType.CONTINUOUS and interval is None:
        raise exception.Invalid(
            'Interval of audit must be specified for CONTINUOUS.')
    if audit_type != AuditType.CONTINUOUS and interval is not None:
        raise exception.Invalid(
            'Interval of audit must not be set for %s.' % audit_type)
    if audit_type == AuditType.ONESHOT and (start_time or end_time):
        raise exception.Invalid(
            'Start or End time of audit must not be set for ONESHOT.')
    if start_time and end_time and end_time <= start_time:
        raise exception.Invalid(
            'end_time (%s) must be later than start_time (%s).'
            % (end_time.isoformat(), start_time.isoformat()))
