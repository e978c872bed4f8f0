"""The Placement API subset: resource providers (one per compute node),
their inventories, usages, aggregates and traits, and allocations."""

from watcher_ha.simulator import web
from watcher_ha.simulator.nova import model as nova_model

CLASSES = (('VCPU', 'vcpus', 'vcpu_reserved', 'vcpu_ratio'),
           ('MEMORY_MB', 'memory_mb', 'memory_mb_reserved', 'memory_ratio'),
           ('DISK_GB', 'disk_gb', 'disk_gb_reserved', 'disk_ratio'))
_CLASS_OF = {resource: cls
             for cls, resource in nova_model.RESOURCE_CLASSES.items()}
TRAITS = ['COMPUTE_NET_ATTACH_INTERFACE', 'COMPUTE_VOLUME_ATTACH',
          'HW_CPU_X86_AVX2']


class PlacementAPI(web.Service):
    prefix = '/placement'
    microversions = web.Versions('placement', '1.0', '1.39')
    routes = web.route_table('''
        GET  /                                       root
        GET  /resource_providers                     list_providers
        GET  /resource_providers/{uuid}              show_provider
        GET  /resource_providers/{uuid}/inventories  inventories
        GET  /resource_providers/{uuid}/usages       usages
        GET  /resource_providers/{uuid}/aggregates   aggregates
        GET  /resource_providers/{uuid}/traits       provider_traits
        GET  /resource_providers/{uuid}/allocations  rp_allocations
        GET  /allocations/{consumer}                 allocations
        GET  /traits                                 traits
    ''')

    def error(self, status, message):
        # Placement's error format.
        return web.json_response({'errors': [{
            'status': status, 'title': web.FAULT_NAMES.get(status, 'Error'),
            'detail': message, 'request_id': 'req-simulator'}]}, status)

    def root(self, req, version):
        # Placement's own: a self link with an empty href (the root
        # itself), which keystoneauth's discovery needs.
        return 200, {'versions': [{
            'id': 'v1.0', 'max_version': str(self.microversions.maximum),
            'min_version': '1.0', 'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': ''}]}]}

    def _provider(self, uuid):
        for host in self.cloud.hosts.values():
            if host.uuid == uuid:
                return host
        raise web.Reply(404, 'No resource provider with uuid %s found'
                        % uuid)

    def _view(self, host):
        return {'uuid': host.uuid, 'name': host.name, 'generation': 1,
                'parent_provider_uuid': None,
                'root_provider_uuid': host.uuid, 'links': []}

    def list_providers(self, req, version):
        name = req.GET.get('name')
        return 200, {'resource_providers': [
            self._view(h) for h in sorted(self.cloud.hosts.values(),
                                          key=lambda h: h.name)
            if name in (None, h.name)]}

    def show_provider(self, req, version, uuid):
        return 200, self._view(self._provider(uuid))

    def inventories(self, req, version, uuid):
        host = self._provider(uuid)
        inventories = {
            cls: {'total': getattr(host, total),
                  'reserved': getattr(host, reserved),
                  'min_unit': 1, 'max_unit': getattr(host, total),
                  'step_size': 1, 'allocation_ratio': getattr(host, ratio)}
            for cls, total, reserved, ratio in CLASSES}
        for cls, total in sorted(host.inventory.items()):
            inventories[cls] = {'total': total, 'reserved': 0,
                                'min_unit': 1, 'max_unit': total,
                                'step_size': 1, 'allocation_ratio': 1.0}
        return 200, {'resource_provider_generation': 1,
                     'inventories': inventories}

    def usages(self, req, version, uuid):
        # Placement's usages: every class of the provider's inventory,
        # 0 where nothing is allocated.
        host = self._provider(uuid)
        used = self._resources(self.cloud.used(host.name))
        return 200, {'resource_provider_generation': 1, 'usages': {
            cls: used.get(cls, 0)
            for cls in [cls for cls, *_ in CLASSES] + sorted(host.inventory)}}

    def aggregates(self, req, version, uuid):
        return 200, {'resource_provider_generation': 1,
                     'aggregates': sorted(self._provider(uuid).aggregates)}

    def provider_traits(self, req, version, uuid):
        self._provider(uuid)
        return 200, {'resource_provider_generation': 1, 'traits': TRAITS}

    def traits(self, req, version):
        return 200, {'traits': TRAITS}

    @staticmethod
    def _resources(needs):
        """{class: amount} of ``needs`` (keyed by resource, or by class
        beyond RESOURCES), without the classes it holds none of: an
        allocation never holds 0 of a class in Placement (a server
        booted from a volume, without ephemeral disk, holds no
        DISK_GB)."""
        return {_CLASS_OF.get(key, key): amount
                for key, amount in needs.items() if amount}

    def rp_allocations(self, req, version, uuid):
        host = self._provider(uuid)
        found = {}
        for server in self.cloud.servers.values():
            for needs in self.cloud.allocations_on(server, host.name):
                found[server.uuid] = {'resources': self._resources(needs)}
        return 200, {'resource_provider_generation': 1,
                     'allocations': found}

    def allocations(self, req, version, consumer):
        server = self.cloud.servers.get(consumer)
        found = {}
        if server is not None:
            for host in self.cloud.hosts.values():
                for needs in self.cloud.allocations_on(server, host.name):
                    found[host.uuid] = {'generation': 1,
                                        'resources': self._resources(needs)}
        return 200, {'allocations': found, 'project_id': (
            server.tenant_id if server else None),
            'user_id': server.user_id if server else None}
