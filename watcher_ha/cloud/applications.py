"""An active/standby application as Nova shows it now: its server group,
its members with their roles and health (common/app_failover/members.py),
the data volumes Nova maps to a member, and the proof that a failed
member is fenced before anything takes its volumes.

Read by the decision engine (the active_standby strategy) and by the
applier's failover actions, which ask again, just before they act, what
the engine saw when it planned.
"""

from novaclient import exceptions as nova_exc

from watcher_ha.cloud import compute_services
from watcher_ha.cloud import ironic
from watcher_ha.common.app_failover import members as members_mod

# A server's host, as Nova's admin view names it.
HOST_FIELD = 'OS-EXT-SRV-ATTR:host'
TASK_FIELD = 'OS-EXT-STS:task_state'
POWER_OFF = 'power off'


class ReadError(Exception):
    """Nova could not show what the application is made of."""


def group(nova, group_id):
    """The server group (novaclient's), or ReadError."""
    try:
        return nova.server_groups.get(group_id)
    except nova_exc.NotFound:
        raise ReadError('Nova has no server group %s: give the id of the '
                        'application\'s server group (openstack server '
                        'group list)' % group_id)


def down_hosts(nova):
    """{host: True if Nova counts its nova-compute down}."""
    return {service.host: (service.state == 'down'
                           or bool(getattr(service, 'forced_down', False)))
            for service in nova.services.list(binary='nova-compute')}


def host_down(nova, host):
    """Whether Nova counts the nova-compute of ``host`` down (or has
    none): one service read, where down_hosts reads them all."""
    try:
        service = compute_services.find(nova, host)
    except compute_services.ServiceError:
        return True
    return service.state == 'down' or bool(
        getattr(service, 'forced_down', False))


def member(nova, uuid, role_key, down):
    """The Member ``uuid`` of the group, as Nova shows it now."""
    try:
        server = nova.servers.get(uuid)
    except nova_exc.NotFound:
        return members_mod.Member(uuid=uuid, name='', role=None,
                                  status=members_mod.GONE, host=None,
                                  host_down=False)
    host = getattr(server, HOST_FIELD, None)
    metadata = server.metadata or {}
    return members_mod.Member(
        uuid=server.id, name=server.name, role=metadata.get(role_key),
        status=server.status, host=host,
        host_down=bool(host and down.get(host, False)),
        task_state=getattr(server, TASK_FIELD, None),
        activated_at=members_mod.activated_at(metadata))


def members(nova, group_id, role_key=members_mod.DEFAULT_ROLE_KEY,
            also_down=()):
    """(the server group, [Member]) of the application; the hosts of
    ``also_down`` count as down whatever Nova shows."""
    found = group(nova, group_id)
    down = down_hosts(nova)
    down.update({host: True for host in also_down})
    return found, [member(nova, uuid, role_key, down)
                   for uuid in found.members]


def data_volumes(nova, server_uuid):
    """[(volume id, delete_on_termination)] of the volumes Nova maps to
    the server, its boot volume left out (Nova's own records: its host
    need not answer)."""
    server = nova.servers.get(server_uuid)
    boot = set()
    if not getattr(server, 'image', None):
        # Booted from a volume: its first mapping is the root.
        attached = getattr(server, 'os-extended-volumes:volumes_attached',
                           [])
        boot = {attached[0]['id']} if attached else set()
    return [(a.volumeId, bool(getattr(a, 'delete_on_termination', False)))
            for a in nova.volumes.get_server_volumes(server_uuid)
            if a.volumeId not in boot]


def networks(nova, server_uuid):
    """The ids of the networks the server has ports on, in its ports'
    order, each once (Nova reads them from Neutron: its host need not
    answer)."""
    return list(dict.fromkeys(
        interface.net_id
        for interface in nova.servers.interface_list(server_uuid)))


def fencing_evidence(nova, ironic_api, server_uuid, node=None):
    """(True, how) when the server cannot run any more without somebody
    starting it again; (False, why) otherwise. The evidence (instance
    HA's, for a host): Nova shows the server stopped while its host's
    compute reports (so the compute stopped it and would say if it ran),
    or the host's compute is forced down in Nova and Ironic reports its
    node (``node``, by default named as the host) powered off with no
    power action under way. A server Nova has deleted is fenced only by
    the second: a local delete leaves a guest on a partitioned host
    running."""
    try:
        server = nova.servers.get(server_uuid)
    except nova_exc.NotFound:
        server = None
    if server is not None and not hasattr(server, HOST_FIELD):
        return False, ('Nova does not show the hosts of servers to these '
                       'credentials: give [nova] an admin user')
    host = getattr(server, HOST_FIELD, None) if server is not None else None
    if server is not None and host is None:
        if server.status == 'SHELVED_OFFLOADED':
            return True, 'server %s is shelved offloaded' % server_uuid
        return False, ('server %s has no host (%s): it cannot be proven '
                       'fenced' % (server_uuid, server.status))
    if (server is not None and server.status == 'SHUTOFF'
            and getattr(server, TASK_FIELD, None) is None
            and not host_down(nova, host)):
        return True, ('Nova shows server %s stopped on %s, whose compute '
                      'reports' % (server_uuid, host))
    if host is None:
        return False, ('server %s is gone from Nova: its host is unknown, '
                       'so it cannot be proven fenced' % server_uuid)
    return host_fenced(nova, ironic_api, host, node)


def host_fenced(nova, ironic_api, host, node=None):
    """(True, how) when ``host`` is forced down in Nova and its node
    powered off in Ironic; (False, why) otherwise."""
    try:
        service = compute_services.find(nova, host)
    except compute_services.ServiceError as err:
        return False, str(err)
    if not getattr(service, 'forced_down', False):
        return False, ('the compute service of %s is not forced down in '
                       'Nova' % host)
    if ironic_api is None:
        return False, ('%s is forced down but its power cannot be read: '
                       'configure [ironic]' % host)
    node = node or host
    response = ironic_api.get('/v1/nodes/%s' % node, raise_exc=False,
                              params={'fields': 'power_state,'
                                                'target_power_state'})
    if response.status_code != 200:
        return False, ('Ironic could not show node %s of %s: %s'
                       % (node, host, ironic.said(response)))
    shown = response.json()
    if shown.get('power_state') != POWER_OFF or shown.get(
            'target_power_state') is not None:
        return False, ('node %s of %s is %s (target %s), not powered off'
                       % (node, host, shown.get('power_state'),
                          shown.get('target_power_state')))
    return True, '%s is forced down in Nova and powered off' % host
