"""When a continuous audit's next round is due."""

import datetime

import croniter

# A cron expression must match some time within this many years of any
# moment; croniter searches that far and no further.
MAX_CRON_YEARS = 5


class UnschedulableInterval(ValueError):
    """No next round can be computed from the interval: a number of
    seconds that reaches past the end of the calendar (year 9999), or a
    cron expression that matches no time within MAX_CRON_YEARS years (or
    that croniter cannot read)."""


def next_run(interval, now, previous=None):
    """The round after the one starting at ``now``: ``interval`` seconds
    after the round that was due, keeping the cadence; but a round that
    starts late (its engine died, the audit changed hands) leaves at least
    half an interval before the next one, and one far behind does not
    make up for the rounds it missed. With a cron expression: its next
    time.

    Raises UnschedulableInterval for an interval no round can follow.
    """
    moment = now.strftime('%Y-%m-%d %H:%M:%S UTC')
    if interval.isdigit():
        try:
            step = datetime.timedelta(seconds=int(interval))
            if previous is None:
                return now + step
            return max(previous + step, now + step / 2)
        except OverflowError:
            raise UnschedulableInterval(
                'an interval of %s seconds after %s reaches past the end '
                'of the calendar (year 9999)' % (interval, moment))
    try:
        return croniter.croniter(
            interval, now, max_years_between_matches=MAX_CRON_YEARS,
        ).get_next(datetime.datetime)
    except croniter.CroniterBadDateError:
        raise UnschedulableInterval(
            'the cron expression %r matches no time within %d years of %s'
            % (interval, MAX_CRON_YEARS, moment))
    except (croniter.CroniterError, OverflowError) as err:
        raise UnschedulableInterval(
            'the cron expression %r cannot be read: %s' % (interval, err))
