"""Actions this applier ended, by type and by the state it recorded."""

import prometheus_client

from watcher_ha.common.states import ActionState

ACTIONS = prometheus_client.Counter(
    'watcher_ha_actions',
    'Actions whose end this applier recorded, by action type and state: '
    'SUCCEEDED, FAILED or SKIPPED when it ran them; SUCCEEDED, FAILED or '
    'CANCELLED when it settled actions an interrupted run left ONGOING.',
    ['action_type', 'state'])


# The states an action this applier runs ends in.
RAN = (ActionState.SUCCEEDED, ActionState.FAILED, ActionState.SKIPPED)


def known(action_types):
    """Series at zero for every installed action type, so that a rate
    is 0, not missing, until one runs."""
    for action_type in action_types:
        for state in RAN:
            ACTIONS.labels(action_type, state)


def ended(action, state):
    ACTIONS.labels(action['action_type'], state).inc()
