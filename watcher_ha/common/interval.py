"""Continuous-audit intervals: a number of seconds or a cron expression."""

import croniter

from watcher_ha.common import exception


def normalize(value):
    """Return the interval as Watcher stores it (a string), or raise 400.

    Accepts a positive integer (or its string form) meaning seconds, or a
    cron expression such as ``*/5 * * * *`` (croniter syntax: five fields,
    optionally a sixth for seconds).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise exception.InvalidInterval(interval=repr(value))
    text = str(value).strip()
    if text.isdigit():
        if int(text) <= 0:
            raise exception.Invalid(
                'Interval %s must be a positive number of seconds.' % text)
        return str(int(text))
    if croniter.croniter.is_valid(text):
        return text
    raise exception.InvalidInterval(interval=repr(value))


def is_cron(interval):
    return interval is not None and not interval.isdigit()
