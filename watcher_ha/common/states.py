"""The life-cycle states of audits, audit pipelines, action plans and
actions.

The names are Watcher API v1 wire values and never change. Which state may
follow which lives in :mod:`watcher_ha.common.state_machines`.
"""


class AuditState:
    PENDING = 'PENDING'
    """Created; waiting for a decision engine to take it."""
    ONGOING = 'ONGOING'
    """A decision engine (``hostname``) is running it; continuous audits stay
    here between rounds."""
    SUCCEEDED = 'SUCCEEDED'
    """The strategy ran and stored its action plan."""
    FAILED = 'FAILED'
    """The strategy could not produce a plan; see ``status_message``."""
    CANCELLED = 'CANCELLED'
    """Stopped by an operator."""
    SUSPENDED = 'SUSPENDED'
    """A continuous audit paused by an operator; it may be resumed."""
    DELETED = 'DELETED'
    """Archived: hidden from the API, purged later."""


class AuditType:
    ONESHOT = 'ONESHOT'
    CONTINUOUS = 'CONTINUOUS'
    EVENT = 'EVENT'

    ALL = (ONESHOT, CONTINUOUS, EVENT)


class ExecutionMode:
    """How an audit pipeline runs its stages (watcher-specs
    audit-pipeline.rst, "Cascade Execution Mode"): an audit pipeline
    takes the states of an audit (AuditState)."""
    CASCADE = 'cascade'
    """Each stage after the one before, on the model as that one's
    solution leaves it."""

    ALL = (CASCADE,)


class ActionPlanState:
    RECOMMENDED = 'RECOMMENDED'
    """Produced by an audit; waiting for an operator to start it."""
    PENDING = 'PENDING'
    """Started by an operator; waiting for an applier to take it."""
    ONGOING = 'ONGOING'
    """An applier (``hostname``) is executing its actions."""
    SUCCEEDED = 'SUCCEEDED'
    """Every action succeeded or was skipped."""
    FAILED = 'FAILED'
    """An action failed; see ``status_message``."""
    CANCELLING = 'CANCELLING'
    """Cancel requested while ONGOING; the applier stops between actions."""
    CANCELLED = 'CANCELLED'
    """Stopped before completion."""
    SUPERSEDED = 'SUPERSEDED'
    """Replaced by a newer plan, or the cluster changed under it."""
    DELETED = 'DELETED'
    """Archived: hidden from the API, purged later."""


# The states of an action plan a what-if projects (watcher-ha 1.3): one
# that has not started, so that its actions all lie ahead.
WHAT_IF_STATES = (ActionPlanState.RECOMMENDED,)


class ActionState:
    PENDING = 'PENDING'
    """Waiting for its parents and for its plan to run."""
    ONGOING = 'ONGOING'
    """Being executed by the applier."""
    SUCCEEDED = 'SUCCEEDED'
    FAILED = 'FAILED'
    CANCELLING = 'CANCELLING'
    """Its plan is being cancelled while it runs."""
    CANCELLED = 'CANCELLED'
    SKIPPED = 'SKIPPED'
    """Not to be executed, by an operator's decision (API 1.5)."""
    DELETED = 'DELETED'
    """Archived with its action plan."""
