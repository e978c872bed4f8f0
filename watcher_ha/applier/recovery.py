"""Plans whose applier died while running them.

The applier that adopts such a plan (its own, found at start-up, or a
gone peer's) resolves it by ``[watcher_applier] recovery``: ``cancel``
ends it CANCELLED with every unfinished action; ``resume`` asks each
interrupted action whether its effect is in place, then lets the plan run
on from there. An action that cannot tell fails the plan: running it again
could do it twice.
"""

from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier.actions import base as action_base
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import plan_runs
from watcher_ha.notifications import notifier

CONF = cfg.CONF
LOG = log.getLogger(__name__)

CANCEL = 'cancel'
RESUME = 'resume'

# An interrupted action's fate, by what ``recover`` found.
_VERDICT_STATE = {
    action_base.DONE: ActionState.SUCCEEDED,
    action_base.NOT_DONE: ActionState.PENDING,
    action_base.UNKNOWN: ActionState.FAILED,
}


def resolve(context, plan, host, catalog, lost_host):
    """Settle ``plan`` (now owned by ``host``); True if it should run on."""
    mode = CONF.watcher_applier.recovery
    if plan['state'] == ActionPlanState.CANCELLING:
        # Its operator asked for the cancel: finish it.
        mode = CANCEL
    reason = 'its applier %s was lost while running it' % lost_host
    if mode == CANCEL:
        _end(context, plan, host, ActionPlanState.CANCELLED,
             '%s (recovery = cancel)' % reason)
        return False
    return settle_interrupted(context, plan, host, catalog, reason)


def settle_interrupted(context, plan, host, catalog, reason):
    """Ask each action of ``plan`` left ONGOING (its applier stopped or
    died, for ``reason``) whether its effect is in place: DONE ones are
    SUCCEEDED, NOT_DONE ones PENDING again; one that cannot tell fails the
    plan. True if the plan should run on."""
    for action in plan_runs.interrupted(context, plan):
        verdict = _verdict(context, catalog, action)
        target = _VERDICT_STATE[verdict]
        message = ('interrupted: %s; its effect could not be checked'
                   % reason if verdict == action_base.UNKNOWN else None)
        LOG.info('Action %s of plan %s was interrupted: %s -> %s',
                 action['uuid'], plan['uuid'], verdict, target)
        if plan_runs.move_action(context, plan, host, action,
                                 ActionState.ONGOING, target, message):
            notifier.action('update', action['uuid'],
                            old_state=ActionState.ONGOING)
        if target == ActionState.FAILED:
            _end(context, plan, host, ActionPlanState.FAILED,
                 'action %s: %s' % (action['uuid'], message))
            return False
    return True


def _verdict(context, catalog, action):
    cls = catalog.get(action['action_type'])
    if cls is None:
        return action_base.UNKNOWN
    try:
        plugin = cls(action['input_parameters'], context)
        started = action['updated_at'] or action['created_at']
        return plugin.recover(started)
    except Exception:  # noqa: BLE001
        LOG.exception('Checking interrupted action %s failed',
                      action['uuid'])
        return action_base.UNKNOWN


def _end(context, plan, host, state, message):
    finished = plan_runs.finish(context, plan, host, state, message,
                                unfinished=plan_runs.UNFINISHED)
    if finished is None:
        return
    before, cancelled = finished
    LOG.warning('Action plan %s %s: %s', plan['uuid'], state, message)
    notifier.action_plan('update', plan['uuid'], old_state=before)
    notifier.actions_followed(cancelled)
