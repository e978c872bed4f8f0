"""active_standby: fail an active/standby application over (goal
application_availability; doc/source/app_failover.rst).

The application is a Nova server group (``server_group``) whose members
carry their role in their metadata (``role_key``: ``active`` or
``standby``). Each run (an EVENT audit's webhook, or instance HA: a
member's host failed, a member it could not restart, a process of a
member's host stopped) reads the group and its members from Nova, and
the failures instance HA gave up on since the application's last plan,
and decides by the rules of common/app_failover/members.py:

* the active member is unhealthy and a standby is healthy: fail over.
  The plan fences the active first: stopped on its live host
  (quiesce_server) or, when Nova counts its host down, the host powered
  off through Ironic and forced down (power_off_host, force_host_down:
  instance HA's fencing). Then evict_member deletes it in Nova, once the
  fencing shows (which frees its volumes: Nova maps a volume to one
  server, and detaches nothing from a down host);
  move_volume_attachment attaches each of its data volumes
  (``volumes``, or all those Nova mapped to it) to the standby; activate
  makes the standby active (its metadata, and a signed webhook when
  ``activation`` says so); replace_member creates the member that
  becomes the new standby, in the same server group.
* a standby is unhealthy: it is evicted and replaced; no volume moves.
* the audit's last plan ended (failed, cancelled) after it evicted the
  failed active, with volumes, the activation or the replacement left to
  do: those actions again, as planned (the evicted member is gone, and
  nothing else says where its volumes belong).
* more unhealthy members than ``max_unhealthy``, no member active, no
  standby that can take over now, a plan of this application under way
  (a started plan holds one of its members), a volume Nova would delete
  with the failed member, a "failed" trigger just after an activation:
  nothing moves, and the audit ends SUCCEEDED saying why (it can be
  triggered again). A member booted from a volume is not replaced (the
  failover goes on; a warning says so).

The plan fences without holding the failed host, so that the plans of
several applications whose actives ran on one failed host run side by
side: fencing twice is harmless, and each plan's volume moves wait for
the fencing to show.
"""

import dataclasses
import datetime

from oslo_config import cfg
from oslo_log import log

from watcher_ha.cloud import applications
from watcher_ha.cloud import clients
from watcher_ha.common import context as watcher_context
from watcher_ha.common import holds
from watcher_ha.common.app_failover import members as members_mod
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import action_plans
from watcher_ha.db import models as db_models
from watcher_ha.db import plan_holds
from watcher_ha.db import recoveries
from watcher_ha.decision_engine.strategy import app_stack
from watcher_ha.decision_engine.strategy import base

CONF = cfg.CONF
LOG = log.getLogger(__name__)

# The plans a failover may have been cut short in, and the actions done.
INTERRUPTED = (ActionPlanState.FAILED, ActionPlanState.CANCELLED)
FINISHED = (ActionState.SUCCEEDED, ActionState.SKIPPED)

ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
ID_OR_NULL = dict(ID, type=['string', 'null'], default=None)


class ActiveStandby(base.Strategy):
    name = members_mod.STRATEGY
    display_name = 'Active/standby application failover'
    goal = 'application_availability'
    data_models = ()
    parameters_spec = {
        'properties': {
            'server_group': dict(ID, description=(
                'The id of the application\'s Nova server group: its '
                'members are the application\'s servers.')),
            'role_key': {
                'description': 'The server metadata key whose value is '
                               'each member\'s role: active or standby.',
                'type': 'string', 'minLength': 1, 'maxLength': 255,
                'default': members_mod.DEFAULT_ROLE_KEY},
            'volumes': {
                'description': 'The ids of the volumes that follow the '
                               'active member; null: every data volume '
                               'Nova maps to it (its boot volume left '
                               'out).',
                'type': ['array', 'null'], 'items': ID,
                'uniqueItems': True, 'default': None},
            'trigger': {
                'description': 'What a trigger means: "check" (fail over '
                               'what Nova shows failed) or "failed" (an '
                               'application monitor reports the active '
                               'failed: it is stopped and failed over '
                               'whatever Nova shows).',
                'enum': list(members_mod.TRIGGERS),
                'default': members_mod.TRIGGER_CHECK},
            'activation': {
                'description': 'How the standby is made active: its '
                               'metadata role set to active (for an agent '
                               'in the guest), and first a signed webhook '
                               'to activation_url ("webhook") or a signal '
                               'to the signal_resource of its stack '
                               '("heat_signal"), or then a reboot through '
                               'Nova ("reboot"), so that it starts again '
                               'in its new role.',
                'enum': list(members_mod.ACTIVATIONS),
                'default': members_mod.ACTIVATE_METADATA},
            'activation_url': {
                'description': 'Where the activation webhook goes (POST, '
                               'signed with [app_failover] '
                               'webhook_secret): an http or https URL.',
                'type': ['string', 'null'], 'maxLength': 2048,
                'pattern': '^https?://[^/?#]+', 'default': None},
            'replacement': {
                'description': 'How a failed member is replaced: through '
                               'the application\'s Heat stack when it is '
                               'a resource of the audit\'s stack, else '
                               'through Nova ("auto"); "heat" (its '
                               'resource marked unhealthy and the stack '
                               'updated); "nova" (a new server of the '
                               'same flavor, image, key, networks, '
                               'metadata, in the server group); or "none".',
                'enum': list(members_mod.REPLACEMENTS),
                'default': members_mod.REPLACE_AUTO},
            'stack': dict(ID_OR_NULL, description=(
                'The name or id of the application\'s Heat stack (its top '
                'stack), for replacement "heat" and activation '
                '"heat_signal".')),
            'signal_resource': dict(ID_OR_NULL, description=(
                'For activation "heat_signal": the resource of the stack '
                'to signal (an OS::Heat::WaitConditionHandle).')),
            'networks': {
                'description': 'The network ids of a replacement; null: '
                               'those of the member it replaces (its '
                               'ports, as Nova lists them).',
                'type': ['array', 'null'], 'items': ID,
                'default': None},
            'max_unhealthy': {
                'description': 'Nothing moves when more members than '
                               'this are unhealthy at once.',
                'type': 'integer', 'minimum': 1, 'default': 1},
            'failed_trigger_grace': {
                'description': 'Seconds after an activation during which '
                               'a "failed" trigger is taken for the last '
                               'failover\'s alarm repeated, and the new '
                               'active is not failed over for it.',
                'type': 'integer', 'minimum': 0, 'default': 300},
            'quiesce_timeout': {
                'description': 'Seconds the active on a live host is given '
                               'to stop before the plan goes on only with '
                               'fencing evidence.',
                'type': 'integer', 'minimum': 1, 'maximum': 3600,
                'default': 30},
        },
        'required': ['server_group'],
    }

    def execute(self, audit, parameters, models=None, metrics=None):
        if (parameters['activation'] == members_mod.ACTIVATE_WEBHOOK
                and not parameters.get('activation_url')):
            raise base.StrategyError('activation "webhook" needs an '
                                     'activation_url')
        reason = clients.configured(CONF)
        if reason:
            raise base.StrategyError(reason)
        stack = app_stack.of(parameters)
        nova = clients.nova(CONF)
        try:
            # A host reported failed to instance HA is down before Nova
            # counts it so (its service_down_time after its last report).
            group, members = applications.members(
                nova, parameters['server_group'], parameters['role_key'],
                also_down=recoveries.hosts_in_recovery(
                    watcher_context.admin_context()))
        except applications.ReadError as err:
            raise base.StrategyError(str(err))
        self._refuse_while_under_way(members)
        last_plan, last_actions = action_plans.newest_of_audit(
            watcher_context.admin_context(), audit.get('uuid'))
        resumed = self._interrupted(audit, last_plan, last_actions)
        if resumed:
            return resumed
        members = self._with_reported_failures(
            members, last_plan['created_at'] if last_plan else None)
        decision = members_mod.decide(
            members, parameters['max_unhealthy'], parameters['trigger'],
            now=db_models.utcnow(),
            failed_grace=parameters['failed_trigger_grace'])
        if decision.what == members_mod.NOTHING:
            raise base.NothingToDo(decision.reason)
        self._refuse_past_the_cloud_breaker(decision)
        solution = self.new_solution()
        common = {'server_group': group.id,
                  'role_key': parameters['role_key']}
        moved = 0
        if decision.what == members_mod.FAIL_OVER:
            moved = self._fail_over(solution, nova, decision, parameters,
                                    common, stack)
        else:
            solution.add_action('evict_member', dict(
                common, resource_id=decision.failed.uuid,
                resource_name=decision.failed.name, fenced=False,
                why=decision.reason, host=decision.failed.host))
        through_heat = stack.replacement(decision.failed, common) if \
            stack is not None and parameters['replacement'] in (
                members_mod.REPLACE_HEAT, members_mod.REPLACE_AUTO) \
            else None
        if through_heat is not None or \
                parameters['replacement'] == members_mod.REPLACE_HEAT:
            if through_heat is not None:
                solution.add_action('replace_member', through_heat)
            replaced = int(through_heat is not None)
        else:
            replaced = self._replacement(solution, nova, decision.failed,
                                         self._template(decision, members),
                                         parameters, common)
        solution.set_indicator('volumes_moved_count', moved)
        solution.set_indicator('members_replaced_count', replaced)
        return solution

    @staticmethod
    def _refuse_while_under_way(members):
        held = plan_holds.holders(watcher_context.admin_context(), {
            (holds.SERVER, m.uuid) for m in members})
        if held:
            raise base.NothingToDo(
                'a plan under way holds members of this application (%s): '
                'trigger the audit again once it ended' % ', '.join(
                    '%s by %s' % (ident, plan)
                    for (_kind, ident), plan in sorted(held.items())))

    def _refuse_past_the_cloud_breaker(self, decision):
        """NothingToDo once [app_failover] max_failovers failovers (plans
        evicting a member, of any application) began within
        failovers_window seconds: the cloud-wide circuit breaker."""
        cap = CONF.app_failover.max_failovers
        if not cap:
            return
        window = CONF.app_failover.failovers_window
        begun = action_plans.count_of_goal_since(
            watcher_context.admin_context(), self.goal,
            db_models.utcnow() - datetime.timedelta(seconds=window),
            with_action='evict_member')
        if begun >= cap:
            LOG.warning('Cloud-wide application failover breaker open: %d '
                        'failovers began within %d s ([app_failover] '
                        'max_failovers %d); not acting on: %s',
                        begun, window, cap, decision.reason)
            raise base.NothingToDo(
                '%s, but %d application failovers began across the cloud '
                'within the last %d s, as many as [app_failover] '
                'max_failovers (%d) allows: nothing moves, since so many '
                'at once is a partition or a wider fault; once it is '
                'understood, trigger the audit again (after the window, '
                'or with a larger max_failovers)' % (
                    decision.reason, begun, window, cap))

    @staticmethod
    def _with_reported_failures(members, since):
        """``members``, each with the failure instance HA gave up on
        since the application's last plan (``since``), if any: a VM
        notification of it failed after its restarts, a PROCESS
        notification of its host."""
        reports = recoveries.failures_given_up(
            watcher_context.admin_context(), since)
        return [dataclasses.replace(member, reported_failed=(
            members_mod.reported_failure(member, reports, since)))
            for member in members]

    def _interrupted(self, audit, plan, actions):
        """A solution that finishes this audit's last failover, if that
        plan (``plan``, its ``actions``) ended (failed, cancelled) past the
        point of no return: its failed member evicted, not all that
        follows done. Those actions again, as they were planned (each
        finds what is done and skips it): the member evicted is gone, and
        no new run could find where its volumes belong."""
        if plan is None or plan['state'] not in INTERRUPTED:
            return None
        kinds = [a['action_type'] for a in actions]
        if 'evict_member' not in kinds:
            return None
        evicted = actions[kinds.index('evict_member')]
        after = [a for a in actions[kinds.index('evict_member') + 1:]
                 if a['state'] not in FINISHED]
        if evicted['state'] != ActionState.SUCCEEDED or not after \
                or not evicted['input_parameters'].get('fenced'):
            return None
        LOG.warning('Audit %s: plan %s ended %s after it evicted member %s; '
                    'planning the rest of that failover again',
                    audit.get('uuid'), plan['uuid'], plan['state'],
                    evicted['input_parameters']['resource_id'])
        solution = self.new_solution()
        for action in after:
            solution.add_action(action['action_type'],
                                dict(action['input_parameters']))
        solution.set_indicator('volumes_moved_count', sum(
            a['action_type'] == 'move_volume_attachment' for a in after))
        solution.set_indicator('members_replaced_count', sum(
            a['action_type'] == 'replace_member' for a in after))
        return solution

    def _fail_over(self, solution, nova, decision, parameters, common,
                   stack):
        failed, successor = decision.failed, decision.successor
        if failed.status == members_mod.GONE:
            raise base.NothingToDo(
                'the active member %s is gone from Nova: its host, so its '
                'fencing, is unknown; check that it runs nowhere, attach '
                'its volumes to the standby %s and mark it active by hand'
                % (failed.uuid, successor.uuid))
        volumes = self._volumes(nova, failed, parameters)
        if failed.host_down:
            fence = {'resource_name': failed.host, 'hold_host': False}
            solution.add_action('power_off_host', dict(fence))
            solution.add_action('force_host_down', dict(fence))
        else:
            solution.add_action('quiesce_server', dict(
                resource_id=failed.uuid, resource_name=failed.name,
                timeout=parameters['quiesce_timeout']))
        solution.add_action('evict_member', dict(
            common, resource_id=failed.uuid, resource_name=failed.name,
            fenced=True, why=decision.reason, host=failed.host,
            successor=successor.uuid, volumes=volumes,
            activation=parameters['activation']))
        for volume in volumes:
            solution.add_action('move_volume_attachment', {
                'volume_id': volume, 'source_server': failed.uuid,
                'resource_id': successor.uuid,
                'resource_name': successor.name})
        solution.add_action('activate', dict(
            common, resource_id=successor.uuid,
            resource_name=successor.name, replaces=failed.uuid,
            method=parameters['activation'],
            url=parameters.get('activation_url'),
            **({'stack': stack.ref,
                'signal_resource': parameters['signal_resource']}
               if parameters['activation']
               == members_mod.ACTIVATE_HEAT_SIGNAL else {})))
        return len(volumes)

    @staticmethod
    def _volumes(nova, failed, parameters):
        """The ids of the volumes that follow the active."""
        mapped = dict(applications.data_volumes(nova, failed.uuid))
        wanted = parameters.get('volumes')
        if wanted is None:
            wanted = sorted(mapped)
        missing = [v for v in wanted if v not in mapped]
        if missing:
            raise base.NothingToDo(
                'volume(s) %s are not attached to the failed active %s, '
                'as Nova shows it: nothing moves; fix the audit\'s volumes'
                % (', '.join(missing), failed.uuid))
        doomed = [v for v in wanted if mapped[v]]
        if doomed:
            raise base.NothingToDo(
                'Nova would delete volume(s) %s with the failed active %s '
                '(delete_on_termination): nothing moves; keep them '
                '(openstack --os-compute-api-version 2.85 server volume '
                'update --no-delete-on-termination %s <volume>)'
                % (', '.join(doomed), failed.uuid, failed.uuid))
        return list(wanted)

    @staticmethod
    def _template(decision, members):
        """The member a replacement copies: the failed one, or when Nova
        has deleted it, the active one."""
        if decision.failed.status != members_mod.GONE:
            return decision.failed
        return next(m for m in members if m.role == members_mod.ACTIVE)

    @staticmethod
    def _replacement(solution, nova, failed, template, parameters, common):
        if parameters['replacement'] == members_mod.REPLACE_NONE:
            return 0
        server = nova.servers.get(template.uuid)
        image = getattr(server, 'image', None)
        if not image:
            # The failover itself must not wait for this.
            LOG.warning('Application of server group %s: member %s boots '
                        'from a volume, which a Nova replacement cannot '
                        'rebuild: it is not replaced; replace it by hand '
                        '(or set replacement "none")',
                        common['server_group'], template.uuid)
            return 0
        metadata = {key: value for key, value in
                    (server.metadata or {}).items()
                    if key != members_mod.REPLACES_KEY}
        metadata[parameters['role_key']] = members_mod.STANDBY
        metadata[members_mod.REPLACES_KEY] = failed.uuid
        networks = parameters.get('networks')
        if networks is None:
            networks = applications.networks(nova, template.uuid)
        solution.add_action('replace_member', dict(
            common, replaces=failed.uuid, resource_name=server.name,
            flavor=server.flavor.get('original_name')
            or server.flavor.get('id'),
            image=image['id'], key_name=getattr(server, 'key_name', None),
            metadata=metadata, networks=networks))
        return 1
