"""The Bare Metal API v1 (Ironic) subset that fencing uses: the nodes
(list, detail, show, states) and their power, with Ironic's JSON shapes,
status codes, microversion headers and error bodies."""

import json
import uuid as uuidlib


from watcher_ha.simulator import web
from watcher_ha.simulator.ironic import baremetal

HEADER = 'X-OpenStack-Ironic-API-Version'
MIN_VERSION, MAX_VERSION = '1.1', '1.96'
# Ironic's [api] max_limit.
MAX_LIMIT = 1000
# What a node list holds without ``fields`` or ``detail``.
DEFAULT_FIELDS = ('instance_uuid', 'maintenance', 'power_state',
                  'provision_state', 'uuid', 'name')
# The node fields served (the links aside).
NODE_FIELDS = ('uuid', 'name', 'instance_uuid', 'power_state',
               'target_power_state', 'provision_state',
               'target_provision_state', 'maintenance', 'maintenance_reason',
               'fault', 'last_error', 'reservation', 'console_enabled',
               'driver', 'driver_info', 'properties', 'instance_info',
               'extra', 'resource_class', 'conductor_group', 'conductor',
               'power_interface', 'management_interface', 'owner', 'lessee',
               'description', 'retired', 'retired_reason',
               'disable_power_off', 'created_at', 'updated_at',
               'provision_updated_at')
# Node fields newer than 1.1: the minor version each appeared in.
FIELDS_SINCE = {'name': 5, 'resource_class': 21, 'power_interface': 31,
                'management_interface': 31, 'fault': 42,
                'conductor_group': 46, 'conductor': 49, 'owner': 50,
                'description': 51, 'retired': 61, 'retired_reason': 61,
                'lessee': 65, 'disable_power_off': 95}
TRUE = ('1', 't', 'true', 'on', 'y', 'yes')


def _time(value):
    if value is None:
        return None
    return value.isoformat() + '+00:00'


class IronicVersions(web.Versions):
    """Ironic's negotiation: its own header (or the standard one), 406
    for any version it cannot serve, and the range in every answer."""

    def __init__(self):
        super().__init__('baremetal', MIN_VERSION, MAX_VERSION,
                         legacy_header=HEADER)

    def invalid(self, asked):
        return web.Reply(406, 'Invalid value for %s header' % HEADER)

    def unsupported(self, asked, version):
        if version.major != 1:
            return web.Reply(406, 'Mutually exclusive versions requested. '
                                  'Version %s requested but not supported '
                                  'by this service. The supported version '
                                  'range is: [%s, %s].'
                             % (asked, MIN_VERSION, MAX_VERSION))
        return web.Reply(406, 'Version %s was requested but the minor '
                              'version is not supported by this service. '
                              'The supported version range is: [%s, %s].'
                         % (asked, MIN_VERSION, MAX_VERSION))

    def headers(self, version):
        return {HEADER: '%d.%d' % (version.major, version.minor),
                HEADER.replace('-Version', '-Minimum-Version'): MIN_VERSION,
                HEADER.replace('-Version', '-Maximum-Version'): MAX_VERSION}


class BaremetalAPI(web.Service):
    prefix = '/baremetal'
    microversions = IronicVersions()
    routes = web.route_table('''
        GET  /                               root
        GET  /v1/                            v1
        GET  /v1/nodes                       list_nodes
        GET  /v1/nodes/detail                list_nodes_detail
        GET  /v1/nodes/{ident}               show_node
        GET  /v1/nodes/{ident}/states        node_states
        PUT  /v1/nodes/{ident}/states/power  set_power
    ''')

    def error(self, status, message):
        # Ironic's: a JSON document inside a JSON string.
        return web.json_response({'error_message': json.dumps({
            'faultcode': 'Client' if status < 500 else 'Server',
            'faultstring': message, 'debuginfo': None})}, status)

    @property
    def ironic(self):
        return self.sim.ironic

    def _url(self, req, *parts):
        return '/'.join([req.host_url + self.prefix] + list(parts))

    def _links(self, req, *parts):
        return [{'href': self._url(req, 'v1', *parts), 'rel': 'self'},
                {'href': self._url(req, *parts), 'rel': 'bookmark'}]

    def _version_view(self, req):
        return {'id': 'v1', 'status': 'CURRENT', 'min_version': MIN_VERSION,
                'version': MAX_VERSION,
                'links': [{'href': self._url(req, 'v1') + '/',
                           'rel': 'self'}]}

    def root(self, req, version):
        return 200, {'name': 'OpenStack Ironic API',
                     'description': 'Ironic is an OpenStack project which '
                                    'enables the provision and management '
                                    'of baremetal machines.',
                     'default_version': self._version_view(req),
                     'versions': [self._version_view(req)]}

    def v1(self, req, version):
        return 200, {'id': 'v1', 'links': [
            {'href': self._url(req, 'v1') + '/', 'rel': 'self'}],
            'media_types': {'base': 'application/json',
                            'type': 'application/vnd.openstack.ironic.v1'
                                    '+json'},
            'nodes': self._links(req, 'nodes', ''),
            'version': self._version_view(req)}

    # Nodes.

    def _node(self, ident, version):
        """By uuid, or by name from 1.5 (before, a name is not found)."""
        try:
            uuidlib.UUID(ident)
        except ValueError:
            if version.minor < 5:
                raise web.Reply(404, 'Node %s could not be found.' % ident)
        return self.ironic.node(ident)

    def _values(self, req, node):
        host = self.cloud.hosts[node.name]
        address = '10.0.%d.%d' % divmod(host.hypervisor_id, 256)
        return {
            'uuid': node.uuid, 'name': node.name, 'instance_uuid': None,
            'power_state': node.power_state,
            'target_power_state': node.target_power_state,
            'provision_state': 'active', 'target_provision_state': None,
            'maintenance': False, 'maintenance_reason': None, 'fault': None,
            'last_error': node.last_error, 'reservation': node.reservation,
            'console_enabled': False, 'driver': 'ipmi',
            'driver_info': {'ipmi_address': address,
                            'ipmi_username': 'admin',
                            'ipmi_password': '******'},
            'properties': {'cpus': host.vcpus, 'memory_mb': host.memory_mb,
                           'local_gb': host.disk_gb, 'cpu_arch': 'x86_64'},
            # What an operator sets for Watcher's saving_energy: the
            # compute node (hypervisor uuid) the node runs.
            'instance_info': {}, 'extra': {'compute_node_id': host.uuid},
            'resource_class': 'baremetal', 'conductor_group': '',
            'conductor': self.ironic.conductor,
            'power_interface': 'ipmitool',
            'management_interface': 'ipmitool', 'owner': None,
            'lessee': None, 'description': None, 'retired': False,
            'retired_reason': None, 'disable_power_off': False,
            'created_at': _time(node.created_at),
            'updated_at': _time(node.updated_at),
            'provision_updated_at': _time(node.created_at),
            'links': self._links(req, 'nodes', node.uuid)}

    @staticmethod
    def _too_new(version):
        """The fields ``version`` does not know."""
        return {name for name, since in FIELDS_SINCE.items()
                if version.minor < since}

    def _node_view(self, req, node, version, fields=None):
        values = self._values(req, node)
        hidden = self._too_new(version)
        if fields is None:
            view = {k: v for k, v in values.items() if k not in hidden}
            view['states'] = self._links(req, 'nodes', node.uuid, 'states')
            view['ports'] = self._links(req, 'nodes', node.uuid, 'ports')
            return view
        view = {k: values[k] for k in fields if k not in hidden}
        view['links'] = values['links']
        return view

    def _fields(self, req, version):
        """The ``fields`` asked: 406 before 1.8 or for a field newer than
        the version, 400 for one that does not exist."""
        asked = req.GET.get('fields')
        if asked is None:
            return None
        if version.minor < 8:
            raise web.Reply(406, 'Request not acceptable.')
        fields = [f for f in asked.split(',') if f]
        if set(fields) & self._too_new(version):
            raise web.Reply(406, 'Request not acceptable.')
        invalid = [f for f in fields if f not in NODE_FIELDS + ('links',)]
        if invalid:
            raise web.Reply(400, 'Field(s) "%s" are not valid'
                            % ', '.join(invalid))
        return [f for f in fields if f != 'links']

    def _page(self, req):
        try:
            limit = int(req.GET.get('limit', MAX_LIMIT))
        except ValueError:
            raise web.Reply(400, 'Expected an integer for limit: %s'
                            % req.GET['limit'])
        if limit <= 0:
            raise web.Reply(400, 'Limit must be positive')
        limit = min(limit, MAX_LIMIT)
        nodes = self.ironic.listed()
        marker = req.GET.get('marker')
        if marker is not None:
            after = [i for i, n in enumerate(nodes) if n.uuid == marker]
            if not after:
                raise web.Reply(404, 'Node %s could not be found.' % marker)
            nodes = nodes[after[0] + 1:]
        return nodes[:limit], limit

    def _list(self, req, version, collection, detail):
        fields = self._fields(req, version)
        if 'detail' in req.GET:
            if version.minor < 43:
                raise web.Reply(400, 'Invalid query parameter ?detail=%s '
                                     'received.' % req.GET['detail'])
            detail = req.GET['detail'].lower() in TRUE
            if detail and fields is not None:
                raise web.Reply(400, 'Can not specify ?detail=True and '
                                     'fields in the same request.')
        if not detail and fields is None:
            fields = DEFAULT_FIELDS
        page, limit = self._page(req)
        body = {'nodes': [self._node_view(req, n, version, fields)
                          for n in page]}
        if page and len(page) == limit:
            query = {k: v for k, v in req.GET.items() if k != 'marker'}
            query.update(limit=limit, marker=page[-1].uuid)
            body['next'] = '%s?%s' % (
                self._url(req, 'v1', collection),
                '&'.join('%s=%s' % item for item in sorted(query.items())))
        return 200, body

    def list_nodes(self, req, version):
        return self._list(req, version, 'nodes', detail=False)

    def list_nodes_detail(self, req, version):
        return self._list(req, version, 'nodes/detail', detail=True)

    def show_node(self, req, version, ident):
        fields = self._fields(req, version)
        return 200, self._node_view(req, self._node(ident, version),
                                    version, fields)

    def node_states(self, req, version, ident):
        node = self._node(ident, version)
        states = {'console_enabled': False, 'last_error': node.last_error,
                  'power_state': node.power_state,
                  'provision_state': 'active',
                  'target_power_state': node.target_power_state,
                  'target_provision_state': None,
                  'provision_updated_at': _time(node.created_at)}
        if version.minor >= 12:
            states.update(raid_config={}, target_raid_config={})
        if version.minor >= 75:
            states.update(boot_mode='uefi', secure_boot=False)
        return 200, states

    def set_power(self, req, version, ident):
        """Power on, off, or reboot, asynchronously: 202 with the node's
        states as Location."""
        body = web.body_of(req)
        unexpected = sorted(set(body) - {'target', 'timeout'})
        if unexpected:
            raise web.Reply(400, 'Unexpected arguments: %s'
                            % ', '.join(unexpected))
        if 'target' not in body:
            raise web.Reply(400, 'Missing mandatory parameter: target')
        target, timeout = body['target'], body.get('timeout')
        if not isinstance(target, str):
            raise web.Reply(400, 'Expected string for target: %s' % target)
        if timeout is not None and (isinstance(timeout, bool)
                                    or not isinstance(timeout, int)):
            raise web.Reply(400, 'Expected an integer for timeout: %s'
                            % timeout)
        node = self._node(ident, version)
        if ((target in baremetal.SOFT_TARGETS or timeout is not None)
                and version.minor < 27):
            raise web.Reply(406, 'Request not acceptable.')
        if timeout is not None and timeout < 1:
            raise web.Reply(400, 'timeout has to be positive integer')
        if target not in baremetal.TARGETS:
            raise web.Reply(400, 'The requested action "%s" can not be '
                                 'performed on node "%s" while it is in '
                                 'state "%s".'
                            % (target, ident, node.power_state))
        self.ironic.set_power(node, target)
        return 202, None, {'Location': self._url(req, 'v1', 'nodes', ident,
                                                 'states')}
