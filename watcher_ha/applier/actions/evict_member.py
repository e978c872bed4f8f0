"""evict_member: delete a failed member of an application in Nova, once
it is proven fenced (application failover, doc/source/app_failover.rst).

Nova maps a volume to one server and detaches nothing from a server on a
host it counts down (409), and Cinder will not let a user delete an
attachment Nova still maps: the failed active's volumes are freed by
deleting it, which Nova does without its host (a local delete) when the
host is down. A local delete leaves a guest on a partitioned host
running, so the action first asks for fencing evidence, fresh
(cloud/applications.py ``fencing_evidence``): Nova shows the member
stopped on a host whose compute reports, or its host is forced down and
Ironic reports it powered off. Without it the action fails and nothing
of the member is touched: its volumes stay where they are.

A member already gone from Nova when the action begins was deleted by
somebody else, perhaps locally on a partitioned host: its volumes move
only if its host (``host``, where it ran when the plan was made) is
forced down and powered off; otherwise the action fails.

Nor is anything done when the activation to come is a webhook this
applier cannot sign (no [app_failover] webhook_secret). Just before the
delete, the member that takes the volumes (``successor``) must still be
able to (ACTIVE, no task, its host up),
and none of the volumes to move may go with the member (Nova lets
delete_on_termination change after the plan was made): the point of no
return is not passed for a failover that cannot finish.

A failed standby holds no volume: it is evicted without evidence
(``fenced`` false). Deleting twice is a delete: after its applier died,
the action is done once Nova has no such server.
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import applications
from watcher_ha.cloud import clients
from watcher_ha.common.app_failover import members

CONF = cfg.CONF


class EvictMember(nova_base.ServerAction):
    name = 'evict_member'
    description = ('Deletes a failed member of an application in Nova, '
                   'once it is proven fenced, which frees its volumes.')
    schema = base.input_schema(
        {'resource_id': nova_base.SERVER_UUID,
         'resource_name': base.NAME_OR_NULL,
         'fenced': {'type': 'boolean'},
         'node': {'type': ['string', 'null'], 'minLength': 1},
         'host': base.NAME_OR_NULL,
         'successor': nova_base.SERVER_UUID,
         'activation': {'enum': list(members.ACTIVATIONS)},
         'volumes': {'type': 'array', 'items': base.NAME}},
        ['resource_id', 'fenced'])

    def pre_condition(self):
        if self.input_parameters.get('activation') == \
                members.ACTIVATE_WEBHOOK and \
                not CONF.app_failover.webhook_secret:
            # Past the eviction, the activation could not be signed.
            raise base.ActionError(
                'member %s was not evicted: its successor is to be '
                'activated by a signed webhook, and this applier has no '
                '[app_failover] webhook_secret' % self.uuid)
        if self.input_parameters.get('activation') == \
                members.ACTIVATE_HEAT_SIGNAL and \
                clients.configured(CONF, clients.HEAT_GROUP):
            # Past the eviction, the activation could not be sent.
            raise base.ActionError(
                'member %s was not evicted: its successor is to be '
                'activated by a Heat signal, and this applier cannot reach '
                'Heat: %s' % (self.uuid, clients.configured(
                    CONF, clients.HEAT_GROUP)))
        if not self._gone():
            return
        host = self.input_parameters.get('host')
        if self.input_parameters['fenced']:
            fenced, how = (applications.host_fenced(
                self.nova, self._ironic(), host,
                self.input_parameters.get('node')) if host
                else (False, 'its host is unknown'))
            if not fenced:
                raise base.ActionError(
                    'member %s is gone from Nova, deleted by somebody else '
                    'and perhaps still running on %s: none of its volumes '
                    'moves: %s' % (self.uuid, host or 'its unknown host',
                                   how))
        raise base.ActionSkipped('member %s is gone from Nova already'
                                 % self.uuid)

    def execute(self):
        self._check_successor()
        self._check_volumes_kept()
        if self.input_parameters['fenced']:
            fenced, how = applications.fencing_evidence(
                self.nova, self._ironic(), self.uuid,
                self.input_parameters.get('node'))
            if not fenced:
                raise base.ActionError(
                    'member %s was not evicted, and none of its volumes '
                    'moves: %s. It may still run and write to them. Power '
                    'its host off (openstack baremetal node power off) and '
                    'force it down (openstack compute service set --down), '
                    'or stop it, then trigger the audit again'
                    % (self.uuid, how))
            self.outcome = 'fenced (%s); deleted' % how
        try:
            self.nova.servers.delete(self.uuid)
        except nova_exc.NotFound:
            pass
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to delete member %s: %s'
                                   % (self.uuid, err))
        self.wait_for(self._gone, CONF.watcher_applier.migration_timeout,
                      'member %s to be deleted' % self.uuid)

    def _check_successor(self):
        """The member that takes the volumes can, still: past this
        action, the failed member is gone."""
        successor = self.input_parameters.get('successor')
        if not successor:
            return
        try:
            member = applications.member(
                self.nova, successor, None,
                applications.down_hosts(self.nova))
        except nova_exc.ClientException as err:
            raise base.ActionError('could not read the successor %s: %s'
                                   % (successor, err))
        if not member.can_take_over:
            raise base.ActionError(
                'member %s was not evicted: its successor %s cannot take '
                'its volumes now (%s%s%s); trigger the audit again once it '
                'can' % (self.uuid, successor, member.status,
                         ', task %s' % member.task_state
                         if member.task_state else '',
                         ', its host down' if member.host_down else ''))

    def _check_volumes_kept(self):
        """None of the volumes to move goes with the member: Nova lets
        delete_on_termination change after the plan was made (2.85)."""
        wanted = set(self.input_parameters.get('volumes') or ())
        doomed = sorted(volume for volume, deleted in
                        applications.data_volumes(self.nova, self.uuid)
                        if deleted and volume in wanted)
        if doomed:
            raise base.ActionError(
                'member %s was not evicted: Nova would delete volume(s) %s '
                'with it (delete_on_termination)' % (self.uuid,
                                                     ', '.join(doomed)))

    @staticmethod
    def _ironic():
        if clients.configured(CONF, clients.IRONIC_GROUP):
            return None
        return clients.ironic(CONF)

    def _gone(self):
        try:
            self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            return True
        return False

    def post_condition(self):
        if not self._gone():
            raise base.ActionError('member %s is still in Nova' % self.uuid)

    def recover(self, started_at):
        """NOT_DONE while the member is in Nova. Gone, it is DONE if this
        action may have deleted it: no fencing asked, or its host fenced
        (forced down and off), or up in Nova (a delete there went through
        its compute, which destroyed the guest). Otherwise somebody else
        may have deleted it locally while it still runs: UNKNOWN, and
        none of its volumes moves."""
        if not self._gone():
            return base.NOT_DONE
        host = self.input_parameters.get('host')
        if not self.input_parameters['fenced']:
            return base.DONE
        if host and not applications.host_down(self.nova, host):
            return base.DONE
        if host and applications.host_fenced(
                self.nova, self._ironic(), host,
                self.input_parameters.get('node'))[0]:
            return base.DONE
        return base.UNKNOWN
