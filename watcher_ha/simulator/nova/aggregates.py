"""Host aggregates as Nova's os-aggregates API keeps them, and adding a
host to one or taking it out.

Each host names the aggregates it is in (``Host.aggregates``, as a
scenario gives them); the cloud keeps each aggregate's id, uuid and
availability zone (``Cloud.aggregates``), registered as the hosts that
name it are added: its zone is its members' zone when they share one
other than Nova's default.

Nova's rules: a host joins an aggregate once (409), never two aggregates
that set different zones (409), and takes the zone of an aggregate that
sets one; a host that leaves the aggregate its zone came from falls back
to another of its aggregates' zone, or to Nova's default zone. Each
change is told as ``aggregate.add_host`` / ``aggregate.remove_host``
(``.start`` and ``.end``, AggregatePayload) by nova-api.
"""

import dataclasses
import datetime
import uuid as uuidlib

from watcher_ha.simulator.nova import model

# Nova's [DEFAULT] default_availability_zone.
DEFAULT_ZONE = 'nova'


@dataclasses.dataclass
class Aggregate:
    id: int
    name: str
    uuid: str
    availability_zone: str | None
    created_at: datetime.datetime


def register(cloud, host):
    """Make known the aggregates ``host`` names (it joins the cloud)."""
    # A host of Nova's default zone is in no aggregate that sets one.
    zone = (host.availability_zone
            if host.availability_zone != DEFAULT_ZONE else None)
    for name in host.aggregates:
        found = cloud.aggregates.get(name)
        if found is None:
            cloud.aggregates[name] = Aggregate(
                id=len(cloud.aggregates) + 1, name=name,
                uuid=str(uuidlib.uuid5(uuidlib.NAMESPACE_DNS, name)),
                availability_zone=zone, created_at=host.created_at)
        elif found.availability_zone != zone:
            found.availability_zone = None


def members(cloud, aggregate):
    return sorted(h.name for h in cloud.hosts.values()
                  if aggregate.name in h.aggregates)


def view(cloud, aggregate):
    """The aggregate as Nova's API shows it (2.41+)."""
    zone = aggregate.availability_zone
    return {'id': aggregate.id, 'uuid': aggregate.uuid,
            'name': aggregate.name, 'availability_zone': zone,
            'hosts': members(cloud, aggregate),
            'metadata': {'availability_zone': zone} if zone else {},
            'created_at': aggregate.created_at.strftime(
                '%Y-%m-%dT%H:%M:%S.%f'),
            'updated_at': None, 'deleted_at': None, 'deleted': False}


def find(cloud, aggregate_id):
    for aggregate in cloud.aggregates.values():
        if str(aggregate.id) == str(aggregate_id):
            return aggregate
    raise model.Refused(404, 'Aggregate %s could not be found.'
                    % aggregate_id)


def _host(cloud, name):
    host = cloud.hosts.get(name)
    if host is None:
        raise model.Refused(404, 'Compute host %s could not be found.'
                        % name)
    return host


def add_host(cloud, aggregate_id, host_name):
    """Put ``host_name`` in the aggregate; its view."""
    with cloud.lock:
        aggregate = find(cloud, aggregate_id)
        host = _host(cloud, host_name)
        if aggregate.name in host.aggregates:
            raise model.Refused(409, 'Aggregate %s already has host %s.'
                            % (aggregate.id, host.name))
        zone = aggregate.availability_zone
        others = {cloud.aggregates[name].availability_zone
                  for name in host.aggregates} - {None, zone}
        if zone and others:
            raise model.Refused(
                409, 'Cannot add host to aggregate %s. Reason: One or '
                     'more hosts already in availability zone(s) %s.'
                     % (aggregate.id, sorted(others)))
        _emit(cloud, 'aggregate.add_host.start', aggregate)
        host.aggregates = list(host.aggregates) + [aggregate.name]
        if zone:
            host.availability_zone = zone
        _emit(cloud, 'aggregate.add_host.end', aggregate)
        return view(cloud, aggregate)


def remove_host(cloud, aggregate_id, host_name):
    """Take ``host_name`` out of the aggregate; its view."""
    with cloud.lock:
        aggregate = find(cloud, aggregate_id)
        host = _host(cloud, host_name)
        if aggregate.name not in host.aggregates:
            raise model.Refused(404, 'Aggregate %s has no host %s.'
                            % (aggregate.id, host.name))
        _emit(cloud, 'aggregate.remove_host.start', aggregate)
        host.aggregates = [name for name in host.aggregates
                           if name != aggregate.name]
        if aggregate.availability_zone:
            zones = [cloud.aggregates[name].availability_zone
                     for name in host.aggregates
                     if cloud.aggregates[name].availability_zone]
            host.availability_zone = zones[0] if zones else DEFAULT_ZONE
        _emit(cloud, 'aggregate.remove_host.end', aggregate)
        return view(cloud, aggregate)


def _emit(cloud, event_type, aggregate):
    cloud._emit(event_type, publisher='api',
                aggregate=view(cloud, aggregate))
