"""The service catalog: services and their endpoints, as Keystone keeps
them, and the catalog a token carries.

The simulator's own services are registered with paths (``/compute/v2.1``):
it does not know the address it is reached at, so they are rendered
against the request's. Services registered from outside (watcher_ha's
``infra-optim`` and ``instance-ha``) have full URLs. Keystone's
substitutions apply to both: ``$(project_id)s`` or ``%(project_id)s``
(also ``tenant_id``) become the token's project.
"""

import re

from watcher_ha.simulator.keystone import directory

REGION = 'RegionOne'
INTERFACES = ('public', 'internal', 'admin')
# The service names devstack gives the service types watcher_ha serves.
NAMES = {'infra-optim': 'watcher', 'instance-ha': 'masakari'}
SUBSTITUTION = re.compile(r'[$%]\((project_id|tenant_id)\)s')


def _url(url, base_url, project_id):
    if url.startswith('/'):
        url = base_url + url
    if SUBSTITUTION.search(url):
        if project_id is None:
            # Keystone leaves such an endpoint out of a token without a
            # project.
            return None
        url = SUBSTITUTION.sub(project_id, url)
    return url


class Catalog:

    def __init__(self):
        self.services = {}      # id -> {'id', 'type', 'name', ...}
        self.endpoints = {}     # id -> {'id', 'service_id', ...}

    def add_service(self, service_type, name=None, description='',
                    enabled=True):
        name = name or NAMES.get(service_type, service_type)
        service = {'id': directory.stable_id('service', service_type + name),
                   'type': service_type, 'name': name,
                   'description': description, 'enabled': enabled}
        self.services[service['id']] = service
        return service

    def add_endpoint(self, service_id, interface, url, region=REGION,
                     enabled=True):
        endpoint = {'id': directory.stable_id(
                        'endpoint', ' '.join((service_id, interface, region,
                                             url))),
                    'service_id': service_id, 'interface': interface,
                    'region': region, 'region_id': region, 'url': url,
                    'enabled': enabled}
        self.endpoints[endpoint['id']] = endpoint
        return endpoint

    def register(self, service_type, url, name=None):
        """One service of ``service_type`` at ``url`` on the three
        interfaces, as devstack registers each service; registering a type
        again moves its endpoints."""
        for found in [s for s in self.services.values()
                      if s['type'] == service_type]:
            self.remove_service(found['id'])
        service = self.add_service(service_type, name)
        for interface in INTERFACES:
            self.add_endpoint(service['id'], interface, url)
        return service

    def remove_service(self, service_id):
        del self.services[service_id]
        for endpoint_id in [e['id'] for e in self.endpoints.values()
                            if e['service_id'] == service_id]:
            del self.endpoints[endpoint_id]

    @staticmethod
    def listed_url(endpoint, base_url):
        """The URL of an endpoint as GET /v3/endpoints shows it: with its
        substitutions left in."""
        if endpoint['url'].startswith('/'):
            return base_url + endpoint['url']
        return endpoint['url']

    def for_token(self, base_url, project_id):
        """The catalog of a token scoped to ``project_id`` (None: to a
        domain or the system): enabled services with enabled endpoints."""
        catalog = []
        for service in self.services.values():
            if not service['enabled']:
                continue
            endpoints = []
            for endpoint in self.endpoints.values():
                if (endpoint['service_id'] != service['id']
                        or not endpoint['enabled']):
                    continue
                url = _url(endpoint['url'], base_url, project_id)
                if url is not None:
                    endpoints.append({
                        'id': endpoint['id'],
                        'interface': endpoint['interface'],
                        'region': endpoint['region'],
                        'region_id': endpoint['region_id'], 'url': url})
            catalog.append({'id': service['id'], 'type': service['type'],
                            'name': service['name'],
                            'endpoints': endpoints})
        return catalog
