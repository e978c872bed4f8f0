from oslo_log import log

from watcher_ha.applier.actions import base

LOG = log.getLogger(__name__)


class Sleep(base.Action):
    """Waits ``duration`` seconds; an abort ends the wait early."""
    name = 'sleep'
    description = 'Wait for a given interval in seconds.'
    schema = {
        'type': 'object',
        'properties': {'duration': {'type': 'number', 'minimum': 0,
                                    'maximum': 86400}},
        'required': ['duration'],
        'additionalProperties': True,
    }

    def execute(self):
        duration = self.input_parameters['duration']
        LOG.info('sleep action: waiting %s s', duration)
        if self._aborted.wait(duration):
            raise base.ActionError('sleep aborted after less than %s s'
                                   % duration)
