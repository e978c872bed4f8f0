"""When a recovery attempt needs its owner, and how it ended.

An attempt is a recovery audit and the plan it makes. The decision
engine that owns the notification has nothing to do while the audit is
computed and while the plan runs; it has something to do when the
attempt ends (the notification moves on: finished, or error and another
attempt) and while the plan waits for the plans it preempts (a step:
cancel them, start it once they let go). Whoever ends the plan or the
audit tells it so by a message; these rules say, from the rows alone,
when that message is due, and the owner's self-check uses them to find
an attempt whose message was lost.

An attempt is given as ``db/recoveries.attempt`` reads it: {state,
status_message, plan: {state, status_message, created_at} or None}, its
newest plan; None when its audit is gone.
"""

from watcher_ha.common.instance_ha import statuses
from watcher_ha.common.states import ActionPlanState as P
from watcher_ha.common.states import AuditState as S

# Plan states after which an attempt is over.
PLAN_ENDED = frozenset((P.SUCCEEDED, P.FAILED, P.CANCELLED, P.SUPERSEDED,
                        P.DELETED))
# Audit states after which an attempt without a plan is over.
AUDIT_ENDED_WITHOUT_PLAN = frozenset((S.FAILED, S.CANCELLED, S.DELETED))


def outcome(attempt):
    """(FINISHED or ERROR, message) once ``attempt`` is over; None while
    its audit is computed or its plan waits or runs."""
    if attempt is None:
        return statuses.ERROR, 'its recovery audit was deleted'
    plan = attempt['plan']
    if plan is None:
        if attempt['state'] in AUDIT_ENDED_WITHOUT_PLAN:
            return statuses.ERROR, 'the recovery audit ended %s: %s' % (
                attempt['state'], attempt['status_message'])
        return None
    if plan['state'] not in PLAN_ENDED:
        return None
    if plan['state'] == P.SUCCEEDED:
        return statuses.FINISHED, None
    return statuses.ERROR, 'the recovery plan ended %s: %s' % (
        plan['state'], plan['status_message'])


def waits_for_preemption(attempt):
    """Whether the attempt's plan waits for the plans it preempts to let
    go of its servers or hosts (stored RECOMMENDED: see
    decision_engine/preemption.py)."""
    return (attempt is not None and attempt['plan'] is not None
            and attempt['plan']['state'] == P.RECOMMENDED)


def needs_owner(attempt):
    """Whether the owner of the attempt's notification has a step to take
    now: the attempt is over, or its plan waits for preempted plans."""
    return outcome(attempt) is not None or waits_for_preemption(attempt)
