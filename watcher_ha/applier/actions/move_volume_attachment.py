"""move_volume_attachment: attach a failed active's data volume to the
member that takes over (application failover,
doc/source/app_failover.rst).

It runs after evict_member, which freed the volume by deleting its
fenced holder: Nova then maps the volume to nobody, and Cinder shows it
available. The volume is attached through Nova (which reserves it in
Cinder, has the member's compute connect it, and completes the
attachment), and the action waits until Cinder shows it in use by the
member ([cinder] must say where Cinder is: Nova maps a volume as it
reserves it, before the compute has connected it).

A volume whose old holder is still in Nova (not evicted) fails the
action before anything is asked: Nova would refuse it, or attach a
multiattach volume beside it. A volume already attached to the member
is skipped. Attachments to the old holder that Nova's delete left in
Cinder (Cinder refuses Nova's delete without a service token) are
deleted through Cinder first.
After its applier died, the action is done once the attachment shows,
and may run again otherwise (an attach Nova already made is found, not
made twice).
"""

from keystoneauth1 import exceptions as ks_exc
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import clients
from watcher_ha.common import holds

CONF = cfg.CONF


class MoveVolumeAttachment(nova_base.ServerAction):
    name = 'move_volume_attachment'
    description = ('Attaches a failed active member\'s data volume to the '
                   'member that takes over.')
    schema = base.input_schema(
        {'resource_id': nova_base.SERVER_UUID,
         'resource_name': base.NAME_OR_NULL,
         'volume_id': base.NAME, 'source_server': nova_base.SERVER_UUID},
        ['resource_id', 'volume_id', 'source_server'])

    @classmethod
    def resources(cls, input_parameters):
        return {(holds.SERVER, input_parameters['resource_id']),
                (holds.VOLUME, input_parameters['volume_id'])}

    @property
    def volume(self):
        return self.input_parameters['volume_id']

    def pre_condition(self):
        self.server(self.uuid)
        if self._mapped():
            raise base.ActionSkipped('volume %s is attached to %s already'
                                     % (self.volume, self.uuid))
        source = self.input_parameters['source_server']
        try:
            self.nova.servers.get(source)
        except nova_exc.NotFound:
            return
        # A multiattach volume Nova would attach beside it.
        raise base.ActionError('volume %s was not moved: its holder %s is '
                               'still in Nova (evict_member did not run or '
                               'failed)' % (self.volume, source))

    def execute(self):
        self._release_left_behind()
        try:
            self.nova.volumes.create_server_volume(self.uuid, self.volume)
        except nova_exc.ClientException as err:
            if not self._mapped():
                raise base.ActionError(
                    'Nova did not attach volume %s to %s: %s' % (
                        self.volume, self.uuid, err))
        self._wait_attached()
        self.outcome = 'volume %s attached to %s' % (self.volume, self.uuid)

    def _cinder(self):
        reason = clients.configured(CONF, clients.CINDER_GROUP)
        if reason:
            raise base.ActionError('cannot see volume %s attached: %s'
                                   % (self.volume, reason))
        return clients.cinder(CONF, before_write=lambda: self.fence())

    def _cinder_volume(self, cinder):
        """The volume as Cinder shows it, or None."""
        try:
            response = cinder.get('/volumes/%s' % self.volume,
                                  raise_exc=False)
        except ks_exc.ClientException as err:
            raise base.ActionError('Cinder could not be reached: %s' % err)
        return response.json()['volume'] if response.status_code == 200 \
            else None

    def _release_left_behind(self):
        """Delete, through Cinder, the volume's attachments to its old
        holder, which Nova deleted without them: Nova deletes a server's
        attachments while it still maps them, and Cinder refuses that
        unless Nova sends a service token (Nova's [service_user]
        send_service_user_token, off by default); Nova ignores the
        refusal, and the volume stays in-use by a server that is gone.
        Cinder lets them be deleted once Nova no longer maps them. The
        holder is proven fenced: evict_member deleted it only then, and
        the pre-condition found it gone."""
        cinder = self._cinder()
        volume = self._cinder_volume(cinder) or {}
        source = self.input_parameters['source_server']
        for attachment in volume.get('attachments') or ():
            if attachment.get('server_id') != source:
                continue
            response = cinder.delete(
                '/attachments/%s' % attachment['attachment_id'],
                raise_exc=False)
            if response.status_code not in (200, 202, 204, 404):
                raise base.ActionError(
                    'Cinder did not delete attachment %s of volume %s to '
                    '%s, which Nova deleted without it: %s %s' % (
                        attachment['attachment_id'], self.volume, source,
                        response.status_code, response.text[:200]))

    def _wait_attached(self):
        self.wait_for(self._attached,
                      CONF.watcher_applier.migration_timeout,
                      'volume %s to be attached to %s' % (self.volume,
                                                          self.uuid))

    def _mapped(self):
        """Whether Nova maps the volume to the member."""
        try:
            self.nova.volumes.get_server_volume(self.uuid, self.volume)
        except nova_exc.NotFound:
            return False
        return True

    def _attached(self):
        """Whether the attachment is complete: Nova maps it, and Cinder
        (when configured) shows the volume in use by the member."""
        if not self._mapped():
            return False
        # Nova maps the volume as it reserves it, before the compute
        # connects it: only Cinder shows the attachment complete.
        volume = self._cinder_volume(self._cinder())
        if volume is None:
            return False
        return volume['status'] == 'in-use' and any(
            a.get('server_id') == self.uuid
            for a in volume.get('attachments') or ())

    def post_condition(self):
        if not self._attached():
            raise base.ActionError('volume %s is not attached to %s'
                                   % (self.volume, self.uuid))

    def recover(self, started_at):
        if not self._mapped():
            return base.NOT_DONE
        self._wait_attached()
        return base.DONE
