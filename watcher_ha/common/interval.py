"""Continuous-audit intervals: a number of seconds or a cron expression.

An interval is accepted only if the decision engine can schedule rounds
with it: its next round is computed here with the engine's own function
(common/scheduling.py), so that no audit is accepted whose every
round would fail.
"""

import croniter
from oslo_utils import timeutils

from watcher_ha.common import exception
from watcher_ha.common import scheduling

# A continuous audit runs at least once a year (a leap year's days) ...
MAX_SECONDS = 366 * 24 * 3600
# ... and at most once a second.
MIN_SECONDS = 1


def normalize(value):
    """Return the interval as Watcher stores it (a string), or raise 400.

    Accepts a number of seconds from MIN_SECONDS to MAX_SECONDS (an
    integer or its string form), or a cron expression such as
    ``*/5 * * * *`` (croniter syntax: five fields, optionally a sixth for
    seconds) that matches some time within
    scheduling.MAX_CRON_YEARS years.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise exception.InvalidInterval(interval=repr(value))
    text = str(value).strip()
    # ASCII digits only: str.isdigit() also accepts '¹', which int()
    # refuses.
    if text.isascii() and text.isdigit():
        text = _seconds(text)
    elif not croniter.croniter.is_valid(text):
        raise exception.InvalidInterval(interval=repr(value))
    try:
        scheduling.next_run(text, timeutils.utcnow())
    except scheduling.UnschedulableInterval as err:
        raise exception.IntervalNeverRuns(reason=err,
                                          years=scheduling.MAX_CRON_YEARS)
    return text


def _seconds(text):
    """``text`` (ASCII digits) as a number of seconds in range."""
    if not MIN_SECONDS <= int(text) <= MAX_SECONDS:
        shown = text if len(text) <= 20 else text[:20] + '...'
        raise exception.IntervalOutOfRange(interval=shown,
                                           low=MIN_SECONDS, high=MAX_SECONDS)
    return str(int(text))
