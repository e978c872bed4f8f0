"""Plans whose run stopped in the middle, picked up by their new runner.

Four ways to get here: an applier adopted the plan of a gone peer; an
applier found at start-up the plans of its own earlier life; an applier's
self-check found a plan it holds that no run works on (a database error
ended the run); an applier took a plan that another handed back as it
stopped. The actions left ONGOING were interrupted:
their effect may or may not be in the cloud.

``[watcher_applier] recovery`` says what happens to the plan of an
applier that died (adopted, restarted): ``cancel`` ends it CANCELLED,
``resume`` lets it run on. A stranded or handed-back plan always runs on:
nobody died. A plan being cancelled ends
CANCELLED in every case.

Either way, each interrupted action that touches the cloud is first asked
(``recover()``, through its fence) what became of it: DONE counts as
SUCCEEDED; NOT_DONE runs again (resume) or is CANCELLED (cancel); UNKNOWN
fails the action and the plan rather than risk running it twice. An
action that touches nothing (sleep, nop) is resumed by recover() or simply
cancelled. Before asking, an adopter waits for any call its predecessor
let through the fence to land (fencing.wait_for_calls_in_flight).
"""

from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier.actions import base as action_base
from watcher_ha.applier import fencing
from watcher_ha.common import ownership
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import plan_runs
from watcher_ha.notifications import notifier

CONF = cfg.CONF
LOG = log.getLogger(__name__)

CANCEL = 'cancel'
RESUME = 'resume'

# A plan taken from PENDING that its previous applier handed back as it
# stopped, with the actions it interrupted still ONGOING.
HANDED_BACK = 'handed back'

# An interrupted action's fate, by what ``recover`` found and whether the
# plan goes on.
_VERDICT_STATE = {
    (RESUME, action_base.DONE): ActionState.SUCCEEDED,
    (RESUME, action_base.NOT_DONE): ActionState.PENDING,
    (RESUME, action_base.UNKNOWN): ActionState.FAILED,
    (CANCEL, action_base.DONE): ActionState.SUCCEEDED,
    (CANCEL, action_base.NOT_DONE): ActionState.CANCELLED,
    (CANCEL, action_base.UNKNOWN): ActionState.FAILED,
}


def reason_for(why, host, previous):
    return {
        ownership.ADOPTED: 'its applier %s was lost while running it'
                           % previous,
        ownership.RESTARTED: 'its applier %s was lost while running it '
                             '(it restarted)' % host,
        ownership.STRANDED: 'its run on %s stopped unexpectedly' % host,
        HANDED_BACK: 'the applier running it stopped',
    }[why]


def mode_for(plan, why):
    if plan['state'] == ActionPlanState.CANCELLING:
        # Its operator asked for the cancel: finish it.
        return CANCEL
    if why in (ownership.STRANDED, HANDED_BACK):
        # Nobody died: the plan goes on where it stopped.
        return RESUME
    return CONF.watcher_applier.recovery


class Recovery:
    """The settling of one plan now run by ``host``."""

    def __init__(self, context, plan, host, catalog, why, previous,
                 stopping):
        self.context = context
        self.plan = plan
        self.host = host
        self.catalog = catalog
        self.why = why
        self.reason = reason_for(why, host, previous)
        self.mode = mode_for(plan, why)
        self.stopping = stopping

    def settle(self):
        """Settle the interrupted actions, and end the plan if it does not
        run on; True if it should run on."""
        interrupted = plan_runs.interrupted(self.context, self.plan)
        if (interrupted and self.why != ownership.STRANDED
                and not fencing.wait_for_calls_in_flight(
                    self.context, self.plan, self.stopping)):
            return False
        for action in interrupted:
            target, message = self._fate(action)
            LOG.info('Action %s of plan %s was interrupted (%s): %s',
                     action['uuid'], self.plan['uuid'], self.reason, target)
            if plan_runs.move_action(self.context, self.plan, self.host,
                                     action, ActionState.ONGOING, target,
                                     message) is not None:
                notifier.action('update', action['uuid'],
                                old_state=ActionState.ONGOING)
            if target == ActionState.FAILED and self.mode == RESUME:
                self._end(ActionPlanState.FAILED,
                          'action %s: %s' % (action['uuid'], message))
                return False
        if self.mode == CANCEL:
            self._end(ActionPlanState.CANCELLED,
                      '%s (recovery = cancel)' % self.reason
                      if self.plan['state'] != ActionPlanState.CANCELLING
                      else None)
            return False
        return True

    def _fate(self, action):
        """(the state an interrupted action goes to, its message)."""
        cls = self.catalog.get(action['action_type'])
        touches_cloud = cls is None or cls.resources(
            action['input_parameters'] or {})
        if self.mode == CANCEL and not touches_cloud:
            return ActionState.CANCELLED, None
        verdict = self._verdict(cls, action)
        if verdict == action_base.UNKNOWN:
            return ActionState.FAILED, (
                'interrupted: %s; its effect could not be checked'
                % self.reason)
        return _VERDICT_STATE[self.mode, verdict], None

    def _verdict(self, cls, action):
        if cls is None:
            return action_base.UNKNOWN
        fence = fencing.Fence(self.context, self.plan, self.host, action,
                              ActionState.ONGOING, action['version'],
                              self._halted)
        try:
            plugin = cls(action['input_parameters'], self.context, fence)
            started = action['updated_at'] or action['created_at']
            return plugin.recover(started)
        except fencing.Fenced:
            # Not ours to settle any more (or the applier stops).
            raise
        except Exception:  # noqa: BLE001
            LOG.exception('Checking interrupted action %s failed',
                          action['uuid'])
            return action_base.UNKNOWN

    def _halted(self):
        if self.stopping.is_set():
            return 'the applier %s is stopping' % self.host
        return None

    def _end(self, state, message):
        ended = plan_runs.finish(self.context, self.plan, self.host, state,
                                 message, unfinished=plan_runs.UNFINISHED)
        if ended is None:
            return
        LOG.warning('Action plan %s %s%s', self.plan['uuid'], ended.state,
                    ': %s' % ended.message if ended.message else '')
        notifier.action_plan('update', self.plan['uuid'],
                             old_state=ended.before)
        notifier.actions_followed(ended.cancelled)
