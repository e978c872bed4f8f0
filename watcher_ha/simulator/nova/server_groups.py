"""Nova's server groups in the simulated cloud: a policy (affinity,
anti-affinity, and their soft variants) over its member servers, which
the scheduler keeps. A hard policy narrows where a member may be placed
or moved (Nova's ServerGroupAffinityFilter and
ServerGroupAntiAffinityFilter, with anti-affinity's max_server_per_host
rule from compute 2.64); the soft ones only weigh hosts in Nova, which
the simulator's scheduler does not do: they never refuse a host.
"""

import dataclasses
import uuid as uuidlib

from watcher_ha.simulator.nova import model

POLICIES = ('affinity', 'anti-affinity', 'soft-affinity',
            'soft-anti-affinity')


@dataclasses.dataclass
class ServerGroup:
    id: str
    name: str
    policy: str
    rules: dict
    project_id: str = 'admin-project'
    user_id: str = 'admin-user'
    members: list = dataclasses.field(default_factory=list)


def create(cloud, name, policy, rules=None, project_id='admin-project'):
    with cloud.lock:
        group = ServerGroup(id=str(uuidlib.uuid4()), name=name,
                            policy=policy, rules=dict(rules or {}),
                            project_id=project_id)
        cloud.server_groups[group.id] = group
        return group


def get(cloud, ident):
    found = cloud.server_groups.get(ident)
    if found is None:
        raise model.Refused(404, 'Instance group %s could not be '
                                 'found.' % ident)
    return found


def delete(cloud, ident):
    with cloud.lock:
        get(cloud, ident)
        del cloud.server_groups[ident]


def of(cloud, server_uuid):
    """The group ``server_uuid`` belongs to, or None."""
    for group in cloud.server_groups.values():
        if server_uuid in group.members:
            return group
    return None


def allows(cloud, group, host, moving=None):
    """Whether a member of ``group`` (``moving``, a member's uuid, or a
    new one when None) may be on ``host`` by the group's policy."""
    if group is None:
        return True
    others = [cloud.servers[uuid].host for uuid in group.members
              if uuid != moving and uuid in cloud.servers
              and cloud.servers[uuid].host]
    if group.policy == 'affinity':
        return all(where == host for where in others)
    if group.policy == 'anti-affinity':
        limit = int(group.rules.get('max_server_per_host', 1))
        return others.count(host) < limit
    return True


def forget(cloud, server_uuid):
    """A deleted server leaves its group."""
    for group in cloud.server_groups.values():
        if server_uuid in group.members:
            group.members.remove(server_uuid)
