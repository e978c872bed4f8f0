"""host_maintenance: empty one compute node for maintenance.

The node's compute service is disabled (reason ``watcher_maintaining``)
so that no new server lands on it, then each of its servers is dealt
with as Watcher 17 does, by the audit's two switches:

==================  ==================  =================================
disable_live_...    disable_cold_...    a running server / one that is not
==================  ==================  =================================
no                  no                  live-migrated / cold-migrated
yes                 no                  cold-migrated / cold-migrated
no                  yes                 live-migrated / stays
yes                 yes                 stopped / stays
==================  ==================  =================================

Running is active, as in Watcher, and also paused: Nova live-migrates a
paused server (and cold-migrates none), so it is counted with the
running ones for moves and left alone when moves are off, as Watcher
does. Only active servers are stopped.

Destinations come from ``Moves``: enabled, up, not kept for failover or
maintenance, in the server's pinned zone, with room by Placement's
count. A ``backup_node`` is tried first for every server; if it is
disabled the plan enables it first, as Watcher does (the operator named
it), but one that is down, kept for failover or on maintenance is
refused. Where Watcher leaves the choice to Nova's scheduler, this picks
the node with the most free memory, so the plan never over-packs one.

If a server to move fits nowhere, or is in a state Nova moves in neither
way (suspended, rescued, in error, shelved, waiting for a resize to be
confirmed), the strategy fails and says which: a plan that left them
behind would end SUCCEEDED with the node not drained. The audit's
disruption budget, on the other hand, is the operator's choice: the
servers it holds back stay for a later round, and the node is disabled
all the same.
"""

import dataclasses

from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import moves as moves_mod

DISABLED_REASON = 'watcher_maintaining'


class HostMaintenance(base.Strategy):
    name = 'host_maintenance'
    display_name = 'Host Maintenance Strategy'
    goal = 'cluster_maintaining'
    data_models = ('compute',)
    parameters_spec = moves_mod.parameters_spec({
        'maintenance_node': {
            'description': 'The name of the compute node which need '
                           'maintenance',
            'type': 'string'},
        'backup_node': {
            'description': 'The name of the compute node which will '
                           'backup the maintenance node.',
            'type': 'string'},
        'disable_live_migration': {
            'description': 'Disable live migration in maintenance. If '
                           'True, active instances will be cold migrated '
                           'if `disable_cold_migration` is not set, '
                           'otherwise they will be stopped.',
            'type': 'boolean', 'default': False},
        'disable_cold_migration': {
            'description': 'Disable cold migration in maintenance. If '
                           'True, non-active instances will not be cold '
                           'migrated.',
            'type': 'boolean', 'default': False},
    }, required=['maintenance_node'])

    def execute(self, audit, parameters, models=None, metrics=None):
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
        backup = self._backup(cluster, source, parameters.get('backup_node'))
        solution = self.new_solution()
        if not (source.status == 'disabled'
                and source.disabled_reason == DISABLED_REASON):
            solution.add_action('change_nova_service_state', {
                'resource_id': source.uuid or source.hostname,
                'resource_name': source.hostname,
                'state': 'disabled',
                'disabled_reason': DISABLED_REASON})
        if backup is not None and backup.status != 'enabled':
            # Seen enabled by the moves; enabled by the plan if used.
            changes = cluster.changes()
            changes.put_node(dataclasses.replace(backup, status='enabled'))
            cluster = changes.state()
        plan = moves_mod.Moves(cluster, parameters, self.protected_hosts)
        to_stop, held_back = self._drain(
            plan, source.hostname, backup and backup.hostname, parameters)
        # The objective: servers left to deal with on the node.
        handled = len(plan.made) + len(to_stop)
        if held_back and not moves_mod.improved_enough(
                handled + held_back, held_back, parameters):
            return self.new_solution()
        if backup is not None and backup.status != 'enabled' and any(
                destination == backup.hostname
                for _, _, destination, _ in plan.made):
            solution.add_action('change_nova_service_state', {
                'resource_id': backup.uuid or backup.hostname,
                'resource_name': backup.hostname,
                'state': 'enabled'})
        plan.add_to(solution)
        for instance in to_stop:
            solution.add_action('stop', resource_id=instance.uuid)
        return solution

    def _backup(self, cluster, source, name):
        """The backup node's element, or None when none is named; a
        node that cannot receive servers is refused, saying why."""
        if name is None:
            return None
        backup = cluster.node(name)
        if backup is None:
            raise base.StrategyError('backup node %s is not in the data '
                                     'model' % name)
        if name == source.hostname:
            raise base.StrategyError('backup node %s is the maintenance '
                                     'node itself; name another' % name)
        if backup.state != 'up':
            raise base.StrategyError('backup node %s is down: its compute '
                                     'service does not report; name '
                                     'another, or none' % name)
        if name in self.protected_hosts:
            raise base.StrategyError(
                'backup node %s is kept for failover or on maintenance and '
                'receives no server; name another, or none' % name)
        return backup

    def _drain(self, plan, source, backup, parameters):
        """Plan what becomes of each server of ``source``: moves into
        ``plan``; returns (the servers to stop, how many the budget
        holds back). Largest first, so the big ones find room while it
        is there."""
        unplaced, stuck, to_stop = [], [], []
        held_back = 0
        servers = sorted(plan.instances_on(source),
                         key=lambda i: (-i.memory_mb, -i.vcpus, i.uuid))
        for instance in servers:
            fate = _fate(instance, parameters)
            if fate is None:
                continue
            if fate == 'stop':
                to_stop.append(instance)
                continue
            if instance.state not in moves_mod.MIGRATABLE[fate]:
                stuck.append('%s (%s)' % (instance.name or instance.uuid,
                                          instance.state))
                continue
            if not plan.within_budget(instance):
                held_back += 1
                continue
            destination = _destination(plan, instance, backup)
            if destination is None:
                unplaced.append(instance.name or instance.uuid)
                continue
            plan.move(instance, destination, fate)
        if stuck:
            raise base.StrategyError(
                'Nova cannot move %s off %s in their state: it live-'
                'migrates active or paused servers and cold-migrates '
                'active or stopped ones; resume, unrescue, start, stop or '
                'confirm them first, or set disable_cold_migration to leave '
                'the servers that do not run where they are'
                % (', '.join(sorted(stuck)), source))
        if unplaced:
            raise base.StrategyError(
                'no enabled, up compute node (in the server\'s pinned '
                'availability zone, if any) has room for %s (from %s); '
                'free capacity or give a backup_node that can hold them'
                % (', '.join(sorted(unplaced)), source))
        return to_stop, held_back


def _fate(instance, parameters):
    """'live', 'cold', 'stop', or None (it stays), by Watcher's rules
    (see the module's table)."""
    running = instance.state in moves_mod.MIGRATABLE['live']
    no_live = parameters.get('disable_live_migration', False)
    no_cold = parameters.get('disable_cold_migration', False)
    if no_live and no_cold:
        return 'stop' if instance.state == 'active' else None
    if running:
        return 'cold' if no_live else 'live'
    return None if no_cold else 'cold'


def _destination(plan, instance, backup):
    """``backup`` if ``instance`` fits there, else the node with the
    most free memory that it fits on, or None."""
    if backup is not None and plan.fits(instance, backup):
        return backup
    best = None
    for hostname in plan.destinations():
        if plan.fits(instance, hostname) and (best is None or (
                -plan.free(hostname, 'memory_mb'), hostname) < (
                -plan.free(best, 'memory_mb'), best)):
            best = hostname
    return best
