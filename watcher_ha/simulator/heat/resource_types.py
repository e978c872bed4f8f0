"""The resource types the simulated Heat serves (the groups, which hold a
nested stack, are groups.py), each driving the simulator's own services
in process as Heat's plugin drives the real one through its client.

A type declares its properties (Heat's names, types, defaults and
allowed values), its attributes and whether it takes signals, and does
its part of a stack action: ``create`` then ``created`` polled until
done, ``delete`` then ``deleted``, ``replace_when_failed`` (Heat's
needs_replace_failed: should a FAILED resource be replaced by an
update), ``attribute``, ``refid`` (what get_resource gives) and, for
those that take signals, ``signal``. A failure raises
errors.ResourceFailure with the exception class Heat's plugin meets.

- ``OS::Nova::ServerGroup`` (name, policies, rules): a Nova server
  group, made at once; replaced on update when FAILED only if Nova lost
  it.
- ``OS::Nova::Server`` (name, image, flavor, key_name, metadata,
  networks, scheduler_hints, availability_zone, user_data,
  user_data_format, security_groups, config_drive): a server of the
  simulated Nova, created as its compute API creates one (its
  ``scheduler_hints.group`` joins the server group, whose policy the
  simulated scheduler keeps). Done once ACTIVE; ERROR fails it with
  Heat's ResourceInError; a scheduling failure reads as Nova's ERROR
  server does to Heat. Deleting one already gone from Nova succeeds
  (Heat ignores NotFound). The simulator has no Glance: ``image`` is
  kept as given. ``networks`` ([{network: <id>}]) become the server's
  ports on the simulated Nova's networks (nova/networks.py; by id only,
  an unknown one failing the server as Nova refuses it); none, Nova's
  ``auto``. The ``networks`` and ``addresses`` attributes are empty.
- ``OS::Cinder::Volume`` (size, name, description, volume_type,
  availability_zone, metadata): a volume of the simulated Cinder, done
  once ``available``.
- ``OS::Heat::WaitConditionHandle`` (signal_transport): the handle a
  guest or an operator signals; see ``signal``.

Any other property is Heat's "Unknown Property" refusal.
"""

import base64
import json
import uuid as uuidlib

from watcher_ha.simulator.heat import errors
from watcher_ha.simulator.heat import properties
from watcher_ha.simulator.heat import template
from watcher_ha.simulator.nova import model as nova_model
from watcher_ha.simulator.nova import server_groups

Prop = properties.Prop
check_properties = properties.check

# Nova statuses Heat's nova plugin keeps waiting through
# (NovaClientPlugin.deferred_server_statuses).
DEFERRED_SERVER_STATUSES = ('BUILD', 'HARD_REBOOT', 'PASSWORD', 'REBOOT',
                            'RESCUE', 'RESIZE', 'REVERT_RESIZE', 'SHUTOFF',
                            'SUSPENDED', 'VERIFY_RESIZE')


def short_id(uuid_text):
    """Heat's 12-character id of a version 4 uuid (its short_id): the
    uuid's 60 random time bits, base32, lower case."""
    bits = uuidlib.UUID(uuid_text).time << 4
    return base64.b32encode(bits.to_bytes(8, 'big'))[:12].decode().lower()


def physical_name(resource):
    """Heat's physical_resource_name: ``<stack>-<resource>-<short id>``."""
    return '%s-%s-%s' % (resource.stack.name.rstrip('*'), resource.name,
                         short_id(resource.uuid))


def nova_failure(refusal):
    """What Heat meets when the simulated Nova (or Cinder) refuses: a
    scheduling failure is, in a real Nova, a server gone to ERROR."""
    if refusal.message.startswith('No valid host was found'):
        return errors.ResourceFailure(
            'ResourceInError', 'Went to status ERROR due to "Message: %s, '
            'Code: 500"' % refusal.message)
    kinds = {400: 'BadRequest', 403: 'Forbidden', 404: 'NotFound',
             409: 'Conflict'}
    return errors.ResourceFailure(kinds.get(refusal.status, 'ClientException'),
                                  '%s (HTTP %d)' % (refusal.message,
                                                    refusal.status))


def _nova_metadata(metadata):
    """A server's metadata as Heat hands it to Nova (its meta_serialize):
    a value that is no string as JSON."""
    return {key: value if isinstance(value, str) else json.dumps(value)
            for key, value in metadata.items()}


class ResourceType:
    name = ''
    properties = {}
    attributes = ()
    takes_signals = False
    holds_stack = False

    def validate(self, heat, values, path):
        """Checks beyond the properties' own (Heat's validate())."""

    def create(self, heat, resource):
        pass

    def created(self, heat, resource):
        return True

    def delete(self, heat, resource):
        pass

    def deleted(self, heat, resource):
        return True

    def replace_when_failed(self, heat, resource):
        return True

    def gone(self, heat, resource):
        """Whether the physical resource is no more (what an update with
        ``converge`` observes: Heat replaces a resource whose live state
        is NotFound)."""
        return False

    def needs_replacement(self, heat, resource, converge=False):
        """Whether an update whose definition of ``resource`` is unchanged
        replaces it (Heat's Resource._needs_update): a FAILED resource
        when it was marked CHECK_FAILED or its type says so (its
        needs_replace_failed), one never created or deleted, and with
        ``converge`` one whose physical resource is gone."""
        if resource.status == 'FAILED' and (
                resource.action == 'CHECK'
                or self.replace_when_failed(heat, resource)):
            return True
        if resource.action in ('INIT', 'DELETE'):
            return True
        return converge and self.gone(heat, resource)

    def attribute(self, heat, resource, name):
        return None

    def get_attribute(self, heat, resource, name, path):
        """get_attr's value: the attribute followed along ``path``."""
        return template.select(self.attribute(heat, resource, name), path)

    def refid(self, resource):
        return resource.physical_id or resource.name


class ServerGroup(ResourceType):
    name = 'OS::Nova::ServerGroup'
    properties = {
        'name': Prop('String'),
        'policies': Prop('List', default=['anti-affinity'],
                         allowed=('anti-affinity', 'affinity',
                                  'soft-anti-affinity', 'soft-affinity')),
        'rules': Prop('Map'),
    }

    def create(self, heat, resource):
        props = resource.properties
        group = server_groups.create(
            heat.cloud, props['name'] or physical_name(resource),
            props['policies'][0], props['rules'],
            project_id=resource.stack.tenant)
        resource.physical_id = group.id

    def delete(self, heat, resource):
        if resource.physical_id in heat.cloud.server_groups:
            server_groups.delete(heat.cloud, resource.physical_id)

    def replace_when_failed(self, heat, resource):
        return self.gone(heat, resource)

    def gone(self, heat, resource):
        return resource.physical_id not in heat.cloud.server_groups


class Server(ResourceType):
    name = 'OS::Nova::Server'
    properties = {
        'name': Prop('String'), 'image': Prop('String'),
        'flavor': Prop('String', required=True), 'key_name': Prop('String'),
        'metadata': Prop('Map', default={}), 'networks': Prop('List'),
        'scheduler_hints': Prop('Map'), 'availability_zone': Prop('String'),
        'user_data': Prop('String', default=''),
        'user_data_format': Prop('String', default='HEAT_CFNTOOLS',
                                 allowed=('HEAT_CFNTOOLS', 'RAW',
                                          'SOFTWARE_CONFIG')),
        'security_groups': Prop('List', default=[]),
        'config_drive': Prop('Boolean'),
    }
    attributes = ('name', 'addresses', 'networks', 'first_address',
                  'instance_name', 'accessIPv4', 'accessIPv6', 'show')

    def validate(self, heat, values, path):
        if not values.get('image'):
            raise errors.invalid('Neither image nor bootable volume is '
                                 'specified for instance %s' % path[-1])
        flavor = values['flavor']
        try:
            heat.cloud.flavor(flavor)
        except nova_model.Refused:
            raise errors.invalid('Error validating value \'%s\': The Flavor '
                                 '(%s) could not be found.' % (flavor, flavor),
                                 path=list(path) + ['properties', 'flavor'],
                                 error='Property error')

    def create(self, heat, resource):
        props = resource.properties
        hints = props['scheduler_hints'] or {}
        try:
            server = heat.cloud.create_server(
                props['name'] or physical_name(resource), props['flavor'],
                zone=props['availability_zone'],
                metadata=_nova_metadata(props['metadata']),
                tenant_id=resource.stack.tenant,
                key_name=props['key_name'], group=hints.get('group'),
                image=props['image'], networks=_nova_networks(
                    props['networks']))
        except nova_model.Refused as refusal:
            raise nova_failure(refusal)
        resource.physical_id = server.uuid

    def created(self, heat, resource):
        server = heat.cloud.servers.get(resource.physical_id)
        if server is None or server.status in DEFERRED_SERVER_STATUSES:
            return False
        if server.status == 'ACTIVE':
            return True
        if server.status == 'ERROR':
            fault = server.fault or {}
            raise errors.ResourceFailure(
                'ResourceInError', 'Went to status ERROR due to "Message: '
                '%s, Code: %s"' % (fault.get('message', 'Unknown'),
                                   fault.get('code', 'Unknown')))
        raise errors.ResourceFailure(
            'ResourceUnknownStatus', 'Server is not active - Unknown status '
            '%s due to "Unknown"' % server.status)

    def delete(self, heat, resource):
        if resource.physical_id not in heat.cloud.servers:
            return      # gone already: Heat ignores Nova's NotFound
        try:
            heat.cloud.delete_server(resource.physical_id)
        except nova_model.Refused as refusal:
            raise nova_failure(refusal)

    def deleted(self, heat, resource):
        server = heat.cloud.servers.get(resource.physical_id)
        if server is None:
            return True
        if server.status == 'ERROR':
            fault = server.fault or {}
            raise errors.ResourceFailure(
                'Error', 'Server %s delete failed: (%s) %s' % (
                    server.name, fault.get('code'),
                    fault.get('message', 'Unknown')))
        return False

    def replace_when_failed(self, heat, resource):
        server = heat.cloud.servers.get(resource.physical_id)
        return server is None or server.status == 'ERROR'

    def gone(self, heat, resource):
        return resource.physical_id not in heat.cloud.servers

    def attribute(self, heat, resource, name):
        server = heat.cloud.servers.get(resource.physical_id)
        if server is None:
            return None
        values = {'name': server.name, 'addresses': {}, 'networks': {},
                  'first_address': '', 'accessIPv4': '', 'accessIPv6': '',
                  'instance_name': 'instance-%s' % server.uuid[:8]}
        values['show'] = {'id': server.uuid, 'name': server.name,
                          'status': server.status,
                          'OS-EXT-SRV-ATTR:host': server.host,
                          'metadata': dict(server.metadata)}
        return values.get(name)


def _nova_networks(networks):
    """Nova's ``networks`` for Heat's: a port on each network named by
    id; Nova's own choice without any."""
    if not networks:
        return 'auto'
    return [{'uuid': item.get('network')} for item in networks
            if isinstance(item, dict)]


class Volume(ResourceType):
    name = 'OS::Cinder::Volume'
    properties = {
        'size': Prop('Integer', required=True), 'name': Prop('String'),
        'description': Prop('String'), 'volume_type': Prop('String'),
        'availability_zone': Prop('String'), 'metadata': Prop('Map'),
    }
    attributes = ('size', 'status', 'display_name', 'volume_type',
                  'availability_zone', 'metadata')

    def create(self, heat, resource):
        props = resource.properties
        try:
            volume = heat.cloud.storage.create_volume(
                props['size'], name=props['name'] or physical_name(resource),
                description=props['description'],
                type_ref=props['volume_type'],
                zone=props['availability_zone'], metadata=props['metadata'],
                project_id=resource.stack.tenant)
        except nova_model.Refused as refusal:
            raise nova_failure(refusal)
        resource.physical_id = volume.id

    def created(self, heat, resource):
        volume = heat.cloud.storage.volumes.get(resource.physical_id)
        if volume is not None and volume.status == 'error':
            raise errors.ResourceFailure('ResourceInError',
                                         'Went to status error due to '
                                         '"Unknown"')
        return volume is not None and volume.status == 'available'

    def delete(self, heat, resource):
        if resource.physical_id not in heat.cloud.storage.volumes:
            return
        try:
            heat.cloud.storage.delete_volume(resource.physical_id)
        except nova_model.Refused as refusal:
            raise nova_failure(refusal)

    def deleted(self, heat, resource):
        return resource.physical_id not in heat.cloud.storage.volumes

    def replace_when_failed(self, heat, resource):
        volume = heat.cloud.storage.volumes.get(resource.physical_id)
        return volume is None or volume.status in ('error', 'deleting')

    def gone(self, heat, resource):
        return resource.physical_id not in heat.cloud.storage.volumes

    def attribute(self, heat, resource, name):
        volume = heat.cloud.storage.volumes.get(resource.physical_id)
        if volume is None:
            return None
        return {'size': volume.size, 'status': volume.status,
                'display_name': volume.name, 'volume_type': volume.type_id,
                'availability_zone': volume.availability_zone,
                'metadata': dict(volume.metadata)}.get(name)


class WaitConditionHandle(ResourceType):
    """Heat's HeatWaitConditionHandle: signals are ``{"status": "SUCCESS"
    | "FAILURE", "reason", "data", "id"}``, each key optional (Heat fills
    in SUCCESS, ``Signal <n> received``, null and n). Each is kept in the
    resource's metadata under its id, and its event says ``Signal:
    status:<status> reason:<reason>``. Any other key, or another status,
    is refused by the engine after the API answered (Heat signals this
    type asynchronously): no event, nothing kept."""

    name = 'OS::Heat::WaitConditionHandle'
    properties = {
        'signal_transport': Prop('String', default='TOKEN_SIGNAL',
                                 allowed=('CFN_SIGNAL', 'TEMP_URL_SIGNAL',
                                          'HEAT_SIGNAL', 'NO_SIGNAL',
                                          'ZAQAR_SIGNAL', 'TOKEN_SIGNAL')),
    }
    takes_signals = True
    KEYS = ('data', 'reason', 'status', 'id')

    def create(self, heat, resource):
        # Heat makes a stack user in Keystone; its id is the physical id.
        resource.physical_id = uuidlib.uuid4().hex

    def signal(self, heat, resource, details):
        """The signal's entry, or None when Heat drops it; its event's
        reason."""
        number = len(resource.metadata) + 1
        entry = dict(details) if isinstance(details, dict) else {}
        if details and not isinstance(details, dict):
            return None
        entry.setdefault('reason', 'Signal %d received' % number)
        entry.setdefault('data', None)
        entry.setdefault('id', number)
        entry.setdefault('status', 'SUCCESS')
        if (set(entry) != set(self.KEYS)
                or entry['status'] not in ('SUCCESS', 'FAILURE')):
            return None     # Heat: "Metadata format invalid"
        key = str(entry.pop('id'))
        resource.metadata[key] = entry
        return 'Signal: status:%s reason:%s' % (entry['status'],
                                                entry['reason'])


TYPES = {kind.name: kind for kind in (ServerGroup(), Server(), Volume(),
                                      WaitConditionHandle())}
