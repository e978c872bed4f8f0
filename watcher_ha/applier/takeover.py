"""Plans whose run stopped in the middle, picked up by their new runner.

Four ways to get here: an applier adopted the plan of a gone peer; an
applier found at start-up the plans of its own earlier life; an applier's
self-check found a plan it holds that no run works on (a database error
ended the run); an applier took a plan that another handed back as it
stopped. The actions left ONGOING were interrupted:
their effect may or may not be in the cloud.

``[watcher_applier] recovery`` says what happens to the plan of an
applier that died: ``cancel`` ends it CANCELLED, ``resume`` lets it run
on; the recovery of a failure (instance HA's, an application's failover)
always runs on. A plan handed back by an applier that stopped runs on:
nobody died. A plan whose taking or settling a database error cut short
is settled again for what it was taken for (applier/manager.py remembers
it until its settling is done): a plan adopted from a dead applier is
still resolved as one, even once nothing of it is left interrupted. Any
other stranded plan runs on if every interrupted action was started by
this process (its run stopped on a database error); otherwise it is
resolved as the plan of a dead applier. A plan being cancelled ends
CANCELLED in every case, and so does a plan with a CANCELLED action,
whoever looks at it and why: only a settling that chose to cancel it
leaves one in a running plan. Whatever is chosen, a plan with a
CANCELLED or FAILED action never ends SUCCEEDED: the action plan machine
guards that move (common/state_machines.py, db/plan_runs.finish).

Either way, each interrupted action that touches the cloud is first asked
(``recover()``, through its fence) what became of it: DONE counts as
SUCCEEDED; NOT_DONE runs again (resume) or is CANCELLED (cancel); UNKNOWN
fails the action (and, resumed, the plan) rather than risk running it
twice. An action that touches nothing (sleep, nop) is resumed by
recover() or simply cancelled. In a plan its operator is cancelling, an
interrupted action is first asked to ``cancel()`` what may still run in
the cloud (a live migration is aborted in Nova), as its run would have
done had its applier lived. Before asking about an action another
process started, the applier waits for any call let through its fence to
land (fencing.wait_for_calls_in_flight).
"""

from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier import fencing
from watcher_ha.applier import metrics
from watcher_ha.applier import plan_end
from watcher_ha.applier.actions import base as action_base
from watcher_ha.common import urgency
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import plan_runs
from watcher_ha.notifications import notifier
from watcher_ha.service import ownership

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
        ownership.STRANDED: 'an earlier run of it stopped in the middle',
        HANDED_BACK: 'the applier running it stopped',
    }[why]


# The recovery of a failure (a host's, a server's, a process's, an
# application's) is what high availability is for: whoever takes it over
# carries it on, whatever [watcher_applier] recovery says (its actions
# tell what is done; an operator may still cancel it). An application's
# failover cancelled past its eviction would leave it with no active
# member and its volumes attached to nobody.
ALWAYS_RESUMED = urgency.RECOVERY_STRATEGIES


class Takeover:
    """The settling of one plan now run by ``host``.

    ``started_here``: the actions of the plan this process started (its
    runs that stopped short): a stranded plan whose interrupted actions
    are all among them was not left by a dead applier, and none of its
    calls can still be on the wire. Any other interrupted action was
    started by another applier, or an earlier life of this one, whatever
    brought the plan here: the plan is resolved as the plan of a lost
    applier, and calls let through its fence must land first.
    """

    def __init__(self, context, plan, host, action_classes, why, previous,
                 stopping, started_here=frozenset()):
        self.context = context
        self.plan = plan
        self.host = host
        self.action_classes = action_classes
        # Adopted from nobody: a stopping applier handed it back (a plan
        # being cancelled, with actions it interrupted).
        self.why = (HANDED_BACK if why == ownership.ADOPTED
                    and previous is None else why)
        self.reason = reason_for(self.why, host, previous)
        self.stopping = stopping
        self.halt = fencing.Halt(host, stopping)
        self._started_here = started_here

    def _mode(self, foreign, actions):
        """``foreign``: some interrupted action was started elsewhere;
        ``actions``: all of the plan's."""
        if self.plan['state'] == ActionPlanState.CANCELLING:
            # Its operator asked for the cancel: finish it.
            return CANCEL
        if any(a['state'] == ActionState.CANCELLED for a in actions):
            # An earlier settling chose to cancel it, cancelled an action
            # and lost the commit of the plan's end: what it chose
            # stands, whoever looks now and why (nothing of a running
            # plan is CANCELLED otherwise).
            return CANCEL
        if self.why == HANDED_BACK:
            # Handed back by an applier that stopped: nobody died.
            return RESUME
        if self.plan.get('strategy_name') in ALWAYS_RESUMED:
            return RESUME
        if self.why == ownership.STRANDED and not foreign:
            return RESUME
        return CONF.watcher_applier.recovery

    def settle(self):
        """Settle the interrupted actions, and end the plan if it does not
        run on; True if it should run on."""
        actions = plan_runs.actions_of(self.context, self.plan)
        interrupted = plan_runs.interrupted_among(actions)
        foreign = [a for a in interrupted
                   if a['uuid'] not in self._started_here]
        self.mode = self._mode(foreign, actions)
        if foreign and not fencing.wait_for_calls_in_flight(
                self.context, self.plan, self.stopping):
            return False
        for action in interrupted:
            target, message = self._fate(action)
            LOG.info('Action %s of plan %s was interrupted (%s): %s',
                     action['uuid'], self.plan['uuid'], self.reason, target)
            if plan_runs.move_action(self.context, self.plan, self.host,
                                     action, ActionState.ONGOING, target,
                                     message) is not None:
                metrics.ended(action, target)
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
        cls = self.action_classes.get(action['action_type'])
        try:
            touches_cloud = cls is None or cls.resources(
                action['input_parameters'] or {})
        except Exception:  # noqa: BLE001
            # Parameters its plugin cannot read: its effect is unknown.
            touches_cloud = True
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
                              self.halt)
        try:
            plugin = cls(action['input_parameters'], self.context, fence)
            started = action['updated_at'] or action['created_at']
            with self.halt.running(plugin):
                if self.plan['state'] == ActionPlanState.CANCELLING:
                    # The cancel its dead applier may not have sent; an
                    # action that cannot be stopped is waited for by
                    # recover() as usual.
                    plugin.cancel()
                verdict = plugin.recover(started)
        except fencing.Fenced:
            # Not ours to settle any more (or the applier stops).
            raise
        except Exception:  # noqa: BLE001
            if not self.halt():
                LOG.exception('Checking interrupted action %s failed',
                              action['uuid'])
                return action_base.UNKNOWN
        halted = self.halt()
        if halted:
            # Cut short (an aborted wait fails or answers early): what it
            # found says nothing, and the action stays as it is.
            raise fencing.Fenced(halted)
        return verdict

    def _end(self, state, message):
        ended = plan_runs.finish(self.context, self.plan, self.host, state,
                                 message, unfinished=plan_runs.UNFINISHED)
        if ended is None:
            return
        LOG.warning('Action plan %s %s%s', self.plan['uuid'], ended.state,
                    ': %s' % ended.message if ended.message else '')
        plan_end.announce(self.context, self.plan['uuid'], ended)
