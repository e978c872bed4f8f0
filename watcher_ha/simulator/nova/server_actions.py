"""The simulated Nova's server actions that keep a server where it is:
start and stop, pause, suspend, reset state, shelve and unshelve, lock.
A part of the cloud (cloud.Cloud), under its lock."""

import typing

from watcher_ha.simulator.nova import model


class Move(typing.NamedTuple):
    """A server action that flips the server between two states: the
    action's name (Nova's, in its refusals), the vm_states it may start
    from, the name its notifications carry, the vm_state and power_state
    (Nova's numbers) it leaves the server in, and the task it is in until
    its host's compute has done it."""
    action: str
    from_states: tuple
    notified: str
    vm_state: str
    power: int
    task: str


START = Move('start', ('stopped',), 'power_on', 'active', 1, 'powering-on')
STOP = Move('stop', ('active',), 'power_off', 'stopped', 4, 'powering-off')
PAUSE = Move('pause', ('active',), 'pause', 'paused', 3, 'pausing')
UNPAUSE = Move('unpause', ('paused',), 'unpause', 'active', 1, 'unpausing')
SUSPEND = Move('suspend', ('active',), 'suspend', 'suspended', 7,
               'suspending')
RESUME = Move('resume', ('suspended',), 'resume', 'active', 1, 'resuming')
# The tasks a compute that never heard of them leaves for its next
# start (Nova's _init_instance).
CAST_TASKS = tuple(move.task for move in (START, STOP, PAUSE, UNPAUSE,
                                          SUSPEND, RESUME)) + (
    'rebooting', 'rebooting_hard')
# The vm_states a HARD reboot starts a guest from (Nova's reboot).
HARD_REBOOTABLE = ('active', 'stopped', 'paused', 'suspended', 'error')


class ServerActions:
    """Mixed into cloud.Cloud: the actions on one of its servers."""

    def power(self, uuid, on):
        self._move(uuid, START if on else STOP)

    def pause(self, uuid, paused):
        self._move(uuid, PAUSE if paused else UNPAUSE)

    def suspend(self, uuid, suspended):
        """Nova's suspend (from ACTIVE: the guest's memory saved, power
        state SUSPENDED) and resume."""
        self._move(uuid, SUSPEND if suspended else RESUME)

    def _move(self, uuid, move):
        """``move`` on the server ``uuid``, notified as Nova does:
        instance.<notified>.start, then .end once the server is in its
        new states. Nova casts it to the server's compute: one that does
        not run, or does not reach the bus, never does it, and the
        server stays in the move's task (Nova refuses other actions on
        it meanwhile)."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, move.action, states=move.from_states)
            host = self.hosts.get(server.host) if server.host else None
            if host is not None and not host.reporting:
                server.task_state = move.task
                self._touch(server)
                return
            self._emit('instance.%s.start' % move.notified, server)
            server.vm_state, server.power_state = move.vm_state, move.power
            self._emit('instance.%s.end' % move.notified, server)
            self._touch(server)

    def reboot(self, uuid, hard=False):
        """Nova's reboot: SOFT from ACTIVE only, HARD from any state a
        guest can be started from. The server is in REBOOT (HARD_REBOOT)
        for the cloud's ``reboot_seconds``, notified instance.reboot.start
        then .end; cast to a compute that does not run, it stays in its
        task, as every cast does."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'reboot', states=HARD_REBOOTABLE if hard
                          else ('active',))
            task = 'rebooting_hard' if hard else 'rebooting'
            server.task_state = task
            self._touch(server)
            host = self.hosts.get(server.host) if server.host else None
            if host is not None and not host.reporting:
                return
            self._emit('instance.reboot.start', server)
            if self.reboot_seconds:
                self._later(self.reboot_seconds, self._finish_reboot, server,
                            task)
            else:
                self._finish_reboot(server, task)

    def _finish_reboot(self, server, task):
        if self.servers.get(server.uuid) is not server \
                or server.task_state != task:
            return      # deleted, or reset, meanwhile
        server.vm_state, server.power_state = 'active', 1
        server.task_state = None
        self._touch(server)
        self._emit('instance.reboot.end', server)

    def reset_state(self, uuid, state):
        """Nova's os-resetState: the vm_state set to ``state`` (active or
        error) and the task cleared, whatever the server was doing, its
        host up or not, locked or not; the power state stays."""
        with self.lock:
            server = self.server(uuid)
            old_state, old_task_state = server.vm_state, server.task_state
            server.vm_state, server.task_state = state, None
            self._touch(server)
            self._emit('instance.update', server, publisher='api',
                       old_state=old_state, old_task_state=old_task_state)

    def shelve(self, uuid):
        """Nova's shelve: a snapshot uploaded (``shelve_seconds``), the
        guest powered off (SHELVED), then offloaded at once (Nova's
        shelved_offload_time 0): its host released, SHELVED_OFFLOADED."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'shelve', states=model.SHELVABLE)
            server.task_state = 'shelving'
            self._touch(server)
            self._emit('instance.shelve.start', server)
            if self.shelve_seconds:
                server.task_state = 'shelving_image_uploading'
                self._later(self.shelve_seconds, self._finish_shelve, server)
            else:
                self._finish_shelve(server)

    def _finish_shelve(self, server):
        if self.servers.get(server.uuid) is not server:
            return      # deleted meanwhile
        server.vm_state, server.power_state = 'shelved', 4
        server.task_state = None
        self._emit('instance.shelve.end', server)
        server.task_state = 'shelving_offloading'
        self._emit('instance.shelve_offload.start', server)
        source = server.host
        server.vm_state, server.host = 'shelved_offloaded', None
        server.task_state = None
        self._touch(server)
        self._emit('instance.shelve_offload.end', server, publisher=source)

    def unshelve(self, uuid):
        """A SHELVED server is powered on where it is (Nova's conductor
        starts it); a SHELVED_OFFLOADED one is scheduled and spawned."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'unshelve',
                          states=('shelved', 'shelved_offloaded'))
            if server.vm_state == 'shelved':
                server.task_state = 'powering-on'
                self._emit('instance.power_on.start', server)
                server.vm_state, server.power_state = 'active', 1
                server.task_state = None
                self._touch(server)
                self._emit('instance.power_on.end', server)
                return
            server.task_state = 'unshelving'
            dest = self._schedule(server.needs())
            self._emit('instance.unshelve.start', server, publisher=dest.name)
            server.host = dest.name
            server.vm_state, server.power_state = 'active', 1
            server.task_state = None
            self._touch(server)
            self._emit('instance.unshelve.end', server)

    def lock_server(self, uuid, locked, reason=None):
        with self.lock:
            server = self.server(uuid)
            server.locked = locked
            server.locked_reason = reason if locked else None
            self._touch(server)
            self._emit('instance.lock' if locked else 'instance.unlock',
                       server, publisher='api')

    # Metadata: written in Nova's database only (no call to the host since
    # Wallaby), so a server on a down host takes it too.

    METADATA_STATES = ('active', 'paused', 'suspended', 'stopped')

    def update_metadata(self, uuid, items, replace=False):
        """Merge ``items`` into the server's metadata (or, ``replace``,
        make them all of it); the metadata afterwards."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'update metadata',
                          states=self.METADATA_STATES)
            server.metadata = dict(items) if replace else dict(
                server.metadata, **items)
            self._touch(server)
            return dict(server.metadata)

    def delete_metadata_item(self, uuid, key):
        with self.lock:
            server = self.server(uuid)
            if key not in server.metadata:
                raise model.Refused(404, 'Metadata item was not found')
            self._require(server, 'delete metadata',
                          states=self.METADATA_STATES)
            server.metadata = {k: v for k, v in server.metadata.items()
                               if k != key}
            self._touch(server)
