"""A recovery goes before optimisation: the started plans that hold a
recovery plan's servers or hosts are cancelled, and the recovery plan is
started once they have let go.

A recovery plan is stored started (its audit is auto-triggered) unless
another started plan holds something it acts on: a migration plan of the
failed host's servers, a drain of that host. It is then RECOMMENDED, and
the engine that owns the recovery calls ``step`` when the audit ends and
again at the end of every plan (a message: rpcapi.plan_ended) until it
has started it: each step cancels the holders still running (a PENDING
plan at once, an ONGOING one is asked to cancel: its applier stops it
between actions and aborts those under way) and tries to start the
recovery plan, which succeeds once every holder has ended and released
its claims. Another
recovery's plan is never cancelled: a recovery waits for it, as for
anything else, and says so.

Each step is a compare-and-swap on the plans' state machines, so engines
that race (a take-over) or an operator acting meanwhile change nothing
twice; the launch goes to the appliers after the commit, as the API's.
"""

from oslo_log import log

from watcher_ha.applier import rpcapi as applier_rpcapi
from watcher_ha.common import exception
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionPlanState as P
from watcher_ha.db import action_plans
from watcher_ha.decision_engine import rpcapi
from watcher_ha.notifications import notifier

LOG = log.getLogger(__name__)

STARTED = 'started'
WAITING = 'waiting'
BLOCKED = 'blocked'

# What a holder is moved to: a plan not taken yet ends at once, a running
# one is stopped by its applier.
CANCEL = {P.PENDING: P.CANCELLED, P.ONGOING: P.CANCELLING}


def step(context, plan_uuid):
    """One step of starting the recovery plan ``plan_uuid``: (STARTED,
    None) once it is started (by this step or before it), (WAITING, who)
    while holders are ending, (BLOCKED, why) if another recovery holds
    what it needs."""
    plan = action_plans.get_plan(context, plan_uuid)
    if plan['state'] != P.RECOMMENDED:
        return STARTED, None
    holders = action_plans.holders(context, plan)
    recovering = [h['uuid'] for h in holders if h['recovery']]
    if recovering:
        return BLOCKED, ('the recovery plan(s) %s hold some of its servers '
                         'or hosts' % ', '.join(recovering))
    for holder in holders:
        _cancel(context, holder, plan_uuid)
    try:
        action_plans.transition(context, plan, P.PENDING,
                                actor=state_machines.SERVICE)
    except exception.Conflict:
        return WAITING, ', '.join('%s (%s)' % (h['uuid'], h['state'])
                                  for h in holders)
    except exception.StateTransitionNotAllowed:
        return STARTED, None    # moved meanwhile: the next look says how
    notifier.action_plan('update', plan_uuid, old_state=P.RECOMMENDED)
    applier_rpcapi.ApplierAPI().launch_action_plan(context, plan_uuid)
    LOG.info('Recovery plan %s started, ahead of the plans it preempted',
             plan_uuid)
    return STARTED, None


def _cancel(context, holder, recovery_plan):
    target = CANCEL.get(holder['state'])
    if target is None:
        return      # cancelling, or ended: it lets go by itself
    row = action_plans.get_plan(context, holder['uuid'])
    try:
        moved = action_plans.transition(context, row, target,
                                        actor=state_machines.SERVICE)
    except (exception.StateTransitionNotAllowed, exception.Conflict):
        return      # it moved meanwhile
    LOG.warning('Action plan %s (%s) is cancelled: it holds servers or '
                'hosts of the recovery plan %s', holder['uuid'],
                holder['state'], recovery_plan)
    notifier.action_plan('update', holder['uuid'],
                         old_state=holder['state'])
    notifier.actions_followed(moved)
    if target in action_plans.ENDED:
        # Other recoveries may wait for it too.
        rpcapi.DecisionEngineAPI().plan_ended(context, holder['uuid'])
