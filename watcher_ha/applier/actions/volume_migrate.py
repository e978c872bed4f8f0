"""volume_migrate: move a Cinder volume to another pool, or give it
another type (Watcher's action of that name, with its parameters).

``migration_type`` ``migrate`` asks Cinder to migrate the volume to the
pool ``destination_node`` (``host@backend#pool``; ``os-migrate_volume``,
the volume locked meanwhile); ``swap``, Watcher's older name for it, does
the same (as in Watcher 17). ``retype`` asks Cinder to give it the type
``destination_type`` (``os-retype``, migrating it on demand). The action
then waits, within [watcher_applier] volume_migration_timeout, until
Cinder shows the migration ended (migration_status ``success`` and the
volume on its destination, or ``error``) or the volume of the new type
and at rest.

Skipped when there is nothing to do: the volume is gone, already on the
destination pool, or already of the destination type. Failed before
asking Cinder anything when the destination pool or type does not exist,
the volume's type does not fit the destination pool, or (as in Watcher)
an attached volume's server does not run (Nova copies its data).

As in Watcher, it has no revert. A migration cannot be aborted in Cinder:
an abort (the applier stops) stops the wait only, and a cancel of the
plan lets it run to its end.
After its applier died, ``recover()`` waits for a migration or retype
under way to end, then finds it done (the volume is where or what was
asked: it counts), never started (the volume unchanged since the action
began: it runs again), or else unknown (a migration that failed, or the
volume changed by someone else: the action fails rather than migrate
twice).
"""

import datetime

from keystoneauth1 import exceptions as ks_exc
from novaclient import exceptions as nova_exc
from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier.actions import base
from watcher_ha.common import holds
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import clients

CONF = cfg.CONF
LOG = log.getLogger(__name__)

MIGRATE = 'migrate'
SWAP = 'swap'
RETYPE = 'retype'
# Cinder's migration statuses of a migration under way.
MIGRATING = ('starting', 'migrating', 'completing')
AT_REST = ('available', 'in-use')
# Server statuses in which Nova copies an attached volume's data.
SWAPPABLE = ('ACTIVE', 'PAUSED')
_NAME = {'anyOf': [{'type': 'string', 'minLength': 1}, {'type': 'null'}]}


class VolumeMigrate(nova_base.NovaAction):
    name = 'volume_migrate'
    description = ('Moves a volume to another pool, or gives it another '
                   'type.')
    schema = base.input_schema(
        {'resource_id': nova_base.SERVER_UUID,
         'resource_name': base.NAME_OR_NULL,
         'migration_type': {'enum': [SWAP, RETYPE, MIGRATE]},
         'destination_node': _NAME, 'destination_type': _NAME},
        ['resource_id', 'migration_type'], more=False)

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        self._cinder = None

    resources = base.holding(holds.VOLUME, 'resource_id')

    @property
    def uuid(self):
        return self.input_parameters['resource_id']

    @property
    def moves(self):
        """Whether it migrates (migrate, swap) rather than retypes."""
        return self.input_parameters['migration_type'] in (MIGRATE, SWAP)

    @property
    def pool(self):
        return self.input_parameters.get('destination_node')

    @property
    def type(self):
        return self.input_parameters.get('destination_type')

    # Cinder.

    @property
    def cinder(self):
        """A Cinder client whose every request that may change something
        passes this action's fence first."""
        if self._cinder is None:
            reason = clients.configured(CONF, clients.CINDER_GROUP)
            if reason:
                raise base.ActionError(reason)
            self._cinder = clients.cinder(CONF,
                                          before_write=lambda: self.fence())
        return self._cinder

    def _call(self, method, path, body=None):
        try:
            return self.cinder.request(path, method, json=body,
                                       raise_exc=False)
        except ks_exc.ClientException as err:
            raise base.ActionError('Cinder could not be reached: %s' % err)

    def _read(self, path):
        resp = self._call('GET', path)
        if resp.status_code != 200:
            raise base.ActionError('Cinder answered GET %s with %s: %s'
                                   % (path, resp.status_code, _why(resp)))
        return resp.json()

    def volume(self):
        """The volume as Cinder shows it; None if it is gone."""
        resp = self._call('GET', '/volumes/%s' % self.uuid)
        if resp.status_code == 404:
            return None
        if resp.status_code != 200:
            raise base.ActionError('Cinder answered GET /volumes/%s with '
                                   '%s: %s' % (self.uuid, resp.status_code,
                                               _why(resp)))
        return resp.json()['volume']

    def _existing_volume(self):
        found = self.volume()
        if found is None:
            raise base.ActionError('volume %s does not exist' % self.uuid)
        return found

    def _pools(self):
        return {pool['name']: pool.get('capabilities') or {} for pool in
                self._read('/scheduler-stats/get_pools?detail=true')[
                    'pools']}

    def _types(self):
        return {t['name']: t for t in self._read('/types')['volume_types']}

    # The action.

    def pre_condition(self):
        volume = self.volume()
        if volume is None:
            raise base.ActionSkipped('volume %s does not exist any more'
                                     % self.uuid)
        types = self._types() if self.type or self.moves else {}
        if self.type and self.type not in types:
            raise base.ActionError('volume type %s does not exist (Cinder '
                                   'has %s)' % (self.type,
                                                ', '.join(sorted(types))))
        pools = self._pools() if self.pool or self.moves else {}
        if self.pool and self.pool not in pools:
            raise base.ActionError('pool %s does not exist (Cinder has %s)'
                                   % (self.pool, ', '.join(sorted(pools))))
        if not self.moves:
            if not self.type:
                raise base.ActionError('a retype needs destination_type, '
                                       'the name of a volume type')
            if volume['volume_type'] == self.type:
                raise base.ActionSkipped('volume %s is of type %s already'
                                         % (self.uuid, self.type))
            return
        if not self.pool:
            raise base.ActionError('a %s needs destination_node, the pool '
                                   '(host@backend#pool) to move the volume '
                                   'to' % self.input_parameters[
                                       'migration_type'])
        if volume['os-vol-host-attr:host'] == self.pool:
            raise base.ActionSkipped('volume %s is on %s already'
                                     % (self.uuid, self.pool))
        volume_type = types.get(volume['volume_type'])
        if volume_type is not None and not _fits(volume_type,
                                                 pools[self.pool]):
            raise base.ActionError(
                "volume %s is of type %s, which does not fit pool %s"
                % (self.uuid, volume['volume_type'], self.pool))
        self._check_server(volume)

    def _check_server(self, volume):
        """Nova copies an attached volume's data: only for a server that
        runs (Watcher's check)."""
        if not volume.get('attachments'):
            return
        server_id = volume['attachments'][0]['server_id']
        try:
            status = self.nova.servers.get(server_id).status
        except nova_exc.NotFound:
            raise base.ActionError('volume %s is attached to server %s, '
                                   'which Nova does not know'
                                   % (self.uuid, server_id))
        if volume['status'] != 'in-use' or status not in SWAPPABLE:
            raise base.ActionError(
                'volume %s is %s, attached to server %s, which is %s: Nova '
                'copies the data of a volume only for a server %s'
                % (self.uuid, volume['status'], server_id, status,
                   ' or '.join(SWAPPABLE)))

    def execute(self):
        if self.moves:
            body = {'os-migrate_volume': {'host': self.pool,
                                          'force_host_copy': False,
                                          'lock_volume': True}}
        else:
            body = {'os-retype': {'new_type': self.type,
                                  'migration_policy': 'on-demand'}}
        resp = self._call('POST', '/volumes/%s/action' % self.uuid, body)
        if resp.status_code != 202:
            # One under way already is this action's own, asked by an
            # earlier run whose applier died before it saw the answer.
            if not self._under_way(self._existing_volume()):
                raise base.ActionError('Cinder refused to %s volume %s: %s'
                                       % (self._what(), self.uuid,
                                          _why(resp)))
        self._check(self._wait_at_rest())

    def _what(self):
        return ('migrate it to %s' % self.pool if self.moves
                else 'retype it to %s' % self.type)

    @staticmethod
    def _under_way(volume):
        return (volume.get('migration_status') in MIGRATING
                or volume['status'] == 'retyping')

    def _wait_at_rest(self):
        """The volume once no migration or retype runs on it."""
        def at_rest():
            volume = self._existing_volume()
            return None if self._under_way(volume) else volume
        return self.wait_for(at_rest,
                             CONF.watcher_applier.volume_migration_timeout,
                             'the %s of volume %s'
                             % ('migration' if self.moves else 'retype',
                                self.uuid))

    def _done(self, volume):
        if self.moves:
            return volume['os-vol-host-attr:host'] == self.pool
        return (volume['volume_type'] == self.type
                and volume['status'] in AT_REST)

    def _check(self, volume):
        if self._done(volume):
            return
        raise base.ActionError(
            'Cinder failed to %s: volume %s is on %s, of type %s, %s, '
            'migration_status %s' % (
                self._what(), self.uuid, volume['os-vol-host-attr:host'],
                volume['volume_type'], volume['status'],
                volume.get('migration_status')))

    def post_condition(self):
        self._check(self._existing_volume())

    def revert(self):
        """None, as in Watcher: the volume stays where it was moved."""
        LOG.warning('volume_migrate has no revert: volume %s stays as it '
                    'is', self.uuid)

    def recover(self, started_at):
        volume = self.volume()
        if volume is None:
            # Run again: the pre-condition skips it.
            return base.NOT_DONE
        if self._under_way(volume):
            volume = self._wait_at_rest()
        if self._done(volume):
            return base.DONE
        if started_at is None or _changed_since(volume, started_at):
            LOG.warning('Volume %s changed since its %s began (status %s, '
                        'migration_status %s): it is not run again',
                        self.uuid, self.name, volume['status'],
                        volume.get('migration_status'))
            return base.UNKNOWN
        return base.NOT_DONE


def _fits(volume_type, capabilities):
    """Whether each extra spec of the type that the pool reports has the
    type's value (Cinder's capabilities filter, as Watcher checks it)."""
    for key, wanted in (volume_type.get('extra_specs') or {}).items():
        have = capabilities.get(key)
        if have is not None and str(have) != str(wanted):
            return False
    return True


def _changed_since(volume, started_at):
    """Whether Cinder changed the volume after ``started_at`` (naive
    UTC)."""
    text = volume.get('updated_at')
    if not text:
        return True
    updated = datetime.datetime.fromisoformat(text)
    if updated.tzinfo is not None:
        updated = updated.astimezone(datetime.timezone.utc).replace(
            tzinfo=None)
    return updated >= started_at


def _why(resp):
    """Cinder's error message in a reply."""
    try:
        body = resp.json()
    except ValueError:
        return resp.text[:200] or resp.reason
    for fault in body.values() if isinstance(body, dict) else ():
        if isinstance(fault, dict) and 'message' in fault:
            return fault['message']
    return resp.text[:200]
