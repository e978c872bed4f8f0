"""When a continuous audit's next round is due."""

import datetime

import croniter


def next_run(interval, now, previous=None):
    """The round after the one starting at ``now``: ``interval`` seconds
    after the round that was due, keeping the cadence; but a round that
    starts late (its engine died, the audit changed hands) leaves at least
    half an interval before the next one, and one far behind does not
    make up for the rounds it missed. With a cron expression: its next
    time."""
    if interval.isdigit():
        step = datetime.timedelta(seconds=int(interval))
        if previous is None:
            return now + step
        return max(previous + step, now + step / 2)
    return croniter.croniter(interval, now).get_next(datetime.datetime)
