"""The Compute API's migrations: a server's live migrations under way
(shown and aborted), and every migration (os-migrations)."""

from watcher_ha.simulator import web
from watcher_ha.simulator.nova import api_base
from watcher_ha.simulator.nova.api_base import api_time


class MigrationsAPI(api_base.ComputeService):

    def list_server_migrations(self, req, version, uuid):
        """A server's live migrations under way (2.23)."""
        if version < (2, 23):
            raise web.Reply(404, 'The resource could not be found.')
        return 200, {'migrations': [{
            'id': m.id, 'uuid': m.uuid, 'server_uuid': m.server_uuid,
            'source_compute': m.source, 'source_node': m.source,
            'dest_compute': m.dest, 'dest_node': m.dest, 'dest_host': None,
            'status': m.status,
            'memory_total_bytes': m.memory_total_bytes,
            'memory_processed_bytes': m.memory_processed_bytes,
            'memory_remaining_bytes': (m.memory_total_bytes
                                       - m.memory_processed_bytes),
            'disk_total_bytes': 0, 'disk_processed_bytes': 0,
            'disk_remaining_bytes': 0,
            'created_at': api_time(m.created_at),
            'updated_at': api_time(m.updated_at)}
            for m in self.cloud.live_migrations_of(uuid)]}

    def abort_server_migration(self, req, version, uuid, ident):
        """Abort a live migration under way (2.24); a queued one too from
        2.65."""
        if version < (2, 24):
            raise web.Reply(404, 'The resource could not be found.')
        try:
            migration_id = int(ident)
        except ValueError:
            raise web.Reply(400, 'Invalid migration id %s: it must be an '
                                 'integer' % ident)
        self.cloud.abort_live_migration(uuid, migration_id,
                                        queued_too=version >= (2, 65))
        return 202, None

    def list_migrations(self, req, version):
        params = req.GET
        found = []
        for migration in sorted(self.cloud.migrations.values(),
                                key=lambda m: -m.id):
            if ('instance_uuid' in params
                    and migration.server_uuid != params['instance_uuid']):
                continue
            if 'host' in params and params['host'] not in (
                    migration.source, migration.dest):
                continue
            if 'status' in params and migration.status != params['status']:
                continue
            if ('migration_type' in params
                    and migration.kind != params['migration_type']):
                continue
            found.append({
                'id': migration.id, 'uuid': migration.uuid,
                'instance_uuid': migration.server_uuid,
                'source_compute': migration.source,
                'source_node': migration.source,
                'dest_compute': migration.dest, 'dest_node': migration.dest,
                'dest_host': None, 'status': migration.status,
                'migration_type': migration.kind,
                'old_instance_type_id': migration.old_flavor_id,
                'new_instance_type_id': migration.new_flavor_id,
                'created_at': api_time(migration.created_at),
                'updated_at': api_time(migration.updated_at),
                'links': []})
        return 200, {'migrations': found}
