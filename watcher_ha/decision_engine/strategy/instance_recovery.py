"""instance_recovery: restart a server whose guest failed (instance HA;
the recovery of a VM notification).

The plan is one action, restart_server: the server is stopped if it is
not, started, and confirmed ACTIVE, as Masakari's instance failure flow
does. Which reports and which servers are recovered is decided by the
decision engine before the audit (common/instance_ha/failures.py), and checked
again by the action when it runs: the server's state comes from Nova
then, not from a data model.
"""

from watcher_ha.decision_engine.strategy import base


class InstanceRecovery(base.Strategy):
    name = 'instance_recovery'
    display_name = 'Server failure recovery'
    goal = 'cluster_maintaining'
    parameters_spec = {
        'properties': {
            'notification_uuid': {
                'description': 'The VM notification this recovers.',
                'type': 'string'},
            'instance_uuid': {
                'description': 'The server whose guest failed.',
                'type': 'string'},
            'process_all_instances': {
                'description': 'Restart the server even without the '
                               'metadata HA_Enabled=True.',
                'type': 'boolean', 'default': False},
        },
        'required': ['notification_uuid', 'instance_uuid'],
    }

    def execute(self, audit, parameters, models=None, metrics=None):
        solution = self.new_solution()
        solution.add_action('restart_server', {
            'resource_id': parameters['instance_uuid'],
            'notification_uuid': parameters['notification_uuid'],
            'process_all_instances': parameters['process_all_instances']})
        return solution
