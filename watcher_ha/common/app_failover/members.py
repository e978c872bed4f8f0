"""The members of an active/standby application and what its failover
decides, as pure rules: who is active, who is unhealthy, and whether the
application fails over, replaces a standby, or is left alone (and why).

An application is a Nova server group; its members carry their role in
their metadata (``role=active`` on one, ``role=standby`` on the others,
the key configurable). A member is unhealthy when its host is down (Nova
counts it down: forced down, or silent past its service_down_time; or
instance HA is recovering it, reported failed), when Nova has
it in ERROR, or stopped, paused, suspended, shelved (nothing of it runs
the application), or when it is gone. On a trigger that reports the
application failed (``trigger`` ``failed``: an application monitor, an
Aodh alarm), the active is unhealthy whatever Nova shows.

The circuit breaker: more unhealthy members than ``max_unhealthy`` at
once is no failure of a member but of something wider (a partition, a
rack, the monitor): nothing moves.

The member that takes over must be able to take the volumes at once:
ACTIVE in Nova, with no task under way, on a host Nova counts up (a
standby still being built by the last failover is healthy, yet not a
successor). A trigger that reports the active failed within
``failed_grace`` seconds of its activation is the same alarm repeated:
the new active is not failed over for it.
"""

import dataclasses
import datetime

# The strategy that fails an application over (goal
# application_availability).
STRATEGY = 'active_standby'
ACTIVE = 'active'
STANDBY = 'standby'
# What the role of a member being failed over reads once it is replaced,
# for an operator reading the group meanwhile.
FAILED = 'failed'
DEFAULT_ROLE_KEY = 'role'
# The metadata key a replacement carries: the member it replaces (what
# makes a replacement happen once, whoever runs it).
REPLACES_KEY = 'watcher_ha:replaces'
# The metadata key an activated member carries: when (ISO 8601, UTC).
ACTIVATED_KEY = 'watcher_ha:activated_at'

# How the member that takes over is made active (the activate action):
# its metadata marked (always), and first a signed webhook or a signal
# to a resource of its Heat stack, or then a reboot through Nova.
ACTIVATE_METADATA = 'metadata'
ACTIVATE_WEBHOOK = 'webhook'
ACTIVATE_HEAT_SIGNAL = 'heat_signal'
ACTIVATE_REBOOT = 'reboot'
ACTIVATIONS = (ACTIVATE_METADATA, ACTIVATE_WEBHOOK, ACTIVATE_HEAT_SIGNAL,
               ACTIVATE_REBOOT)

# How a failed member is replaced: through the application's Heat stack
# when it belongs to one (which then keeps a true view of it), else a
# new server through Nova (auto); always one or the other; or not at all.
REPLACE_AUTO = 'auto'
REPLACE_NOVA = 'nova'
REPLACE_HEAT = 'heat'
REPLACE_NONE = 'none'
REPLACEMENTS = (REPLACE_AUTO, REPLACE_NOVA, REPLACE_HEAT, REPLACE_NONE)

# What a trigger means: look, and fail over what Nova shows failed; or
# the active has failed (an application monitor says so).
TRIGGER_CHECK = 'check'
TRIGGER_FAILED = 'failed'
TRIGGERS = (TRIGGER_CHECK, TRIGGER_FAILED)

# Nova statuses in which a member runs its application.
RUNNING = ('ACTIVE',)
# Nova statuses of a server on its way somewhere: not a failure.
MOVING = ('BUILD', 'MIGRATING', 'RESIZE', 'VERIFY_RESIZE', 'REBUILD',
          'REBOOT', 'HARD_REBOOT')

# The decisions.
FAIL_OVER = 'fail over'
REPLACE_STANDBY = 'replace standby'
NOTHING = 'nothing'


@dataclasses.dataclass(frozen=True)
class Member:
    uuid: str
    name: str
    role: str | None
    status: str                 # Nova's server status; GONE if deleted
    host: str | None
    host_down: bool             # Nova counts the host's compute down
    task_state: str | None = None
    # When it was last activated (ACTIVATED_KEY), naive UTC.
    activated_at: datetime.datetime | None = None
    # Why instance HA reports it failed (see reported_failure), or None.
    reported_failed: str | None = None

    @property
    def can_take_over(self):
        return (self.status == 'ACTIVE' and self.task_state is None
                and not self.host_down)


GONE = 'GONE'


def activated_at(metadata):
    """The activation time a member's metadata records, or None."""
    try:
        return datetime.datetime.fromisoformat(metadata[ACTIVATED_KEY])
    except (KeyError, TypeError, ValueError):
        return None


@dataclasses.dataclass(frozen=True)
class Report:
    """A failure instance HA gave up on: a VM notification of ``server``
    failed after its restarts, or a PROCESS notification (``process``) of
    ``host``; ``ended_at``: when (naive UTC)."""
    notification: str
    ended_at: datetime.datetime
    server: str | None = None
    host: str | None = None
    process: str | None = None


def reported_failure(member, reports, since=None):
    """Why instance HA reports ``member`` failed, from ``reports``
    (Report) that ended after ``since`` (the application's last plan) and
    after the member's activation; None when none does."""
    after = max((t for t in (since, member.activated_at) if t),
                default=None)
    for report in sorted(reports, key=lambda r: r.ended_at, reverse=True):
        if after is not None and report.ended_at <= after:
            continue
        if report.server is not None and report.server == member.uuid:
            return ('instance HA could not restart it (notification %s)'
                    % report.notification)
        if report.process and member.host and report.host == member.host:
            return ('process %s of its host %s stopped and its monitor '
                    'could not restart it (notification %s)' % (
                        report.process, member.host, report.notification))
    return None


def why_unhealthy(member):
    """Why ``member`` does not run its application, as Nova shows it or
    instance HA reports it (None: it runs, or is on its way
    somewhere)."""
    if member.status == GONE:
        return 'it is gone from Nova'
    if member.reported_failed:
        return member.reported_failed
    if member.host_down:
        return 'its host %s is down' % member.host
    if member.status in RUNNING or member.status in MOVING:
        return None
    return 'Nova shows it %s' % member.status


@dataclasses.dataclass(frozen=True)
class Decision:
    what: str
    reason: str
    failed: Member | None = None        # the member to fail over/replace
    successor: Member | None = None     # the standby that becomes active


def decide(members, max_unhealthy, trigger=TRIGGER_CHECK, now=None,
           failed_grace=0):
    """The Decision for an application whose ``members`` (Member) Nova
    shows now (``now``, naive UTC: when a repeated trigger is judged)."""
    actives = [m for m in members if m.role == ACTIVE]
    if len(actives) > 1:
        return Decision(NOTHING, 'members %s all have the role %s: mark one '
                                 'active and the others %s' % (
                                     ', '.join(m.uuid for m in actives),
                                     ACTIVE, STANDBY))
    unhealthy = {m.uuid: why_unhealthy(m) for m in members}
    active = actives[0] if actives else None
    if active is not None and trigger == TRIGGER_FAILED \
            and unhealthy[active.uuid] is None:
        since = (now - active.activated_at).total_seconds() \
            if now and active.activated_at else None
        if since is not None and since < failed_grace:
            return Decision(NOTHING, 'the active member %s was activated '
                                     '%d s ago, within failed_trigger_grace '
                                     '(%d s): a repeated alarm of the last '
                                     'failover, not a new failure' % (
                                         active.uuid, since, failed_grace))
        unhealthy[active.uuid] = 'the trigger reports it failed'
    unhealthy = {uuid: why for uuid, why in unhealthy.items() if why}
    if len(unhealthy) > max_unhealthy:
        return Decision(NOTHING, '%d of the %d members are unhealthy (%s), '
                                 'more than max_unhealthy (%d): nothing '
                                 'moves, since so many at once is no '
                                 'failure of a member but a partition or a '
                                 'wider fault; once it is understood, '
                                 'trigger the audit again (with a larger '
                                 'max_unhealthy if right)' % (
                                     len(unhealthy), len(members),
                                     '; '.join('%s: %s' % item for item in
                                               sorted(unhealthy.items())),
                                     max_unhealthy))
    if active is None:
        return Decision(NOTHING, 'no member has the role %s: mark the '
                                 'active member (server metadata)' % ACTIVE)
    standbys = [m for m in members if m.role == STANDBY]
    if active.uuid in unhealthy:
        healthy = [m for m in standbys
                   if m.uuid not in unhealthy and m.can_take_over]
        if not healthy:
            return Decision(NOTHING, 'the active member %s is unhealthy '
                                     '(%s) and no standby can take over '
                                     '(ACTIVE, with no task, on a host that '
                                     'is up): nothing to fail over to; '
                                     'trigger the audit again once one can'
                            % (active.uuid, unhealthy[active.uuid]),
                            failed=active)
        successor = sorted(healthy, key=lambda m: (m.name, m.uuid))[0]
        return Decision(FAIL_OVER, 'the active member %s is unhealthy: %s'
                        % (active.uuid, unhealthy[active.uuid]),
                        failed=active, successor=successor)
    sick = sorted((m for m in standbys if m.uuid in unhealthy),
                  key=lambda m: m.uuid)
    if sick:
        return Decision(REPLACE_STANDBY, 'the standby %s is unhealthy: %s'
                        % (sick[0].uuid, unhealthy[sick[0].uuid]),
                        failed=sick[0])
    return Decision(NOTHING, 'every member is healthy (active: %s)'
                    % active.uuid)
