"""``/v1/strategies``: read-only, plus the state of a strategy's needs."""

from watcher_ha.api import method
from watcher_ha.api import request
from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import strategies as schema
from watcher_ha.db import goals as db
from watcher_ha.decision_engine import rpcapi
from watcher_ha.policies import policy
from watcher_ha.policies import strategy as strategy_policy


class StrategiesController(base.ResourceController):
    view = db.STRATEGY_VIEW
    fields = schema.STRATEGY
    policy_module = strategy_policy

    @method.expose()
    def state(self, call, ident):
        """What the strategy needs (datasources, metrics, models), as a
        decision engine sees it."""
        context = call.context
        policy.authorize(strategy_policy.STATE, context)
        request.refuse_unknown_params(call.params, ())
        strategy = db.get_strategy(context, ident)
        report = rpcapi.DecisionEngineAPI().get_strategy_info(
            context, strategy['name'])
        return list(report) + [{'type': 'Name', 'state': strategy['name'],
                                'mandatory': '', 'comment': ''}]
