import datetime

from oslo_log import log

from watcher_ha.applier.actions import base

LOG = log.getLogger(__name__)


def _utcnow():
    """Naive UTC, as the database stores ``started_at``."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Sleep(base.Action):
    """Waits ``duration`` seconds; an abort ends the wait early."""
    name = 'sleep'
    description = 'Wait for a given interval in seconds.'
    schema = base.input_schema(
        {'duration': {'type': 'number', 'minimum': 0, 'maximum': 86400}},
        ['duration'])

    @classmethod
    def resources(cls, input_parameters):
        # Touches nothing in the cloud.
        return set()

    def execute(self):
        duration = self.input_parameters['duration']
        LOG.info('sleep action: waiting %s s', duration)
        if self._aborted.wait(duration):
            raise base.ActionError('sleep aborted after less than %s s'
                                   % duration)

    def recover(self, started_at):
        """Wait only what is left of the interval begun at ``started_at``:
        the interval is resumed, not started over."""
        elapsed = (_utcnow() - started_at).total_seconds()
        left = self.input_parameters['duration'] - elapsed
        if left > 0:
            LOG.info('sleep action: resuming, %.1f s left', left)
            if self._aborted.wait(left):
                return base.NOT_DONE
        return base.DONE
