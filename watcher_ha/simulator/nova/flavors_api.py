"""The Compute API's flavors and their extra specs."""

from watcher_ha.simulator.nova import api_base


class FlavorsAPI(api_base.ComputeService):

    def _flavor_view(self, req, flavor, version, detail):
        view = {'id': flavor.id, 'name': flavor.name, 'links': [],
                'description': None}
        if detail:
            view.update({'vcpus': flavor.vcpus, 'ram': flavor.ram,
                         'disk': flavor.disk,
                         'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral,
                         'swap': flavor.swap or '', 'rxtx_factor': 1.0,
                         'os-flavor-access:is_public': True,
                         'OS-FLV-DISABLED:disabled': False})
            if version >= (2, 61):
                view['extra_specs'] = dict(flavor.extra_specs)
        return view

    def list_flavors(self, req, version, detail=False):
        return 200, {'flavors': [
            self._flavor_view(req, f, version, detail)
            for f in sorted(self.cloud.flavors.values(),
                            key=lambda f: f.id)]}

    def list_flavors_detail(self, req, version):
        return self.list_flavors(req, version, detail=True)

    def show_flavor(self, req, version, ident):
        return 200, {'flavor': self._flavor_view(
            req, self.cloud.flavor(ident), version, True)}

    def flavor_extra_specs(self, req, version, ident):
        return 200, {'extra_specs': dict(self.cloud.flavor(
            ident).extra_specs)}
