"""The Compute API v2.1 subset, with Nova's JSON shapes and codes: the
routes, and the parts that serve them (servers_api, migrations_api,
hosts_api, flavors_api, server_groups_api, volume_attachments_api) on
the shared service of api_base."""

from watcher_ha.simulator import web
from watcher_ha.simulator.nova import flavors_api
from watcher_ha.simulator.nova import hosts_api
from watcher_ha.simulator.nova import migrations_api
from watcher_ha.simulator.nova import server_groups_api
from watcher_ha.simulator.nova import servers_api
from watcher_ha.simulator.nova import volume_attachments_api


class ComputeAPI(servers_api.ServersAPI, migrations_api.MigrationsAPI,
                 hosts_api.HostsAPI, flavors_api.FlavorsAPI,
                 server_groups_api.ServerGroupsAPI,
                 volume_attachments_api.VolumeAttachmentsAPI):
    routes = web.route_table('''
        GET     /                                   version
        GET     /servers                            list_servers
        GET     /servers/detail                     list_servers_detail
        GET     /servers/{uuid}                     show_server
        GET     /servers/{uuid}/migrations          list_server_migrations
        DELETE  /servers/{uuid}/migrations/{ident}  abort_server_migration
        POST    /servers                            create_server
        DELETE  /servers/{uuid}                     delete_server
        POST    /servers/{uuid}/action              server_action
        GET     /servers/{uuid}/os-volume_attachments  server_volumes
        POST    /servers/{uuid}/os-volume_attachments  attach_volume
        GET     /servers/{uuid}/os-volume_attachments/{ident}  server_volume
        DELETE  /servers/{uuid}/os-volume_attachments/{ident}  detach_volume
        GET     /servers/{uuid}/os-interface        server_interfaces
        GET     /servers/{uuid}/os-instance-actions  server_instance_actions
        GET     /servers/{uuid}/metadata            list_metadata
        POST    /servers/{uuid}/metadata            merge_metadata
        PUT     /servers/{uuid}/metadata            replace_metadata
        GET     /servers/{uuid}/metadata/{key}      show_metadata_item
        PUT     /servers/{uuid}/metadata/{key}      set_metadata_item
        DELETE  /servers/{uuid}/metadata/{key}      delete_metadata_item
        GET     /os-migrations                      list_migrations
        GET     /os-services                        list_services
        PUT     /os-services/{ident}                update_service
        GET     /os-hypervisors                     list_hypervisors
        GET     /os-hypervisors/detail              list_hypervisors_detail
        GET     /os-hypervisors/{ident}/search      search_hypervisors
        GET     /os-hypervisors/{ident}             show_hypervisor
        GET     /flavors                            list_flavors
        GET     /flavors/detail                     list_flavors_detail
        GET     /flavors/{ident}                    show_flavor
        GET     /flavors/{ident}/os-extra_specs     flavor_extra_specs
        GET     /os-availability-zone               list_zones
        GET     /os-availability-zone/detail        list_zones_detail
        GET     /os-aggregates                      list_aggregates
        GET     /os-aggregates/{ident}              show_aggregate
        POST    /os-aggregates/{ident}/action       aggregate_action
        GET     /os-server-groups                   list_server_groups
        POST    /os-server-groups                   create_server_group
        GET     /os-server-groups/{ident}           show_server_group
        DELETE  /os-server-groups/{ident}           delete_server_group
    ''')
    def version(self, req, version):
        return 200, {'version': {
            'id': 'v2.1', 'status': 'CURRENT',
            'version': str(self.microversions.maximum),
            'min_version': '2.1', 'updated': '2013-07-23T11:33:21Z',
            'links': [{'rel': 'self', 'href': self._url(req) + '/'}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.compute+'
                                     'json;version=2.1'}]}}
