"""How other services talk to the decision engines."""

import oslo_messaging

from watcher_ha.common import exception
from watcher_ha.common import rpc

TOPIC = 'watcher_ha.decision_engine'


class DecisionEngineAPI:

    def __init__(self):
        self._client = rpc.get_client(TOPIC)

    def trigger_audit(self, context, audit_uuid):
        """Ask any decision engine to run the audit (fire and forget).

        A lost cast is harmless: the engines' periodic sweep picks up
        PENDING audits nobody took.
        """
        self._client.cast(context.to_dict(), 'trigger_audit',
                          audit_uuid=audit_uuid)

    def _call(self, context, method, **kwargs):
        try:
            return self._client.call(context.to_dict(), method, **kwargs)
        except oslo_messaging.MessagingTimeout:
            raise exception.ServiceUnavailable(
                reason='No decision engine answered on topic %s within the '
                       'RPC timeout; check that watcher-ha-decision-engine '
                       'runs (GET /v1/services) and shares this API\'s '
                       'transport_url.' % TOPIC)
        except oslo_messaging.MessageDeliveryFailure as err:
            raise exception.ServiceUnavailable(
                reason='The message bus refused the request to the decision '
                       'engines: %s' % err)

    def get_data_model_info(self, context, data_model_type, audit_uuid):
        return self._call(context, 'get_data_model_info',
                          data_model_type=data_model_type,
                          audit_uuid=audit_uuid)

    def get_strategy_info(self, context, strategy_name):
        return self._call(context, 'get_strategy_info',
                          strategy_name=strategy_name)
