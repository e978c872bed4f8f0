from oslo_log import log

from watcher_ha.applier.actions import base

LOG = log.getLogger(__name__)


class Nop(base.Action):
    """Logs a message and does nothing else."""
    name = 'nop'
    description = 'Logging a NOP message'
    schema = base.input_schema({'message': base.NAME_OR_NULL}, ['message'])

    @classmethod
    def resources(cls, input_parameters):
        # Touches nothing in the cloud.
        return set()

    def execute(self):
        LOG.info('nop action: %s', self.input_parameters.get('message'))

    def recover(self, started_at):
        # A log line is its whole effect: whether or not it was written,
        # there is nothing to do again.
        return base.DONE
