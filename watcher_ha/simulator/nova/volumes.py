"""The simulated Nova's volume attachments (os-volume_attachments): its
block device mappings of data volumes, made and removed with Cinder's
attachments, and what Nova refuses or waits for when the server's host
is down. A part of the cloud (cloud.Cloud), under its lock.

What real Nova (2024.1 to 2025.2; the API at 2.96) does, and this does:

* Attach: the server in ACTIVE, PAUSED, STOPPED, RESIZED, SOFT_DELETED,
  SHELVED or SHELVED_OFFLOADED with no task, not locked; the volume
  exists in Cinder; no mapping of it on this server ("already attached")
  nor, unless it is multiattach, on any other ("already attached to
  instances"), Nova's own check, before it asks anything of the host.
  Then nova-api *calls* the host's nova-compute for a device name
  (reserve_block_device_name): a compute that does not run, or cannot
  reach the bus, never answers, and the request fails with a 500 after
  rpc_response_timeout. Then Cinder reserves the volume (its refusal
  becomes Nova's 400 "Invalid input received"), and the compute connects
  it and completes the attachment.
* Detach: refused with 409 while Nova counts the host down (forced down,
  or silent past service_down_time), since Wallaby; a shelved offloaded
  server's mapping is removed locally. A compute Nova still counts up
  but that is silent takes the cast and never acts: the volume stays
  ``detaching``.
* A server deleted while its host is down (a local delete) loses its
  mappings and Cinder attachments without its host: a guest still running
  there (a partition) keeps reaching the volume (cinder/storage.py
  ``Connection``).
"""

from watcher_ha.simulator.nova import hosts
from watcher_ha.simulator.nova import model

# The vm_states Nova attaches and detaches volumes in (its
# check_instance_state of attach_volume and detach_volume).
VOLUME_STATES = ('active', 'paused', 'stopped', 'resized', 'soft-delete',
                 'shelved', 'shelved_offloaded')
# What Nova answers when an RPC call to a compute times out.
MESSAGING_TIMEOUT = ("Unexpected API Error. Please report this at "
                     "http://bugs.launchpad.net/nova/ and attach the Nova API "
                     "log if possible.\n<class "
                     "'oslo_messaging.exceptions.MessagingTimeout'>")
# The devices Nova's libvirt driver names, after the root disk's vda.
DEVICE_LETTERS = 'bcdefghijklmnopqrstuvwxyz'
# The connector a compute host gives Cinder (os-brick's, cut down).
CONNECTOR = {'platform': 'x86_64', 'os_type': 'linux', 'multipath': False,
             'initiator': 'iqn.2004-10.org.debian:%s'}


def _mapping(server, volume_id):
    """The server's mapping of the volume; Nova's 404 if it has none."""
    found = server.volumes.get(volume_id)
    if found is None:
        raise model.Refused(404, 'Instance %s is not attached to volume %s'
                            % (server.uuid, volume_id))
    return found


def connector(host):
    """What the compute ``host`` tells Cinder of itself to connect a
    volume."""
    return dict(CONNECTOR, host=host, initiator=CONNECTOR['initiator'] % host)


class ServerVolumes:
    """Mixed into cloud.Cloud: its servers' data volumes."""

    def block_devices(self, uuid):
        """The server's mappings of data volumes, oldest first."""
        with self.lock:
            return list(self.server(uuid).volumes.values())

    def block_device(self, uuid, volume_id):
        with self.lock:
            return _mapping(self.server(uuid), volume_id)

    def _storage(self):
        if self.storage is None:
            raise model.Refused(503, 'Block Storage is not available')
        return self.storage

    def _mapped(self, volume_id):
        """The servers holding a mapping of the volume."""
        return [s for s in self.servers.values() if volume_id in s.volumes]

    def attach_volume(self, uuid, volume_id, device=None, tag=None,
                      delete_on_termination=False, multiattach=False):
        """Attach ``volume_id`` to the server, as nova-api does
        (``multiattach``: the request's microversion allows a multiattach
        volume, 2.60 or later). Returns (the mapping, None), or (None,
        seconds) when the call to the host's compute was never answered:
        the request then waits that long and fails."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'attach_volume', states=VOLUME_STATES)
            storage = self._storage()
            volume = storage.volume(volume_id)
            holders = self._mapped(volume_id)
            if holders and not volume.multiattach:
                raise model.Refused(400, 'Invalid volume: volume %s is '
                                         'already attached to instances: %s'
                                    % (volume_id, ' '.join(
                                        s.uuid for s in holders)))
            if server in holders:
                raise model.Refused(400, 'Invalid volume: volume %s already '
                                         'attached' % volume_id)
            if server.vm_state == 'shelved_offloaded':
                return self._attach_offloaded(server, volume, device,
                                              delete_on_termination), None
            host = self.hosts[server.host]
            if not host.reporting:
                self.rpc_timeouts.append({
                    'host': host.name, 'method': 'reserve_block_device_name',
                    'at': self.clock.now().isoformat()})
                return None, self.rpc_response_timeout
            if volume.multiattach and not multiattach:
                raise model.Refused(400, 'Multiattach volumes are only '
                                         'supported starting with compute '
                                         'API version 2.60.')
            try:
                attachment = storage.attach(volume_id, server.uuid)
            except model.Refused as refused:
                raise model.Refused(400, 'Invalid input received: %s (HTTP '
                                         '400)' % refused.message)
            mapping = self._map(server, volume_id, attachment.id, device,
                                tag, delete_on_termination)
            self._emit('instance.volume_attach.start', server,
                       volume_id=volume_id)
            storage.connect(attachment.id, connector(host.name))
            storage.complete(attachment.id)
            self._emit('instance.volume_attach.end', server,
                       volume_id=volume_id)
            return mapping, None

    def _attach_offloaded(self, server, volume, device,
                          delete_on_termination):
        """Nova's attach to a shelved offloaded server: the volume
        reserved for it, connected once it is unshelved."""
        attachment = self.storage.attach(volume.id, server.uuid)
        return self._map(server, volume.id, attachment.id, device, None,
                         delete_on_termination)

    def _map(self, server, volume_id, attachment_id, device, tag,
             delete_on_termination):
        used = {m.device for m in server.volumes.values()}
        if device is None:
            device = next(('/dev/vd' + letter for letter in DEVICE_LETTERS
                           if '/dev/vd' + letter not in used), None)
            if device is None:
                raise model.Refused(403, 'The maximum allowed number of '
                                         'disk devices (26) to attach to a '
                                         'single instance has been '
                                         'exceeded.')
        elif device in used:
            raise model.Refused(409, 'The supplied device path (%s) is in '
                                     'use.' % device)
        mapping = model.BlockDevice(
            volume_id=volume_id, server_uuid=server.uuid, device=device,
            attachment_id=attachment_id, tag=tag,
            delete_on_termination=bool(delete_on_termination))
        server.volumes[volume_id] = mapping
        self._touch(server)
        return mapping

    def detach_volume(self, uuid, volume_id):
        """Detach ``volume_id`` from the server, as nova-api does."""
        with self.lock:
            server = self.server(uuid)
            storage = self._storage()
            volume = storage.volume(volume_id)
            mapping = _mapping(server, volume_id)
            self._require(server, 'detach_volume', states=VOLUME_STATES)
            if server.vm_state == 'shelved_offloaded':
                self._forget(server, mapping, disconnected=True)
                return
            host = self.hosts[server.host]
            if host.state != 'up':
                raise model.Refused(409, 'Service is unavailable at this '
                                         'time.')
            attachment = storage.attachments.get(mapping.attachment_id)
            if attachment is None or volume.status != 'in-use':
                raise model.Refused(400, "Invalid volume: Invalid input "
                                         "received: Invalid volume: Unable "
                                         "to detach volume. Volume status "
                                         "must be 'in-use' and attach_status "
                                         "must be 'attached' to detach. "
                                         "(HTTP 400)")
            volume.status = 'detaching'
            storage.touch(volume)
            if not host.reporting:
                # Cast to a compute that hears nothing: it stays so.
                return
            self._emit('instance.volume_detach.start', server,
                       volume_id=volume_id)
            self._forget(server, mapping, disconnected=True)
            self._emit('instance.volume_detach.end', server,
                       volume_id=volume_id)

    def _forget(self, server, mapping, disconnected, guest_running=None):
        """Remove the mapping and delete its Cinder attachment (one
        already gone is ignored, as Nova's attachment_delete ignores a
        404)."""
        server.volumes.pop(mapping.volume_id, None)
        self._touch(server)
        if mapping.attachment_id in self.storage.attachments:
            self.storage.detach(mapping.attachment_id,
                                disconnected=disconnected,
                                guest_running=guest_running)

    def _release_volumes(self, server):
        """A server being deleted loses its mappings and attachments. Its
        host's compute disconnects its guest first if it runs and
        reaches the bus; otherwise (Nova's local delete of a server on a
        down host) a guest still running there keeps its volumes.

        Nova deletes each Cinder attachment while it still maps the
        volume: Cinder refuses that (ConflictNovaUsingAttachment) unless
        a service token comes with it. Without one (the cloud's
        ``nova_service_token`` false: Nova's [service_user]
        send_service_user_token, off by default), Nova ignores the
        refusal and deletes the server anyway: its attachments stay in
        Cinder, the volume in-use by a server that is gone, until
        somebody deletes them through Cinder (allowed then: Nova no
        longer maps them)."""
        if self.storage is None:
            return
        host = self.hosts.get(server.host) if server.host else None
        running = host is not None and hosts.guest_running(host, server)
        disconnected = host is not None and host.reporting
        if not self.nova_service_token:
            server.volumes.clear()
            self._touch(server)
            self.storage.server_deleted_refused(server.uuid, disconnected,
                                                running)
            return
        for mapping in list(server.volumes.values()):
            self._forget(server, mapping, disconnected, running)
        # Attachments Nova has no mapping of (made through Cinder alone).
        self.storage.server_deleted(server.uuid, disconnected, running)
