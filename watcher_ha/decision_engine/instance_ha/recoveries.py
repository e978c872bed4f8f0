"""Host notifications as owned work of the decision engines (instance HA):
each one's recovery, from new to finished or failed.

A notification of each type is recovered by an audit of its own strategy:
a host that stopped (COMPUTE_HOST) by host_recovery, below; a server
whose guest failed (VM) by instance_recovery, which restarts it; a
process that stopped (PROCESS) by process_recovery, which puts the host
on maintenance and, for nova-compute, disables its compute service.
Which reports need no recovery follows Masakari
(common/instance_ha/failures.py: only the libvirt events of a failure,
only HA_Enabled servers unless ``[instance_ha] process_all_instances``,
never a paused or rescued server); the engine records them as ignored,
saying why. Attempts, their retries and their take-over are the same for
the three.

An engine takes a new COMPUTE_HOST notification of a host that stopped,
in an enabled segment, seen powered off by its monitor (host_status
NORMAL) or to be powered off by the recovery itself (power fencing: for
host_status UNKNOWN, or for every report as the segment says), and
starts an attempt: a host_recovery audit
(db/recoveries.py), which it computes itself at once; the plan starts by
itself and an applier runs it (fenced, taken over if its applier dies).
Meanwhile the engine holds the notification and does nothing: whoever
ends the plan (or the audit, without a plan) casts ``follow_recovery``
to it after that commit (decision_engine/rpcapi.py), and it ends the
attempt then: finished if the plan succeeded; otherwise error, and a new
attempt. A recovery plan that waits for the plans it preempts is moved
on by the same message, sent when any plan ends. A message lost is made
up for by the engine's self-check (service/ownership.py), which resumes
the notifications whose attempt has a step to take
(common/instance_ha/attempts.py) and no job on them: the safety net,
every [watcher_decision_engine] sweep_interval, not the way an attempt
normally ends. Each attempt uses one
method: ``reserved_host`` or ``auto`` as the segment says, while
``auto_priority`` and ``rh_priority`` make rounds of two attempts, the
second, with the other method, at once when the first fails
(statuses.ROUNDS). A new round starts after
``[instance_ha] recovery_retry_interval``, until
``[instance_ha] recovery_attempts`` rounds have failed: then the
notification is failed, the reserved hosts its recovery left empty go
back to the pool, and the failed host is put on maintenance. A report of
a host that came back (STARTED), or from a disabled segment, is ignored.

Before a failed host's recovery starts, the audits of the applications
declared for failover with a member on it are triggered
(doc/source/app_failover.rst): each fails its application over, and
host_recovery leaves their members alone. A VM notification failed after
its restarts, and a PROCESS notification as it ends, trigger the audit
of the member's application with the same commit: its run counts the
member failed.

If the engine dies, its notifications are adopted by another engine,
which looks at the attempt under way (or starts the next); the recovery
audit and plan have owners of their own and go on meanwhile. The end of
a plan reads the notification's owner after its own commit, and an
adopter reads the attempt after its adoption's: either the message
reaches the adopter, or the adopter sees the end.
"""

from keystoneauth1 import exceptions as ks_exc
from novaclient import exceptions as nova_exc
from oslo_config import cfg
from oslo_log import log

from watcher_ha.cloud import clients
from watcher_ha.cloud import compute_services
from watcher_ha.cloud import reserved_pool
from watcher_ha.common import context as watcher_context
from watcher_ha.common import exception as exception_mod
from watcher_ha.common.instance_ha import attempts
from watcher_ha.common.instance_ha import exception
from watcher_ha.common.instance_ha import failures
from watcher_ha.common.instance_ha import statuses
from watcher_ha.db import audits
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.db import models
from watcher_ha.db import recoveries
from watcher_ha.db import reserved_hosts
from watcher_ha.db import webhook_triggers
from watcher_ha.decision_engine import app_failover
from watcher_ha.decision_engine import preemption
from watcher_ha.notifications import notifier
from watcher_ha.service import ownership

CONF = cfg.CONF
LOG = log.getLogger(__name__)


def _power_fencing(segment):
    """Whether recoveries in ``segment`` power the failed host off:
    'never', 'unknown' (when its report says host_status UNKNOWN) or
    'always'; 'never' without Ironic credentials."""
    if clients.configured(CONF, clients.IRONIC_GROUP):
        return 'never'
    return CONF.instance_ha.segment_power_fencing.get(
        segment['name'], CONF.instance_ha.power_fencing)


def _unknown(row):
    return row['payload'].get('host_status') == 'UNKNOWN'


def _fenced_by_power(row, segment):
    """Whether the recovery of ``row`` powers its host off first."""
    mode = _power_fencing(segment)
    return mode == 'always' or (mode == 'unknown' and _unknown(row))


def _not_recovered(row, segment):
    """Why ``row`` needs no recovery (None: it does), from the report and
    its segment alone (a VM report's server is looked at in Nova next)."""
    if row['type'] == statuses.VM:
        reason = failures.event_not_recovered(row['payload'])
    elif row['type'] == statuses.PROCESS:
        reason = failures.process_not_recovered(row['payload'])
    elif row['payload'].get('event') != 'STOPPED':
        reason = 'the host reports it is %s: nothing to recover' % (
            row['payload'].get('event'))
    else:
        reason = None
    if reason:
        return reason
    if segment is None:
        return 'its failover segment no longer exists'
    if not segment['enabled']:
        return ('its failover segment %s is disabled: enable it to have '
                'its failures recovered' % segment['name'])
    if row['type'] != statuses.COMPUTE_HOST:
        return None
    if _unknown(row) and not _fenced_by_power(row, segment):
        # Nobody saw it powered off: it may still run its servers, and
        # evacuating them would run each twice.
        return ('nobody could tell whether the host is powered off '
                '(host_status UNKNOWN): its servers may still run there, '
                'and power fencing is unavailable for segment %s (%s). '
                'Power the host off, then report it again with '
                'host_status NORMAL' % (segment['name'], (
                    clients.configured(CONF, clients.IRONIC_GROUP)
                    or '[instance_ha] power_fencing is never for it')))
    return None


def _notification(context, uuid):
    try:
        return host_notifications.get_notification(context, uuid)
    except exception.NotificationNotFound:
        return None


def _segment(context, uuid):
    try:
        return failover_segments.get_segment(context, uuid)
    except exception.SegmentNotFound:
        return None


def _round(segment, kind=statuses.COMPUTE_HOST):
    """The methods one round of the segment's recovery of a ``kind``
    notification tries (a server or process: one attempt, no method)."""
    if kind != statuses.COMPUTE_HOST:
        return (None,)
    method = segment['recovery_method'] if segment else statuses.AUTO
    return statuses.ROUNDS.get(method, (statuses.AUTO,))


def _method(segment, attempt):
    """The method of attempt number ``attempt`` (from 1)."""
    methods = _round(segment)
    return methods[(attempt - 1) % len(methods)]


def _server_not_recovered(row):
    """Why the server of the VM notification ``row`` is not restarted, as
    Nova shows it now (None: it is, or Nova cannot tell: the action checks
    again when it runs)."""
    uuid = row['payload']['instance_uuid']
    if clients.configured(CONF):
        return None
    try:
        server = clients.nova(CONF).servers.get(uuid)
    except nova_exc.NotFound:
        return 'server %s does not exist: nothing to restart' % uuid
    except (ks_exc.ClientException, nova_exc.ClientException) as err:
        LOG.warning('Notification %s: could not read server %s (%s); '
                    'its recovery checks it when it runs', row['uuid'],
                    uuid, err)
        return None
    return failures.server_not_recovered(
        uuid, server.metadata,
        getattr(server, 'OS-EXT-STS:vm_state', None),
        CONF.instance_ha.process_all_instances)


def _attempt(context, row, segment):
    """(strategy, parameters, what to log) of the next attempt."""
    payload = row['payload']
    if row['type'] == statuses.VM:
        return recoveries.STRATEGIES[statuses.VM], {
            'notification_uuid': row['uuid'],
            'instance_uuid': payload['instance_uuid'],
            'process_all_instances':
                CONF.instance_ha.process_all_instances}, 'restart'
    host = recoveries.host_name(context, row['source_host_uuid'])
    if row['type'] == statuses.PROCESS:
        return recoveries.STRATEGIES[statuses.PROCESS], {
            'notification_uuid': row['uuid'],
            'segment_uuid': row['failover_segment_uuid'],
            'host': host,
            'process_name': payload['process_name']}, payload[
                'process_name']
    method = _method(segment, row['attempts'] + 1)
    return recoveries.STRATEGIES[statuses.COMPUTE_HOST], {
        'notification_uuid': row['uuid'],
        'segment_uuid': row['failover_segment_uuid'],
        'failed_host': host,
        'recovery_method': method,
        'power_fencing': bool(segment) and _fenced_by_power(row, segment),
        'evacuate_all_instances': CONF.instance_ha.evacuate_all_instances,
        'add_reserved_host_to_aggregate':
            CONF.instance_ha.add_reserved_host_to_aggregate,
        'max_evacuations': CONF.instance_ha.max_evacuations,
        'max_evacuations_window':
            CONF.instance_ha.max_evacuations_window}, method


class Recoveries:
    """Notifications as owned work (ownership.Domain)."""

    kind = 'notification'

    def __init__(self, host, stopping, trigger_audit):
        self.host = host
        self.stopping = stopping
        # Runs an audit on this engine, as the audits' own work.
        self.trigger_audit = trigger_audit

    def _context(self):
        return watcher_context.admin_context()

    # ownership.Domain.

    def unclaimed(self, context):
        return recoveries.unclaimed(
            context, CONF.watcher_decision_engine.pending_grace)

    def held(self, context):
        # A running notification needs its owner's work only when its
        # attempt has a step to take; meanwhile the end of its plan (or
        # audit) comes as a message, and the self-check resumes it only
        # if that message was lost.
        return [ownership.Held(uuid, owner, needs_worker=needs_owner)
                for uuid, owner, needs_owner in recoveries.held(context)]

    def take(self, uuid):
        self._run(uuid)

    def adopt(self, context, held, gone):
        return recoveries.change_owner(context, held.uuid, gone, self.host)

    def resume(self, uuid, why, previous):
        self._run(uuid)

    def hand_over(self, context, held, to):
        return False

    def request_id(self, uuid):
        # Not recorded for host notifications: their audits and plans
        # are logged under their own.
        return None

    def interrupt(self, uuids, why=None):
        # A recovery's effects are its audit's and plan's, which have
        # owners of their own; following it stops with ``stopping``.
        return set()

    def release(self, context):
        released = recoveries.release(context, self.host)
        if released:
            LOG.info('Handed %d notification(s) back to the other engines',
                     released)

    # The recovery.

    def _run(self, uuid):
        context = self._context()
        row = _notification(context, uuid)
        if row is None:
            return
        if row['state'] == statuses.NEW:
            segment = _segment(context, row['failover_segment_uuid'])
            reason = _not_recovered(row, segment)
            if reason is None and row['type'] == statuses.VM:
                reason = _server_not_recovered(row)
            if reason is not None:
                if recoveries.ignore(context, uuid, self.host, reason):
                    LOG.info('Notification %s ignored: %s', uuid, reason)
                return
            row = self._start(context, row, segment)
        elif row['hostname'] is None:
            # Handed back by an engine that stopped.
            if not recoveries.change_owner(context, uuid, None, self.host):
                return
            row = _notification(context, uuid)
        try:
            self._follow(context, row)
        except recoveries.LostOwnership:
            LOG.info('Notification %s is no longer %s\'s', uuid, self.host)

    def _start(self, context, row, segment=None):
        """A new attempt of ``row`` (new, or in error); the row after, or
        None if another engine moved it first."""
        segment = segment or _segment(context,
                                      row['failover_segment_uuid'])
        strategy, parameters, what = _attempt(context, row, segment)
        if row['type'] == statuses.COMPUTE_HOST:
            self._fail_applications_over(context, row,
                                         parameters['failed_host'])
        audit = recoveries.start_attempt(context, row, self.host,
                                         parameters, strategy)
        if audit is None:
            return None
        LOG.info('Notification %s: attempt %d (%s), recovery audit %s',
                 row['uuid'], row['attempts'] + 1, what, audit)
        # Computed here at once, as the audits' own work (the audits'
        # sweep takes it if this engine dies first); its end comes back
        # as a message (Endpoints.follow_recovery).
        self.trigger_audit(audit)
        return _notification(context, row['uuid'])

    def _fail_applications_over(self, context, row, host):
        """Trigger the audit of each declared application with a member
        on the failed ``host``, which fails it over (or replaces a
        standby); host_recovery leaves those members alone. Triggered
        again on a later attempt, or by an adopter, an application's
        audit finds its failover done or under way and does nothing."""
        found = self._applications(
            row, lambda nova: app_failover.members_on(context, nova, host))
        self._announce(row, self._trigger(context, row, found))

    def _end(self, context, row, target, message):
        """End the attempt of ``row`` (``target``: finished, error,
        failed). A failure instance HA gives up on (a VM whose restarts
        were all used up, a PROCESS of a host) triggers, in the same
        transaction, the audit of the member's application, whose run
        counts it failed (common/app_failover/members.py): an engine that
        dies in between ends neither, and its adopter does both."""
        found = []
        if (row['type'] == statuses.VM and target == statuses.FAILED) or (
                row['type'] == statuses.PROCESS and target in (
                    statuses.FINISHED, statuses.FAILED)):
            found = self._applications(row, lambda nova: self._members_of(
                context, nova, row))
        triggered = []
        recoveries.end_attempt(
            context, row['uuid'], self.host, target, message,
            then=lambda ctx: triggered.extend(self._trigger(ctx, row,
                                                            found)))
        self._announce(row, triggered)

    @staticmethod
    def _members_of(context, nova, row):
        """{uuid: application audit row} of the members a VM or PROCESS
        notification ``row`` concerns: its server, or its host's."""
        if row['type'] == statuses.VM:
            return app_failover.members_among(
                context, nova, {row['payload']['instance_uuid']})
        return app_failover.members_on(
            context, nova,
            recoveries.host_name(context, row['source_host_uuid']))

    @staticmethod
    def _applications(row, members_of):
        """[application audit row] of the members ``members_of(nova)``
        finds ({server uuid: audit row}); none when Nova cannot say."""
        if clients.configured(CONF):
            return []
        try:
            members = members_of(clients.nova(CONF))
        except (ks_exc.ClientException, nova_exc.ClientException,
                LookupError) as err:
            LOG.warning('Notification %s: could not read the applications '
                        'it concerns (%s); their audits run when triggered',
                        row['uuid'], err)
            return []
        return list({a['uuid']: a for a in members.values()}.values())

    @staticmethod
    def _trigger(context, row, applications):
        """Trigger the audits of ``applications``; [(audit row as it was,
        its name)] of those triggered."""
        triggered = []
        for audit in applications:
            try:
                found = audits.get(context, audit['uuid'])
                webhook_triggers.trigger(context, found)
            except (exception_mod.Invalid, exception_mod.Conflict,
                    exception_mod.NotFound) as err:
                LOG.info('Notification %s: application audit %s not '
                         'triggered: %s', row['uuid'], audit['uuid'], err)
                continue
            triggered.append(found)
        return triggered

    def _announce(self, row, triggered):
        """After the trigger's commit: say so, and run each audit."""
        for found in triggered:
            LOG.info('Notification %s (%s) concerns members of application '
                     'audit %s (%s): triggered', row['uuid'], row['type'],
                     found['uuid'], found['name'])
            notifier.audit('update', found['uuid'],
                           old_state=found['state'])
            self.trigger_audit(found['uuid'])

    def _follow(self, context, row):
        while row is not None and row['hostname'] == self.host:
            if row['state'] == statuses.RUNNING:
                target, message = self._outcome(context, row)
                if target is None:
                    # Under way: the end of its plan or audit comes as a
                    # message (rpcapi.plan_ended, audit_ended).
                    return
                self._end(context, row, target, message)
                LOG.info('Notification %s: %s%s', row['uuid'], target,
                         ' (%s)' % message if message else '')
            elif row['state'] == statuses.ERROR:
                segment = _segment(context, row['failover_segment_uuid'])
                width = len(_round(segment, row['type']))
                if row['attempts'] >= (CONF.instance_ha.recovery_attempts
                                       * width):
                    self._give_up(context, row)
                    return
                # The next method of a round follows at once; a new round
                # waits.
                if row['attempts'] % width == 0 and self.stopping.wait(
                        CONF.instance_ha.recovery_retry_interval):
                    return
                row = self._start(context, row, segment)
                continue
            else:
                return
            row = _notification(context, row['uuid'])

    def _give_up(self, context, row):
        """error -> failed after the last attempt: the reserved hosts the
        recovery of a host left empty go back to the pool, and the failed
        host (or the host whose process stopped) is put on maintenance,
        as a recovery that succeeded leaves them."""
        uuid = row['uuid']
        message = 'gave up after %d attempt(s); the last: %s' % (
            row['attempts'], row['message'])

        def fence():
            if not recoveries.owns(context, uuid, self.host):
                raise recoveries.LostOwnership(uuid)

        if row['type'] == statuses.COMPUTE_HOST:
            message += self._give_back(context, uuid, fence)
        if row['type'] != statuses.VM:
            fence()
            failover_segments.set_maintenance(
                context, row['failover_segment_uuid'],
                recoveries.host_name(context, row['source_host_uuid']))
        self._end(context, row, statuses.FAILED, message)
        LOG.info('Notification %s: failed (%s)', uuid, message)

    def _give_back(self, context, uuid, fence):
        """Give the reserved hosts the recovery ``uuid`` left empty back
        to the pool; what the message adds about those it could not."""
        try:
            reason = clients.configured(CONF)
            if reason:
                raise compute_services.ServiceError(reason)
            reserved_pool.give_back(
                context, clients.nova(CONF, before_write=fence), uuid,
                fence)
        except (compute_services.ServiceError, ks_exc.ClientException,
                nova_exc.ClientException) as err:
            held = reserved_hosts.held_by(context, uuid)
            LOG.warning('Notification %s: could not give back reserved '
                        'host(s) %s: %s', uuid, ', '.join(held), err)
            if held:
                return (' (reserved host(s) %s stay claimed: %s; set each '
                        'one reserved again once it is empty and disabled '
                        'in Nova)' % (', '.join(held), err))
        return ''

    def _outcome(self, context, row):
        """Where the attempt under way stands: (finished or error,
        message) once it is over, (None, None) while it goes on. A plan
        waiting for the plans it preempts takes a step: the holders
        still running are cancelled, and it starts once they have let
        go (each of their ends brings a message here again); after
        ``[instance_ha] preemption_timeout`` from its making, the
        attempt fails."""
        found = recoveries.attempt(context, row['recovery_audit_uuid'])
        ended = attempts.outcome(found)
        if ended is not None:
            return ended
        if not attempts.waits_for_preemption(found):
            return None, None
        plan = found['plan']
        outcome, why = preemption.step(context, plan['uuid'])
        waited = (models.utcnow() - plan['created_at']).total_seconds()
        if outcome == preemption.BLOCKED or (
                outcome == preemption.WAITING
                and waited > CONF.instance_ha.preemption_timeout):
            return statuses.ERROR, (
                'the recovery plan could not start: %s' % (
                    why or found['status_message']
                    or 'see the decision engine\'s log'))
        return None, None
