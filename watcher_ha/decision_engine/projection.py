"""The cloud as an audit pipeline's stages leave it (watcher-specs
audit-pipeline.rst, "Mutable Cluster Data Model" and "Metric Data
Cache").

A ``Projection`` starts from a snapshot of the compute model (a
ClusterState: taken in O(1), never changed) and, after each stage,
makes the next state from that stage's solution through the state's own
``Changes`` overlay: a new ClusterState sharing every part the solution
did not touch. Each stage's strategy reads the state the stages before
it left, as if it were the cloud: strategies do not know they run in a
pipeline. Nothing is stored; the projection lives as long as one
planning of one pipeline.

What the actions do to the model:

=========================== ===============================================
``migrate``                 the server is on its ``destination_node``
``change_nova_service_state`` the node is ``enabled`` or ``disabled`` (with
                            its reason)
``change_node_power_state`` the node is up (``on``) or down (``off``)
``stop``                    the server is ``stopped``
anything else               nothing: it is carried as it is (not simulated)
=========================== ===============================================

Constraints: a node a stage disabled or powered off is *removed*: the
later stages' strategies see it protected (they send it nothing and act
on it no more), and the pipeline planner keeps no later move to it, nor
a move back to it (decision_engine/planner/pipeline.py). Removals only
grow.

Metrics: ``ProjectedMetrics`` is one AuditMetrics for the whole
pipeline (every stage reads a metric once, the datasource is asked once
per resource), which answers ``host_cpu_usage`` as the moves so far
leave it: a server's ``instance_cpu_usage`` (percent of its vcpus)
leaves its old host's figure and joins its new one's, in proportion to
the hosts' vcpus; a stopped server's leaves its host. Server metrics
follow their server; other host metrics are read as measured.
"""

import dataclasses

from watcher_ha.decision_engine.datasources import metrics as audit_metrics

MIGRATE = 'migrate'
SERVICE_STATE = 'change_nova_service_state'
POWER_STATE = 'change_node_power_state'
STOP = 'stop'
SIMULATED = (MIGRATE, SERVICE_STATE, POWER_STATE, STOP)


class Projection:
    """The projected compute model, stage after stage."""

    def __init__(self, state):
        self.state = state
        # [frozenset of the hosts removed by the stages before position p]
        self._removed = [frozenset()]
        # uuid -> (Instance as first seen, its host now), for the servers
        # a stage moved or stopped.
        self.changed = {}
        self.unsimulated = []

    def excluded_before(self, position):
        """The hosts the stages before ``position`` (from 0) removed."""
        return self._removed[min(position, len(self._removed) - 1)]

    @property
    def excluded(self):
        return self._removed[-1]

    def apply(self, actions):
        """The next state: ``actions`` (a stage's ProposedActions, in
        order) made on the current one."""
        changes = self.state.changes()
        removed = set(self.excluded)
        for action in actions:
            parameters = action.input_parameters
            kind = action.action_type
            if kind == MIGRATE:
                self._server(changes, parameters, host=parameters.get(
                    'destination_node'))
            elif kind == STOP:
                self._server(changes, parameters, state='stopped')
            elif kind in (SERVICE_STATE, POWER_STATE):
                self._node(changes, kind, parameters, removed)
            else:
                self.unsimulated.append(kind)
        self.state = changes.state()
        self._removed.append(frozenset(removed))
        return self.state

    def _server(self, changes, parameters, **new):
        server = changes.instance(parameters.get('resource_id'))
        if server is None:
            return
        first = self.changed.get(server.uuid, (server, None))[0]
        server = dataclasses.replace(server, **new)
        changes.put_instance(server)
        self.changed[server.uuid] = (first, server)

    @staticmethod
    def _node(changes, kind, parameters, removed):
        name = parameters.get('resource_name') or parameters.get(
            'resource_id')
        node = changes.node(name)
        if node is None:
            return
        state = parameters.get('state')
        if kind == SERVICE_STATE:
            node = dataclasses.replace(
                node, status=state,
                disabled_reason=parameters.get('disabled_reason'))
            off = state == 'disabled'
        else:
            node = dataclasses.replace(node, state='up' if state == 'on'
                                       else 'down')
            off = state == 'off'
        changes.put_node(node)
        if off:
            removed.add(node.hostname)


class ProjectedMetrics(audit_metrics.AuditMetrics):
    """The metrics of one pipeline: read once, ``host_cpu_usage`` as the
    projection's changes so far leave it."""

    def __init__(self, datasources, projection):
        super().__init__(datasources)
        self.projection = projection

    def hosts(self, metric, nodes, period=audit_metrics.DEFAULT_PERIOD,
              aggregate='mean', granularity=audit_metrics.DEFAULT_GRANULARITY):
        measured = super().hosts(metric, nodes, period, aggregate,
                                 granularity)
        changed = self.projection.changed
        if metric != 'host_cpu_usage' or not changed:
            return measured
        servers = [first for first, _ in changed.values()]
        usage = self.instances('instance_cpu_usage', servers, period,
                               aggregate, granularity)
        vcpus = {name: node.vcpus for name, node
                 in self.projection.state.nodes.items()}
        projected = dict(measured)
        for uuid, (first, now) in changed.items():
            if uuid not in usage:
                continue
            cores = usage[uuid] * first.vcpus / 100.0
            _shift(projected, vcpus, first.host, -cores)
            if now.state != 'stopped':
                _shift(projected, vcpus, now.host, cores)
        return projected


def _shift(values, vcpus, host, cores):
    if host in values and vcpus.get(host):
        values[host] = max(0.0, values[host] + 100.0 * cores / vcpus[host])
