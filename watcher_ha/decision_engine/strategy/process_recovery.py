"""process_recovery: a process of a compute host stopped (instance HA;
the recovery of a PROCESS notification).

As Masakari does: the host is put on maintenance in its segment first
(set_host_maintenance: reports of its failures are ignored until an
operator clears it); if the process is nova-compute, the host's compute
service is then disabled, with a reason, so that the scheduler sends it
nothing more, and confirmed disabled (change_nova_service_state). Its
servers stay where they are: they still run.
"""

from watcher_ha.common.instance_ha import failures
from watcher_ha.decision_engine.strategy import base

DISABLED_REASON = 'watcher_ha: nova-compute stopped (process failure)'


class ProcessRecovery(base.Strategy):
    name = 'process_recovery'
    display_name = 'Process failure recovery'
    goal = 'cluster_maintaining'
    parameters_spec = {
        'properties': {
            'notification_uuid': {
                'description': 'The PROCESS notification this recovers.',
                'type': 'string'},
            'segment_uuid': {
                'description': "The host's failover segment.",
                'type': 'string'},
            'host': {
                'description': 'The compute host whose process stopped.',
                'type': 'string'},
            'process_name': {
                'description': 'The process that stopped.',
                'type': 'string'},
        },
        'required': ['notification_uuid', 'segment_uuid', 'host',
                     'process_name'],
    }

    def execute(self, audit, parameters, models=None, metrics=None):
        host = parameters['host']
        solution = self.new_solution()
        solution.add_action('set_host_maintenance', {
            'notification_uuid': parameters['notification_uuid'],
            'segment_uuid': parameters['segment_uuid'],
            'source_node': host})
        if parameters['process_name'] == failures.NOVA_COMPUTE:
            solution.add_action('change_nova_service_state', {
                'resource_name': host, 'state': 'disabled',
                'disabled_reason': DISABLED_REASON})
        return solution
