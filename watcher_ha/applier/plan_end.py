"""What an applier says once it has recorded a plan's end (run to its
end, settled by a take-over, or cancelled as the applier stopped):
Watcher's notifications, and, if the plan was an instance-HA recovery's
or a recovery waits for the plans it preempts, a message to the decision
engine that owns that recovery, which moves it on at once
(decision_engine/rpcapi.py: plan_ended)."""

from watcher_ha.decision_engine import rpcapi as engine_rpcapi
from watcher_ha.notifications import notifier


def announce(context, uuid, ended, message=None):
    """``ended``: plan_runs.Ended, committed. The recovery waits for no
    notification: it is told first."""
    engine_rpcapi.DecisionEngineAPI().plan_ended(context, uuid)
    notifier.plan_ended(uuid, ended, message)
