"""host_recovery: bring the servers of a failed compute host back on
other hosts (instance HA; the recovery of a host notification).

The plan fences the failed host first: powered off through Ironic when
the recovery asks for it (power_off_host), then in Nova
(force_host_down). Then it evacuates its servers: onto the reserved hosts
of its failover segment (``reserved_host``: claim_reserved_hosts takes
the fewest that hold them, when the plan runs, counting what Placement
holds then, and with ``add_reserved_host_to_aggregate`` puts them in the
failed host's aggregates), or wherever Nova's scheduler puts them
(``auto``). Its last action (settle_recovery)
returns the reserved hosts it did not use and puts the failed host on
maintenance.

Only servers with the metadata ``HA_Enabled=True`` are evacuated, unless
``evacuate_all_instances``, and not those evacuated ``max_evacuations``
times within ``max_evacuations_window`` seconds (left for an operator,
the attempt failing on them). They go in order of their ``HA_Priority``
metadata (an integer, lowest first), unprioritised last; ``[watcher_
planners.weight] parallelization`` says how many at once. As Masakari
does, a server in any state is evacuated (evacuate resets to error first
one Nova would refuse: paused, suspended, waiting for its resize to be
confirmed...), except one still being built or deleted (soft): those are
left where they are, their vmove ignored saying why
(common/instance_ha/failures.py). So are the members of an application
declared for failover (doc/source/app_failover.rst): its own audit,
triggered as the recovery starts, fails it over or replaces them.
"""

import datetime

from keystoneauth1 import exceptions as ks_exc
from novaclient import exceptions as nova_exc
from oslo_config import cfg
from oslo_log import log

from watcher_ha.cloud import clients
from watcher_ha.common import context as watcher_context
from watcher_ha.common.instance_ha import failures
from watcher_ha.common.instance_ha import packing
from watcher_ha.db import failover_segments
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.db import vmoves
from watcher_ha.decision_engine import app_failover
from watcher_ha.decision_engine.strategy import base

CONF = cfg.CONF
LOG = log.getLogger(__name__)

RESERVED_HOST = 'reserved_host'
AUTO = 'auto'


def _priority(instance):
    text = instance.metadata_dict.get('HA_Priority')
    try:
        return (0, int(text), instance.uuid)
    except (TypeError, ValueError):
        return (1, 0, instance.uuid)


def _ha_enabled(instance):
    return failures.ha_enabled(instance.metadata_dict)


class HostRecovery(base.Strategy):
    name = 'host_recovery'
    display_name = 'Host failure recovery'
    goal = 'cluster_maintaining'
    data_models = ('compute',)
    parameters_spec = {
        'properties': {
            'notification_uuid': {
                'description': 'The host notification this recovers.',
                'type': 'string'},
            'segment_uuid': {
                'description': "The failed host's failover segment.",
                'type': 'string'},
            'failed_host': {
                'description': 'The failed compute host.',
                'type': 'string'},
            'recovery_method': {
                'description': 'Where the servers go: the segment\'s '
                               'reserved hosts, or where Nova schedules '
                               'them.',
                'enum': [RESERVED_HOST, AUTO], 'default': AUTO},
            'power_fencing': {
                'description': 'Power the failed host off through Ironic '
                               '(and wait until it is) before anything '
                               'else.',
                'type': 'boolean', 'default': False},
            'evacuate_all_instances': {
                'description': 'Evacuate every server, not only those '
                               'with the metadata HA_Enabled=True.',
                'type': 'boolean', 'default': False},
            'add_reserved_host_to_aggregate': {
                'description': 'Put the reserved hosts claimed in the '
                               'failed host\'s aggregates.',
                'type': 'boolean', 'default': False},
            'max_evacuations': {
                'description': 'A server evacuated this many times '
                               'within max_evacuations_window is left '
                               'where it is, for an operator (0: no '
                               'limit).',
                'type': 'integer', 'minimum': 0, 'default': 0},
            'max_evacuations_window': {
                'description': 'Seconds max_evacuations counts over.',
                'type': 'integer', 'minimum': 1, 'default': 3600},
        },
        'required': ['notification_uuid', 'segment_uuid', 'failed_host'],
    }

    def fresh_hosts(self, parameters):
        # A server the model misses (a notification lost or late) would
        # be left on the dead host with the recovery finished.
        return {'compute': [parameters['failed_host']]}

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = (models or {}).get('compute')
        if cluster is None:
            raise base.StrategyError('host_recovery needs the compute data '
                                     'model')
        failed = parameters['failed_host']
        if cluster.node(failed) is None:
            raise base.StrategyError('compute node %s is not in the data '
                                     'model' % failed)
        servers = sorted(
            (i for i in cluster.instances_on(failed)
             if parameters['evacuate_all_instances'] or _ha_enabled(i)),
            key=_priority)
        notification = parameters['notification_uuid']
        refused = {i.uuid: failures.not_evacuated(i.uuid, i.state)
                   for i in servers}
        refused = {uuid: why for uuid, why in refused.items() if why}
        refused.update(self._application_members(failed, servers))
        servers = [i for i in servers if i.uuid not in refused]
        looping = self._looping(servers, parameters)
        servers = [i for i in servers if i.uuid not in looping]
        solution = self.new_solution()
        if parameters.get('power_fencing'):
            solution.add_action('power_off_host', {'resource_name': failed})
        solution.add_action('force_host_down', {'resource_name': failed})
        by_claim = parameters['recovery_method'] == RESERVED_HOST
        if by_claim and servers:
            capacity = self._reserved_capacity(
                cluster, parameters['segment_uuid'], failed, notification)
            solution.add_action('claim_reserved_hosts', {
                'notification_uuid': notification,
                'segment_uuid': parameters['segment_uuid'],
                'source_node': failed,
                'servers': {i.uuid: {r: getattr(i, r)
                                     for r in packing.RESOURCES}
                            for i in servers},
                'capacity': capacity,
                'join_aggregates': parameters.get(
                    'add_reserved_host_to_aggregate', False),
                'providers': self._providers(cluster,
                                             [failed] + sorted(capacity))})
        for instance in servers:
            solution.add_action('evacuate', {
                'resource_id': instance.uuid,
                'resource_name': instance.name,
                'source_node': failed,
                'destination_node': None,
                'destination_from_claim': by_claim,
                'notification_uuid': notification})
        solution.add_action('settle_recovery', {
            'notification_uuid': notification,
            'segment_uuid': parameters['segment_uuid'],
            'source_node': failed,
            'evacuate_all_instances': parameters['evacuate_all_instances'],
            'left_alone': looping,
            'not_evacuated': refused})
        return solution

    @staticmethod
    def _application_members(failed, servers):
        """{uuid: why} of the ``servers`` that are members of a declared
        application: its own audit fails it over (app_failover.py)."""
        if not servers or clients.configured(CONF):
            return {}
        try:
            members = app_failover.members_on(
                watcher_context.admin_context(), clients.nova(CONF), failed)
        except (ks_exc.ClientException, nova_exc.ClientException) as err:
            # Recovered as any server then: an application's audit finds
            # its member held by this plan and does nothing meanwhile.
            LOG.warning('Host %s: could not read the applications on it '
                        '(%s); their members are evacuated', failed, err)
            return {}
        return {i.uuid: 'a member of the application of audit %s (%s), '
                        'which fails it over instead' % (
                            members[i.uuid]['uuid'],
                            members[i.uuid]['name'])
                for i in servers if i.uuid in members}

    @staticmethod
    def _looping(servers, parameters):
        """{uuid: why} of the servers evacuated too often lately: a
        server whose every new host fails in turn (its workload kills
        them, a bad image) must not take one host after another."""
        limit = parameters.get('max_evacuations') or 0
        if not limit:
            return {}
        window = parameters.get('max_evacuations_window', 3600)
        counts = vmoves.evacuations_since(
            watcher_context.admin_context(), [i.uuid for i in servers],
            models.utcnow() - datetime.timedelta(seconds=window),
            besides=parameters['notification_uuid'])
        return {uuid: 'evacuated %d time(s) in the last %d s (the limit '
                      'is %d): left on %s for an operator to look at'
                      % (count, window, limit, parameters['failed_host'])
                for uuid, count in sorted(counts.items())
                if count >= limit}

    @staticmethod
    def _providers(cluster, hosts):
        """{host: its resource provider in Placement}, for the claim to
        read what the servers and the reserved hosts have there then.
        A compute node's provider has the node's uuid."""
        return {host: cluster.node(host).uuid for host in hosts
                if cluster.node(host).uuid}

    @staticmethod
    def _reserved_capacity(cluster, segment_uuid, failed, notification):
        """What each reserved host of the segment (and each host an
        earlier attempt of this recovery claimed) can hold now, as the
        model knows it: its capacity less what it hosts."""
        hosts = failover_segments.list_hosts(
            watcher_context.admin_context(), segment_uuid, query.Paging(),
            {})
        capacity = {}
        for host in hosts:
            node = cluster.node(host['name'])
            if node is None or host['name'] == failed or not (
                    host['reserved'] or host['claimed_by'] == notification):
                continue
            capacity[host['name']] = {
                r: node.capacity(r) - cluster.used(host['name'], r)
                for r in packing.RESOURCES}
        return capacity
