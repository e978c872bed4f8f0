"""Continuous-audit intervals: a number of seconds or a cron expression."""

import datetime

import croniter

from watcher_ha.common import exception

# The longest interval a timedelta can hold; longer ones (a JSON integer
# may have thousands of digits) would not even fit the interval column.
MAX_SECONDS = datetime.timedelta.max // datetime.timedelta(seconds=1)


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
    # ASCII digits only: str.isdigit() also accepts '¹', which int()
    # refuses.
    if text.isascii() and text.isdigit():
        if int(text) <= 0:
            raise exception.Invalid(
                'Interval %s must be a positive number of seconds.' % text)
        if int(text) > MAX_SECONDS:
            shown = text if len(text) <= 20 else text[:20] + '...'
            raise exception.Invalid(
                'Interval %s is too long: at most %d seconds.'
                % (shown, MAX_SECONDS))
        return str(int(text))
    if croniter.croniter.is_valid(text):
        return text
    raise exception.InvalidInterval(interval=repr(value))

