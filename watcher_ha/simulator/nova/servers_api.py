"""The Compute API's servers: list (Nova's filters and paging), show,
create, delete, and their actions (migrate, resize, evacuate, power,
pause, suspend, reset state, shelve, lock)."""

import hashlib
import secrets
import uuid as uuidlib

from watcher_ha.simulator import web
from watcher_ha.simulator.nova import api_base
from watcher_ha.simulator.nova import instance_actions
from watcher_ha.simulator.nova.api_base import api_time
from watcher_ha.simulator.nova import evacuation

# Nova's server list filters: query parameter, test of a server.
SERVER_FILTERS = {
    'host': lambda server, value: server.host == value,
    'node': lambda server, value: server.host == value,
    'name': lambda server, value: value in server.name,
    'status': lambda server, value: server.status == value.upper(),
    'project_id': lambda server, value: server.tenant_id == value,
}
POWER_STATE_CODES = {'active': 1, 'stopped': 4, 'paused': 3,
                     'suspended': 7}

def _root_volume(spec):
    """The volume a server to create boots from, by its block device
    mapping (boot index 0 on a volume): an existing volume's id, or a new
    one for an image or a blank copied into a volume; None when it boots
    from its image."""
    for mapping in spec.get('block_device_mapping_v2') or ():
        if (isinstance(mapping, dict)
                and str(mapping.get('boot_index')) == '0'
                and mapping.get('destination_type') == 'volume'):
            if mapping.get('source_type') == 'volume':
                return mapping.get('uuid') or str(uuidlib.uuid4())
            return str(uuidlib.uuid4())
    return None



class ServersAPI(api_base.ComputeService):

    def _server_view(self, req, server, version, detail):
        href = self._url(req, 'servers', server.uuid)
        links = [{'rel': 'self', 'href': href},
                 {'rel': 'bookmark', 'href': href}]
        if not detail:
            return {'id': server.uuid, 'name': server.name, 'links': links}
        flavor = server.flavor
        view = {
            'id': server.uuid, 'name': server.name, 'status': server.status,
            'tenant_id': server.tenant_id, 'user_id': server.user_id,
            'metadata': dict(server.metadata),
            'hostId': hashlib.sha224((server.tenant_id + (server.host or ''))
                                     .encode()).hexdigest()
            if server.host else '',
            # Nova shows no image for a server booted from a volume.
            'image': ('' if server.root_volume else
                      {'id': server.image_uuid, 'links': []}),
            'flavor': {'vcpus': flavor.vcpus, 'ram': flavor.ram,
                       'disk': flavor.disk, 'ephemeral': flavor.ephemeral,
                       'swap': flavor.swap, 'original_name': flavor.name,
                       'extra_specs': dict(flavor.extra_specs)},
            'created': api_time(server.created_at),
            'updated': api_time(server.updated_at or server.created_at),
            'addresses': self.cloud.networks.addresses(server),
            'accessIPv4': '', 'accessIPv6': '',
            'links': links, 'OS-DCF:diskConfig': 'MANUAL', 'progress': 0,
            'OS-EXT-AZ:availability_zone': server.availability_zone or '',
            'config_drive': '', 'key_name': server.key_name,
            'OS-SRV-USG:launched_at': api_time(server.launched_at),
            'OS-SRV-USG:terminated_at': None,
            'OS-EXT-SRV-ATTR:host': server.host,
            'OS-EXT-SRV-ATTR:instance_name': 'instance-%s'
                                             % server.uuid[:8],
            'OS-EXT-SRV-ATTR:hypervisor_hostname': server.host,
            'OS-EXT-STS:task_state': server.task_state,
            'OS-EXT-STS:vm_state': server.vm_state,
            'OS-EXT-STS:power_state': server.power_state,
            'os-extended-volumes:volumes_attached': ([
                {'id': server.root_volume, 'delete_on_termination': False}
            ] if server.root_volume else []) + [
                {'id': m.volume_id,
                 'delete_on_termination': m.delete_on_termination}
                for m in server.volumes.values()],
            'security_groups': [{'name': 'default'}],
            'locked': server.locked,
        }
        if server.vm_state == 'error' and server.fault:
            view['fault'] = dict(server.fault,
                                 created=api_time(server.fault['created']))
        if version >= (2, 73):
            view['locked_reason'] = server.locked_reason
        if version >= (2, 96):
            view['pinned_availability_zone'] = \
                server.pinned_availability_zone
        return view

    def _servers_page(self, req):
        """A page of the servers the query's filters select, newest first
        (Nova's default sort), from just after the marker; like Nova, a
        marker may name a deleted server. Each page costs what it holds,
        not what the cloud holds: a full listing pages through 50,000
        servers."""
        limit = self._limit(req)
        params = req.GET
        tests = [(test, params[name])
                 for name, test in SERVER_FILTERS.items() if name in params]
        order, servers = self.cloud.order, self.cloud.servers
        marker = params.get('marker')
        end = len(order)
        if marker is not None:
            try:
                end = order.index(marker)
            except ValueError:
                raise web.Reply(400, 'marker [%s] not found' % marker)
        page = []
        for position in range(end - 1, -1, -1):
            if len(page) == limit:
                break
            server = servers.get(order[position])
            if server is not None and all(test(server, value)
                                          for test, value in tests):
                page.append(server)
        return page, self._next_links(req, 'servers', limit, page)
    def list_servers(self, req, version, detail=False):
        servers, links = self._servers_page(req)
        body = {'servers': [self._server_view(req, s, version, detail)
                            for s in servers]}
        if links:
            body['servers_links'] = links
        return 200, body

    def list_servers_detail(self, req, version):
        return self.list_servers(req, version, detail=True)

    def show_server(self, req, version, uuid):
        return 200, {'server': self._server_view(
            req, self.cloud.server(uuid), version, True)}

    def create_server(self, req, version):
        spec = web.body_of(req).get('server')
        if not isinstance(spec, dict) or 'name' not in spec \
                or 'flavorRef' not in spec:
            raise web.Reply(400, "Invalid input for field/attribute server. "
                                 "'name' and 'flavorRef' are required.")
        zone, host = spec.get('availability_zone'), None
        if zone and ':' in zone:
            zone, host = zone.split(':', 1)
        hints = web.body_of(req).get('os:scheduler_hints') or {}
        group = hints.get('group') if isinstance(hints, dict) else None
        if group is not None and group not in self.cloud.server_groups:
            raise web.Reply(400, 'Invalid input for field/attribute group. '
                                 'Value: %s. Instance group %s could not be '
                                 'found.' % (group, group))
        server = self.cloud.create_server(
            spec['name'], spec['flavorRef'], zone=zone or None,
            metadata=spec.get('metadata'), key_name=spec.get('key_name'),
            host=spec.get('host') or host,
            root_volume=_root_volume(spec), group=group,
            networks=spec.get('networks'),
            image=spec.get('imageRef') or None)
        return 202, {'server': {
            'id': server.uuid, 'links': [], 'OS-DCF:diskConfig': 'MANUAL',
            'security_groups': [{'name': 'default'}],
            'adminPass': 'simulated'}}

    def server_interfaces(self, req, version, uuid):
        return 200, {'interfaceAttachments': self.cloud.networks.interfaces(
            self.cloud.server(uuid), version)}

    def delete_server(self, req, version, uuid):
        self.cloud.delete_server(uuid)
        return 204, None

    def server_instance_actions(self, req, version, uuid):
        """Nova's os-instance-actions list: newest first, ``updated_at``
        from 2.58."""
        found = []
        for action in reversed(self.cloud.server(uuid).actions):
            item = dict(action, start_time=api_time(action['start_time']),
                        updated_at=api_time(action['updated_at']))
            if version < (2, 58):
                del item['updated_at']
            found.append(item)
        return 200, {'instanceActions': found}

    def server_action(self, req, version, uuid):
        body = web.body_of(req)
        if len(body) != 1:
            raise web.Reply(400, 'There is either no action or more than '
                                 'one action in the request body.')
        [(action, args)] = body.items()
        args = args if isinstance(args, dict) else {}
        answer = self._act(version, uuid, action, args)
        if action in instance_actions.RECORDED:
            # Recorded by nova-api as it accepts the action.
            instance_actions.record(self.cloud.server(uuid),
                                    instance_actions.RECORDED[action],
                                    self.cloud.clock.now())
        return answer

    def _act(self, version, uuid, action, args):
        cloud = self.cloud
        if action == 'os-migrateLive':
            if 'host' not in args or 'block_migration' not in args:
                raise web.Reply(400, "Invalid input for field/attribute "
                                     "os-migrateLive: 'host' and "
                                     "'block_migration' are required.")
            cloud.live_migrate(uuid, args.get('host'),
                               args.get('block_migration'),
                               async_=version >= (2, 34))
        elif action == 'migrate':
            cloud.cold_migrate(uuid, host=args.get('host'))
        elif action == 'resize':
            if 'flavorRef' not in args:
                raise web.Reply(400, "Invalid input for field/attribute "
                                     "resize: 'flavorRef' is required.")
            cloud.cold_migrate(uuid, flavor=args['flavorRef'])
        elif action == 'confirmResize':
            cloud.confirm_resize(uuid)
            return 204, None
        elif action == 'revertResize':
            cloud.revert_resize(uuid)
        elif action == 'evacuate':
            return 200, self._evacuate(version, uuid, args)
        elif action == 'reboot':
            kind = args.get('type')
            if not isinstance(kind, str) or kind.upper() not in ('SOFT',
                                                                 'HARD'):
                raise web.Reply(400, "Invalid input for field/attribute "
                                     "type. Value: %s. %r does not match "
                                     "'^(SOFT|HARD|Soft|Hard|soft|hard)$'"
                                % (kind, kind))
            cloud.reboot(uuid, hard=kind.upper() == 'HARD')
        elif action in ('os-stop', 'os-start'):
            cloud.power(uuid, on=action == 'os-start')
        elif action in ('pause', 'unpause'):
            cloud.pause(uuid, action == 'pause')
        elif action in ('suspend', 'resume'):
            cloud.suspend(uuid, action == 'suspend')
        elif action == 'os-resetState':
            if args.get('state') not in ('active', 'error') or set(
                    args) != {'state'}:
                raise web.Reply(400, "Invalid input for field/attribute "
                                     "state. Value: %s. %r is not one of "
                                     "['active', 'error']" % (
                                         args.get('state'),
                                         args.get('state')))
            cloud.reset_state(uuid, args['state'])
        elif action == 'shelve':
            cloud.shelve(uuid)
        elif action == 'unshelve':
            cloud.unshelve(uuid)
        elif action in ('lock', 'unlock'):
            cloud.lock_server(uuid, action == 'lock',
                              args.get('locked_reason'))
        else:
            raise web.Reply(400, 'There is no such action: %s' % action)
        return 202, None

    def _evacuate(self, version, uuid, args):
        """Nova's evacuate body by microversion: ``onSharedStorage``
        required before 2.14 (which answers an adminPass), ``force`` from
        2.29 to 2.67; a host given before 2.29 bypasses the scheduler;
        from 2.95 the server ends stopped."""
        allowed = {'host', 'adminPass'}
        if version < (2, 14):
            allowed.add('onSharedStorage')
        elif (2, 29) <= version < (2, 68):
            allowed.add('force')
        web.refuse_unexpected(args, allowed, 'evacuate')
        if version < (2, 14) and 'onSharedStorage' not in args:
            raise web.Reply(400, "Invalid input for field/attribute "
                                 "evacuate. 'onSharedStorage' is a required "
                                 "property")
        shared = self._boolean('onSharedStorage',
                               args.get('onSharedStorage', False))
        force = self._boolean('force', args.get('force', False))
        host = args.get('host')
        if force and not host:
            raise web.Reply(400, "Can't force to a non-provided destination")
        if version < (2, 14) and shared and 'adminPass' in args:
            raise web.Reply(400, "admin password can't be changed on "
                                 "existing disk")
        evacuation.evacuate(self.cloud, uuid, host=host,
                            force=bool(host) and (version < (2, 29)
                                                  or force),
                            stop=version >= (2, 95))
        if version >= (2, 14):
            return None
        return {'adminPass': args.get('adminPass') or (
            None if shared else secrets.token_urlsafe(9))}
