"""The simulated Nova's migrations: live migrations (queued on their
source up to max_concurrent_live_migrations, aborted, rolled back), cold
migrations and resizes (confirmed or reverted). A part of the cloud
(cloud.Cloud), under its lock, on its timers."""

import uuid as uuidlib

from watcher_ha.simulator.nova import model
from watcher_ha.simulator.nova import server_groups


class Migrations:
    """Mixed into cloud.Cloud: the migrations of its servers."""

    def _migration(self, server, kind, dest, new_flavor=None,
                   status='running'):
        migration = model.Migration(
            id=next(self._migration_ids), uuid=str(uuidlib.uuid4()),
            server_uuid=server.uuid, source=server.host, dest=dest,
            kind=kind, status=status,
            old_flavor_id=server.flavor.id,
            new_flavor_id=(new_flavor or server.flavor).id,
            memory_total_bytes=server.flavor.ram * 2 ** 20,
            created_at=self.clock.now())
        self.migrations[migration.id] = migration
        return migration

    def _migration_seconds(self, server):
        return server.flavor.ram / self.bandwidth_mb_per_s

    def live_migrate(self, uuid, host=None, block_migration='auto',
                     async_=True):
        """``async_`` (compute 2.34 and later): the conductor's
        scheduling failures end the migration in error after the API
        accepted it, instead of a 400."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'os-migrateLive',
                          states=('active', 'paused'))
            group = server_groups.of(self, uuid)
            dest = (self._check_destination(host, server.needs(),
                                            server.host)
                    if host else self._schedule(server.needs(),
                                                exclude=(server.host,),
                                                group=group, moving=uuid))
            if not server_groups.allows(self, group, dest.name, uuid):
                return self._no_valid_host_for_group(server, dest, group,
                                                     async_)
            source = self.hosts[server.host]
            if source.state != 'up':
                raise model.Refused(400, 'Compute service of %s is '
                                         'unavailable at this time.'
                                    % source.name)
            migration = self._migration(server, 'live-migration', dest.name,
                                        status='queued')
            server.task_state = 'migrating'
            self._touch(server)
            fail = self.faults.take_migration_failure(uuid) \
                if self.faults else False
            self._live_queued[source.name].append((server, migration, fail))
            self._start_live_migrations(source.name)
            return migration

    def _start_live_migrations(self, source):
        """Start the live migrations queued on ``source`` while it runs
        fewer than max_concurrent_live_migrations."""
        limit = self.max_concurrent_live_migrations
        queued = self._live_queued[source]
        while queued and (not limit or self._live_running[source] < limit):
            server, migration, fail = queued.popleft()
            if (migration.status != 'queued'
                    or self.servers.get(server.uuid) is not server):
                # Aborted, or the server deleted, while it waited.
                continue
            self._live_running[source] += 1
            migration.status = 'running'
            migration.started_at = migration.updated_at = self.clock.now()
            self._emit('instance.live_migration_pre.start', server,
                       publisher=migration.dest)
            self._emit('instance.live_migration_pre.end', server,
                       publisher=migration.dest)
            self._later(self._migration_seconds(server),
                        self._finish_live_migration, server, migration,
                        fail)

    def _live_migration_ended(self, migration):
        """A running live migration ended (completed, failed, aborted):
        its source's next queued one may start."""
        self._live_running[migration.source] -= 1
        self._start_live_migrations(migration.source)

    def _finish_live_migration(self, server, migration, fail):
        if migration.status != 'running':
            # Aborted meanwhile (its end counted then).
            return
        if self.servers.get(server.uuid) is not server:
            # Deleted while it migrated.
            migration.status = 'error'
            self._live_migration_ended(migration)
            return
        if fail:
            migration.status = 'error'
            self._roll_back_live_migration(server, migration)
            self._live_migration_ended(migration)
            return
        migration.memory_processed_bytes = migration.memory_total_bytes
        self._emit('instance.live_migration_post.start', server)
        self._emit('instance.live_migration_post_dest.start', server,
                   publisher=migration.dest)
        server.host = migration.dest
        server.task_state = None
        self._touch(server)
        self._emit('instance.live_migration_post_dest.end', server)
        migration.status = 'completed'
        migration.updated_at = self.clock.now()
        # The source reports last, still naming itself (as Nova does).
        moved_host, server.host = server.host, migration.source
        server.task_state = 'migrating'
        self._emit('instance.live_migration_post.end', server)
        server.host, server.task_state = moved_host, None
        self._live_migration_ended(migration)

    def _roll_back_live_migration(self, server, migration):
        self._emit('instance.live_migration_rollback.start', server)
        server.task_state = None
        self._touch(server)
        migration.updated_at = self.clock.now()
        self._emit('instance.live_migration_rollback.end', server)
        self._emit('instance.live_migration_rollback_dest.start', server,
                   publisher=migration.dest)
        self._emit('instance.live_migration_rollback_dest.end', server,
                   publisher=migration.dest)

    def _no_valid_host_for_group(self, server, dest, group, async_):
        """The live migration of a member of ``group`` to ``dest``, which
        its policy forbids: NoValidHost in Nova's conductor. The
        migration ends in error, the server stays where it is."""
        message = ('No valid host was found. %s breaks the %s policy of '
                   'server group %s.' % (dest.name, group.policy, group.id))
        if not async_:
            raise model.Refused(400, message)
        migration = self._migration(server, 'live-migration', dest.name,
                                    status='error')
        migration.updated_at = self.clock.now()
        return migration

    def live_migrations_of(self, uuid):
        """The live migrations of a server still under way."""
        with self.lock:
            self.server(uuid)
            return [m for m in self.migrations.values()
                    if m.server_uuid == uuid and m.kind == 'live-migration'
                    and m.status in model.IN_PROGRESS]

    def abort_live_migration(self, uuid, migration_id, queued_too=True):
        """Stop a live migration under way; the server stays (or is
        back) on its source. ``queued_too``: one still queued (or
        preparing) may be aborted too (compute 2.65 and later)."""
        with self.lock:
            server = self.server(uuid)
            migration = self.migrations.get(migration_id)
            if (migration is None or migration.server_uuid != uuid
                    or migration.kind != 'live-migration'):
                raise model.Refused(404, 'Migration %s not found for '
                                         'instance %s'
                                    % (migration_id, uuid))
            if migration.status not in (model.IN_PROGRESS if queued_too
                                        else ('running',)):
                raise model.Refused(
                    400, 'Migration %s state of instance %s is %s. Cannot '
                         'abort live migration while the migration is in '
                         'this state.'
                    % (migration_id, uuid, migration.status))
            self._emit('instance.live_migration_abort.start', server)
            running = migration.status == 'running'
            migration.status = 'cancelled'
            migration.updated_at = self.clock.now()
            if not running:
                # Taken off its source's queue before it began: nothing
                # to roll back on the destination.
                server.task_state = None
                self._touch(server)
                self._emit('instance.live_migration_abort.end', server)
                return
            self._emit('instance.live_migration_abort.end', server)
            self._roll_back_live_migration(server, migration)
            self._live_migration_ended(migration)

    def cold_migrate(self, uuid, host=None, flavor=None):
        """``migrate`` (same flavor) or ``resize`` (new flavor)."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'resize' if flavor else 'migrate',
                          states=('active', 'stopped'))
            new_flavor = self.flavor(flavor) if flavor else server.flavor
            if flavor and new_flavor.id == server.flavor.id:
                raise model.Refused(400, 'When resizing, instances must '
                                         'change flavor!')
            new_needs = server.needs(new_flavor)
            group = server_groups.of(self, uuid)
            dest = (self._check_destination(host, new_needs, server.host)
                    if host else self._schedule(new_needs,
                                                exclude=(server.host,),
                                                group=group, moving=uuid))
            if not server_groups.allows(self, group, dest.name, uuid):
                # Nova's conductor schedules a cold migration in the
                # API's call: NoValidHost is a 400.
                raise model.Refused(400, 'No valid host was found. %s '
                                         'breaks the %s policy of server '
                                         'group %s.'
                                    % (dest.name, group.policy, group.id))
            migration = self._migration(
                server, 'resize' if flavor else 'migration', dest.name,
                new_flavor)
            server.task_state = 'resize_prep'
            self._emit('instance.resize_prep.start', server)
            self._emit('instance.resize_prep.end', server)
            server.task_state = 'resize_migrating'
            self._emit('instance.resize.start', server)
            self._later(self._migration_seconds(server),
                        self._finish_cold_migration, server, migration,
                        new_flavor)
            return migration

    def _finish_cold_migration(self, server, migration, new_flavor):
        if self.servers.get(server.uuid) is not server:
            return
        server.source_host, server.host = server.host, migration.dest
        server.old_flavor, server.flavor = server.flavor, new_flavor
        server.task_state = 'resize_migrated'
        self._emit('instance.resize.end', server,
                   publisher=migration.source)
        server.task_state = 'resize_finish'
        self._emit('instance.resize_finish.start', server)
        server.vm_state, server.task_state = 'resized', None
        migration.status = 'finished'
        self._touch(server)
        self._emit('instance.resize_finish.end', server)

    def confirm_resize(self, uuid):
        with self.lock:
            server = self._resized_server(uuid, 'confirmResize')
            source = server.source_host
            self._emit('instance.resize_confirm.start', server,
                       publisher=source)
            server.vm_state = self._resting_state(server)
            server.old_flavor = server.source_host = None
            for migration in self.migrations.values():
                if (migration.server_uuid == uuid
                        and migration.status == 'finished'):
                    migration.status = 'confirmed'
            self._touch(server)
            self._emit('instance.resize_confirm.end', server,
                       publisher=source)

    def _resized_server(self, uuid, action):
        """The server ``uuid``, its resize waiting for a confirm or revert
        (``action``: Nova's name of the one asked); Refused otherwise."""
        server = self.server(uuid)
        if server.vm_state != 'resized':
            raise model.Refused(409, "Cannot '%s' instance %s while it is "
                                     "in vm_state %s"
                                % (action, uuid, server.vm_state))
        return server

    @staticmethod
    def _resting_state(server):
        """Where a confirmed or reverted resize leaves a server: running
        if it ran before, stopped if it was stopped (power state 4,
        shutdown)."""
        return 'active' if server.power_state == 1 else 'stopped'

    def revert_resize(self, uuid):
        with self.lock:
            server = self._resized_server(uuid, 'revertResize')
            self._emit('instance.resize_revert.start', server)
            server.host, server.source_host = server.source_host, None
            server.flavor, server.old_flavor = server.old_flavor, None
            server.vm_state = self._resting_state(server)
            self._touch(server)
            self._emit('instance.resize_revert.end', server)
