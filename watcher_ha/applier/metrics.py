"""Actions and action plans this applier ended: how many, by type and
by the state it recorded, and how long they took."""

import prometheus_client

from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState

ACTIONS = prometheus_client.Counter(
    'watcher_ha_actions',
    'Actions whose end this applier recorded, by action type and state: '
    'SUCCEEDED, FAILED or SKIPPED when it ran them; SUCCEEDED, FAILED or '
    'CANCELLED when it settled actions an interrupted run left ONGOING.',
    ['action_type', 'state'])


# From a nop's milliseconds to a long migration's hour and more.
_BUCKETS = (0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600,
            7200)

ACTION_SECONDS = prometheus_client.Histogram(
    'watcher_ha_action_duration_seconds',
    'Time from the start of an action this applier ran (moved ONGOING) to '
    'the end it recorded (SUCCEEDED, FAILED, SKIPPED or CANCELLED), by '
    'action type.',
    ['action_type'], buckets=_BUCKETS)

PLAN_SECONDS = prometheus_client.Histogram(
    'watcher_ha_action_plan_duration_seconds',
    'Time from this applier taking an action plan (or resuming one it '
    'took over) to the end it recorded, by that end.',
    ['state'], buckets=_BUCKETS)

# The states an action this applier runs ends in.
RAN = (ActionState.SUCCEEDED, ActionState.FAILED, ActionState.SKIPPED)
# ... and a plan it runs.
PLAN_ENDS = (ActionPlanState.SUCCEEDED, ActionPlanState.FAILED,
             ActionPlanState.CANCELLED)


def known(action_types):
    """Series at zero for every installed action type, so that a rate
    is 0, not missing, until one runs."""
    for action_type in action_types:
        ACTION_SECONDS.labels(action_type)
        for state in RAN:
            ACTIONS.labels(action_type, state)
    for state in PLAN_ENDS:
        PLAN_SECONDS.labels(state)


def ended(action, state, seconds=None):
    """The end of ``action``; ``seconds`` since its start if it ran
    here."""
    ACTIONS.labels(action['action_type'], state).inc()
    if seconds is not None:
        ACTION_SECONDS.labels(action['action_type']).observe(seconds)


def plan_ended(state, seconds):
    PLAN_SECONDS.labels(state).observe(seconds)
