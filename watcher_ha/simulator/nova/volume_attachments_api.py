"""The Compute API's volume attachments of a server
(os-volume_attachments) and its metadata (/servers/{id}/metadata), with
Nova's bodies by microversion and its refusals (volumes.py,
server_actions.py)."""

import re

from watcher_ha.simulator import web
from watcher_ha.simulator.nova import api_base
from watcher_ha.simulator.nova import volumes

# The microversions that change these views.
TAGGED = (2, 70)
DELETE_ON_TERMINATION = (2, 79)
ATTACHMENT_IDS = (2, 89)
MULTIATTACH = (2, 60)
# What a metadata key or value may be (Nova's schema).
METADATA_LIMIT = 255
METADATA_KEY = re.compile(r'^[a-zA-Z0-9-_:. ]{1,255}$')


def _attachment_view(mapping, version):
    view = {} if version >= ATTACHMENT_IDS else {'id': mapping.volume_id}
    view.update(volumeId=mapping.volume_id, serverId=mapping.server_uuid,
                device=mapping.device)
    if version >= TAGGED:
        view['tag'] = mapping.tag
    if version >= DELETE_ON_TERMINATION:
        view['delete_on_termination'] = mapping.delete_on_termination
    if version >= ATTACHMENT_IDS:
        view.update(attachment_id=mapping.attachment_id,
                    bdm_uuid=mapping.uuid)
    return view


def _metadata(body, field):
    """The metadata object ``field`` of ``body``, as Nova's schema
    checks it: keys of 1 to 255 letters, digits and ``-_:. ``, string
    values of up to 255 characters."""
    items = body.get(field)
    if not isinstance(items, dict):
        raise web.Reply(400, "Invalid input for field/attribute %s. '%s' "
                             "is a required property" % (field, field))
    unexpected = sorted(key for key in items if not METADATA_KEY.match(key))
    if unexpected:
        raise web.Reply(400, 'Invalid input for field/attribute %s. Value: '
                             '%s. Additional properties are not allowed '
                             '(%s %s unexpected)' % (
                                 field, items, ', '.join(
                                     repr(k) for k in unexpected),
                                 'was' if len(unexpected) == 1 else 'were'))
    for key, value in items.items():
        if not isinstance(value, str) or len(value) > METADATA_LIMIT:
            raise web.Reply(400, 'Invalid input for field/attribute %s/%s. '
                                 'Value: %s. %r is not a string of at most '
                                 '%d characters' % (field, key, value, value,
                                                    METADATA_LIMIT))
    return items


class VolumeAttachmentsAPI(api_base.ComputeService):

    def server_volumes(self, req, version, uuid):
        mappings = self.cloud.block_devices(uuid)
        return 200, {'volumeAttachments': [
            _attachment_view(m, version) for m in mappings]}

    def server_volume(self, req, version, uuid, ident):
        return 200, {'volumeAttachment': _attachment_view(
            self.cloud.block_device(uuid, ident), version)}

    def attach_volume(self, req, version, uuid):
        spec = web.body_of(req).get('volumeAttachment')
        if not isinstance(spec, dict) or not isinstance(
                spec.get('volumeId'), str):
            raise web.Reply(400, "Invalid input for field/attribute "
                                 "volumeAttachment. 'volumeId' is a "
                                 "required property")
        allowed = {'volumeId', 'device'}
        if version >= (2, 49):
            allowed.add('tag')
        if version >= DELETE_ON_TERMINATION:
            allowed.add('delete_on_termination')
        web.refuse_unexpected(spec, allowed, 'volumeAttachment')
        delete_on_termination = self._boolean(
            'delete_on_termination', spec.get('delete_on_termination',
                                              False))
        mapping, wait = self.cloud.attach_volume(
            uuid, spec['volumeId'], device=spec.get('device'),
            tag=spec.get('tag'), delete_on_termination=delete_on_termination,
            multiattach=version >= MULTIATTACH)
        if mapping is None:
            # Nobody answered nova-api's call: it fails once it gives up.
            web.hold_reply(req, wait)
            raise web.Reply(500, volumes.MESSAGING_TIMEOUT)
        view = {'id': mapping.volume_id, 'serverId': mapping.server_uuid,
                'volumeId': mapping.volume_id, 'device': mapping.device}
        if version >= TAGGED:
            view['tag'] = mapping.tag
        if version >= DELETE_ON_TERMINATION:
            view['delete_on_termination'] = mapping.delete_on_termination
        return 200, {'volumeAttachment': view}

    def detach_volume(self, req, version, uuid, ident):
        self.cloud.detach_volume(uuid, ident)
        return 202, None

    # Metadata.

    def list_metadata(self, req, version, uuid):
        return 200, {'metadata': dict(self.cloud.server(uuid).metadata)}

    def show_metadata_item(self, req, version, uuid, key):
        metadata = self.cloud.server(uuid).metadata
        if key not in metadata:
            raise web.Reply(404, 'Metadata item was not found')
        return 200, {'meta': {key: metadata[key]}}

    def merge_metadata(self, req, version, uuid):
        items = _metadata(web.body_of(req), 'metadata')
        return 200, {'metadata': self.cloud.update_metadata(uuid, items)}

    def replace_metadata(self, req, version, uuid):
        items = _metadata(web.body_of(req), 'metadata')
        return 200, {'metadata': self.cloud.update_metadata(
            uuid, items, replace=True)}

    def set_metadata_item(self, req, version, uuid, key):
        items = _metadata(web.body_of(req), 'meta')
        if len(items) > 1:
            raise web.Reply(400, 'Invalid input for field/attribute meta. '
                                 'Value: %s. %s has too many properties'
                            % (items, items))
        if key not in items:
            raise web.Reply(400, 'Request body and URI mismatch')
        self.cloud.update_metadata(uuid, items)
        return 200, {'meta': dict(items)}

    def delete_metadata_item(self, req, version, uuid, key):
        self.cloud.delete_metadata_item(uuid, key)
        return 204, None

