"""How other services talk to the appliers."""

from watcher_ha.service import rpc

TOPIC = 'watcher_ha.applier'


class ApplierAPI:

    def __init__(self):
        self._client = rpc.get_client(TOPIC)

    def launch_action_plan(self, context, action_plan_uuid):
        """Ask any applier to run the plan (fire and forget).

        Sent after the plan is committed PENDING; the appliers' periodic
        sweep picks up any PENDING plan whose message was lost.
        """
        rpc.cast_or_log(self._client, context, 'launch_action_plan',
                        action_plan_uuid=action_plan_uuid)
