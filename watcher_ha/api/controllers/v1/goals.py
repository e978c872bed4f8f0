"""``/v1/goals``: read-only."""

from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import goals as schema
from watcher_ha.db import goals as db
from watcher_ha.policies import goal as goal_policy


class GoalsController(base.ResourceController):
    view = db.GOAL_VIEW
    fields = schema.GOAL
    policy_module = goal_policy
