"""The simulated Nova's server actions that keep a server where it is:
start and stop, pause, suspend, reset state, shelve and unshelve, lock.
A part of the cloud (cloud.Cloud), under its lock."""

from watcher_ha.simulator.nova import model


class ServerActions:
    """Mixed into cloud.Cloud: the actions on one of its servers."""

    def power(self, uuid, on):
        with self.lock:
            server = self.server(uuid)
            if on:
                self._require(server, 'start', states=('stopped',))
                self._emit('instance.power_on.start', server)
                server.vm_state, server.power_state = 'active', 1
                self._emit('instance.power_on.end', server)
            else:
                self._require(server, 'stop')
                self._emit('instance.power_off.start', server)
                server.vm_state, server.power_state = 'stopped', 4
                self._emit('instance.power_off.end', server)
            self._touch(server)

    def pause(self, uuid, paused):
        with self.lock:
            server = self.server(uuid)
            if paused:
                self._require(server, 'pause')
                self._emit('instance.pause.start', server)
                server.vm_state, server.power_state = 'paused', 3
                self._emit('instance.pause.end', server)
            else:
                self._require(server, 'unpause', states=('paused',))
                self._emit('instance.unpause.start', server)
                server.vm_state, server.power_state = 'active', 1
                self._emit('instance.unpause.end', server)
            self._touch(server)

    def suspend(self, uuid, suspended):
        """Nova's suspend (from ACTIVE: the guest's memory saved, power
        state SUSPENDED) and resume."""
        with self.lock:
            server = self.server(uuid)
            if suspended:
                self._require(server, 'suspend')
                self._emit('instance.suspend.start', server)
                server.vm_state, server.power_state = 'suspended', 7
                self._emit('instance.suspend.end', server)
            else:
                self._require(server, 'resume', states=('suspended',))
                self._emit('instance.resume.start', server)
                server.vm_state, server.power_state = 'active', 1
                self._emit('instance.resume.end', server)
            self._touch(server)

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
