"""When a continuous audit's next round is due."""

import datetime

import croniter


def next_run(interval, now, previous=None):
    """The next round after ``now``: ``interval`` seconds after the round
    that was due (catching up with at most one round when behind), or the
    cron expression's next time."""
    if interval.isdigit():
        step = datetime.timedelta(seconds=int(interval))
        if previous is None or previous + step <= now:
            return now + step
        return previous + step
    return croniter.croniter(interval, now).get_next(datetime.datetime)
