"""Putting a recovery's reserved hosts in the failed host's aggregates,
and taking back out those that go back to the pool
(``[instance_ha] add_reserved_host_to_aggregate``).

A host aggregate can carry an availability zone, and Nova's scheduler
keeps a server in the zone it was booted in: a reserved host outside the
failed host's aggregates may be no place for its servers. Each join is
recorded on the host's row before Nova is asked (db/reserved_hosts.py),
so that a host given back leaves exactly what the recovery made it join
and nothing it was in before; an owner that dies between the two leaves
a record of a join that may not have happened, and leaving an aggregate
the host is not in is no error. Both steps are safe to run again.
"""

from novaclient import exceptions as nova_exc

from watcher_ha.db import reserved_hosts


class AggregateError(Exception):
    """Nova refused to put a host in an aggregate."""


def join(context, nova, notification_uuid, failed, hosts):
    """Put each of ``hosts`` (held by the recovery of
    ``notification_uuid``) in every aggregate of ``failed`` it is not
    in. ``nova``'s writes pass the caller's fence."""
    for aggregate in nova.aggregates.list():
        if failed not in aggregate.hosts:
            continue
        for host in hosts:
            if host in aggregate.hosts:
                continue
            if not reserved_hosts.note_joined(
                    context, notification_uuid, host, aggregate.id):
                continue
            try:
                nova.aggregates.add_host(aggregate.id, host)
            except nova_exc.Conflict as err:
                if _member(nova, aggregate.id, host):
                    # Joined since the list was read (a run before).
                    continue
                raise AggregateError(
                    'Nova refused to put reserved host %s in aggregate %s '
                    'of failed host %s: %s' % (host, aggregate.name, failed,
                                               err))


def leave(context, nova, notification_uuid, hosts):
    """Take each of ``hosts`` (held by the recovery of
    ``notification_uuid``) out of the aggregates the recovery put it
    in. ``nova``'s writes pass the caller's fence."""
    joined = reserved_hosts.joined(context, notification_uuid)
    for host in hosts:
        for aggregate_id in joined.get(host, ()):
            try:
                nova.aggregates.remove_host(aggregate_id, host)
            except nova_exc.NotFound:
                # Not in it (the join never happened), or it is gone.
                pass


def _member(nova, aggregate_id, host):
    try:
        return host in nova.aggregates.get(aggregate_id).hosts
    except nova_exc.NotFound:
        return False
