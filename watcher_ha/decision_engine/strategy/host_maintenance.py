"""host_maintenance: drain one compute node for maintenance.

The node's compute service is disabled (so that no new server lands on
it), then each of its servers moves to another enabled, up node with room
for it, in its pinned availability zone if it has one: live-migrated if
it runs or is paused, cold-migrated if it is stopped (or when live
migration is disabled by the audit's parameters). A ``backup_node``, when
given, is tried first for every server.

Room is what a node can hold (totals less reserved, times allocation
ratios) less what its servers take and what this plan already sends there.
If a server fits nowhere, or is in a state Nova moves in neither way
(suspended, rescued, in error, shelved, waiting for a resize to be
confirmed), the strategy fails and says which: a plan that left them
behind would end SUCCEEDED with the node not drained.
"""

from watcher_ha.decision_engine.strategy import base

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')
DISABLED_REASON = 'watcher_maintaining'
# The vm_states Nova accepts for each kind of migration.
MOVABLE = {'live': frozenset(('active', 'paused')),
           'cold': frozenset(('active', 'stopped'))}


class HostMaintenance(base.Strategy):
    name = 'host_maintenance'
    display_name = 'Host Maintenance Strategy'
    goal = 'cluster_maintaining'
    data_models = ('compute',)
    parameters_spec = {
        'properties': {
            'maintenance_node': {
                'description': 'The name of the compute node which needs '
                               'maintenance.',
                'type': 'string'},
            'backup_node': {
                'description': 'The name of the compute node the servers '
                               'go to first.',
                'type': 'string'},
            'disable_live_migration': {
                'description': 'Cold-migrate every server, running or '
                               'not.',
                'type': 'boolean', 'default': False},
            'disable_cold_migration': {
                'description': 'Do not move servers that are not running '
                               '(they stay on the node).',
                'type': 'boolean', 'default': False},
        },
        'required': ['maintenance_node'],
    }

    def execute(self, audit, parameters, models=None):
        cluster = (models or {}).get('compute')
        if cluster is None:
            raise base.StrategyError('host_maintenance needs the compute '
                                     'data model')
        source = cluster.node(parameters['maintenance_node'])
        if source is None:
            raise base.StrategyError(
                'compute node %s is not in the data model; give the name '
                'Nova shows in "openstack compute service list"'
                % parameters['maintenance_node'])
        backup = parameters.get('backup_node')
        if backup is not None and cluster.node(backup) is None:
            raise base.StrategyError('backup node %s is not in the data '
                                     'model' % backup)
        solution = self.new_solution()
        if source.status == 'enabled':
            solution.add_action('change_nova_service_state', {
                'resource_id': source.uuid or source.hostname,
                'resource_name': source.hostname,
                'state': 'disabled',
                'disabled_reason': DISABLED_REASON})
        room = _Room(cluster, exclude=source.hostname)
        unplaced, stuck = [], []
        for instance in cluster.instances_on(source.hostname):
            migration = self._migration_type(instance, parameters)
            if migration is None:
                continue
            if instance.state not in MOVABLE[migration]:
                stuck.append('%s (%s)' % (instance.name or instance.uuid,
                                          instance.state))
                continue
            destination = room.take(instance, prefer=backup)
            if destination is None:
                unplaced.append(instance.name or instance.uuid)
                continue
            solution.add_action('migrate', {
                'resource_id': instance.uuid,
                'resource_name': instance.name,
                'migration_type': migration,
                'source_node': source.hostname,
                'destination_node': destination})
        if stuck:
            raise base.StrategyError(
                'Nova cannot move %s off %s in their state: it live-'
                'migrates active or paused servers and cold-migrates '
                'active or stopped ones; resume, unrescue, start, stop or '
                'confirm them first, or set disable_cold_migration to leave '
                'the servers that do not run where they are'
                % (', '.join(sorted(stuck)), source.hostname))
        if unplaced:
            raise base.StrategyError(
                'no enabled, up compute node (in the server\'s pinned '
                'availability zone, if any) has room for %s (from %s); '
                'free capacity or give a backup_node that can hold them'
                % (', '.join(sorted(unplaced)), source.hostname))
        return solution

    @staticmethod
    def _migration_type(instance, parameters):
        """'live' for a server that runs (or is paused) unless live
        migration is disabled; None for the others when cold migration
        is; else 'cold'."""
        if (instance.state in MOVABLE['live']
                and not parameters['disable_live_migration']):
            return 'live'
        if parameters['disable_cold_migration']:
            return None
        return 'cold'


class _Room:
    """Free capacity of the candidate destinations, as this plan fills
    them."""

    def __init__(self, cluster, exclude):
        self.free = {}
        self.zone = {}
        for hostname, node in cluster.nodes.items():
            if (hostname == exclude or node.status != 'enabled'
                    or node.state != 'up'):
                continue
            self.zone[hostname] = node.availability_zone
            self.free[hostname] = {
                resource: node.capacity(resource)
                - cluster.used(hostname, resource)
                for resource in RESOURCES}

    def _fits(self, hostname, instance):
        pinned = instance.pinned_availability_zone
        if pinned is not None and self.zone[hostname] != pinned:
            return False
        return all(self.free[hostname][resource] >= getattr(instance,
                                                            resource)
                   for resource in RESOURCES)

    def take(self, instance, prefer=None):
        """The destination for ``instance`` (``prefer`` if it fits, else
        the node with the most free memory), or None."""
        candidates = [prefer] if prefer in self.free else []
        candidates += sorted(
            (h for h in self.free if h != prefer),
            key=lambda h: (-self.free[h]['memory_mb'], h))
        for hostname in candidates:
            if self._fits(hostname, instance):
                for resource in RESOURCES:
                    self.free[hostname][resource] -= getattr(instance,
                                                             resource)
                return hostname
        return None
