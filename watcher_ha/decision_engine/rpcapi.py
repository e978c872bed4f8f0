"""How other services talk to the decision engines."""

import oslo_messaging
from oslo_log import log

from watcher_ha.common import exception
from watcher_ha.db import engine as db_engine
from watcher_ha.db import recoveries
from watcher_ha.service import rpc

LOG = log.getLogger(__name__)

TOPIC = 'watcher_ha.decision_engine'


class EngineRefused(exception.WatcherHAError):
    """An error a decision engine answered a call with, as it said it
    (its status, error code and message)."""

    def __init__(self, code, error_code, message):
        super().__init__(message)
        self.code = code
        self.error_code = error_code


class DecisionEngineAPI:

    def __init__(self):
        self._client = rpc.get_client(TOPIC)

    def trigger_audit(self, context, audit_uuid):
        """Ask any decision engine to run the audit (fire and forget).

        Sent after the audit is committed; the engines' periodic sweep
        picks up any PENDING audit whose message was lost, so a bus that is
        down delays the audit but does not fail the request.
        """
        rpc.cast_or_log(self._client, context, 'trigger_audit',
                        audit_uuid=audit_uuid)

    def trigger_audit_pipeline(self, context, audit_pipeline_uuid):
        """Ask any decision engine to plan the audit pipeline (fire and
        forget; watcher-specs audit-pipeline.rst, "RPC and Service
        Routing"). Sent after the commit that triggered it; the engines'
        sweep takes one whose message was lost."""
        rpc.cast_or_log(self._client, context, 'trigger_audit_pipeline',
                        audit_pipeline_uuid=audit_pipeline_uuid)

    def recover_notification(self, context, notification_uuid):
        """Ask any decision engine to recover from the failure a host
        notification reports (fire and forget; the engines' sweep takes a
        notification whose message was lost)."""
        rpc.cast_or_log(self._client, context, 'recover_notification',
                        notification_uuid=notification_uuid)

    def plan_ended(self, context, plan_uuid):
        """Sent after the commit that ended the plan (in any state): the
        engine that owns the instance-HA recovery it was the plan of
        ends the attempt, and those whose recovery plan waits for the
        plans it preempts try to start it (common/instance_ha/
        attempts.py). Nothing is sent if no recovery has a step to take
        (an optimisation plan ending while no recovery waits)."""
        self._tell_recoveries(context, plan_uuid=plan_uuid)

    def audit_ended(self, context, audit_uuid):
        """Sent after the commit that ended the audit: if it was a
        recovery's, and ended without a plan or with one that waits for
        preempted plans, its owner takes the next step."""
        self._tell_recoveries(context, audit_uuid=audit_uuid)

    def _tell_recoveries(self, context, **ended):
        """Cast ``follow_recovery`` to the owner of each notification
        with a step to take, on its own topic (``<topic>.<host>``), or to
        every engine for one no engine holds (the first to take it
        follows it). A message lost, or never sent because the database
        could not say to whom, is made up for by the owner's self-check
        (service/ownership.py), every [watcher_decision_engine]
        sweep_interval."""
        try:
            notifications = recoveries.to_tell(context, **ended)
        except db_engine.DB_ERRORS as err:
            LOG.warning('Could not tell the recoveries that %s ended (%s); '
                        'their owners\' self-check will', ended, err)
            return
        for uuid, owner in notifications:
            client = (self._client.prepare(server=owner) if owner
                      else self._client.prepare(fanout=True))
            rpc.cast_or_log(client, context, 'follow_recovery',
                            notification_uuid=uuid)

    def _call(self, context, method, **kwargs):
        try:
            return self._client.prepare(retry=rpc.CALL_RETRIES).call(
                context.to_dict(), method, **kwargs)
        except oslo_messaging.MessagingTimeout:
            raise exception.ServiceUnavailable(
                reason='No decision engine answered on topic %s within the '
                       'RPC timeout; check that watcher-ha-decision-engine '
                       'runs (GET /v1/services) and shares this API\'s '
                       'transport_url.' % TOPIC)
        except oslo_messaging.RemoteError:
            raise
        except Exception as err:  # noqa: BLE001
            # Transport failures (kombu's own errors included): the bus,
            # not the request, is at fault.
            raise exception.ServiceUnavailable(
                reason='The message bus could not carry the request to the '
                       'decision engines: %s' % err)

    def get_data_model_info(self, context, data_model_type, audit_uuid):
        return self._call(context, 'get_data_model_info',
                          data_model_type=data_model_type,
                          audit_uuid=audit_uuid)

    def get_strategy_info(self, context, strategy_name):
        return self._call(context, 'get_strategy_info',
                          strategy_name=strategy_name)

    def what_if(self, context, plan_uuid, all_hosts=False):
        """The what-if of a RECOMMENDED plan, computed by a decision
        engine on its compute model (decision_engine/what_if/); an error
        the engine found (the plan gone or started, its model not built
        yet) is raised as it said it."""
        found = self._call(context, 'what_if', plan_uuid=plan_uuid,
                           all_hosts=all_hosts)
        if 'error' in found:
            raise EngineRefused(**found['error'])
        return found
