"""Policy in code: every rule, listed for oslo.policy and its generator."""

import itertools

from watcher_ha.policies import action
from watcher_ha.policies import action_plan
from watcher_ha.policies import audit
from watcher_ha.policies import audit_pipeline
from watcher_ha.policies import audit_template
from watcher_ha.policies import base
from watcher_ha.policies import data_model
from watcher_ha.policies import goal
from watcher_ha.policies import instance_ha
from watcher_ha.policies import scoring_engine
from watcher_ha.policies import service
from watcher_ha.policies import strategy
from watcher_ha.policies import webhook


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        goal.list_rules(),
        strategy.list_rules(),
        audit_template.list_rules(),
        audit.list_rules(),
        audit_pipeline.list_rules(),
        action_plan.list_rules(),
        action.list_rules(),
        scoring_engine.list_rules(),
        service.list_rules(),
        data_model.list_rules(),
        webhook.list_rules(),
        instance_ha.list_rules(),
    ))
