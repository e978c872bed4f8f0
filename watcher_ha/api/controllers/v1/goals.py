"""``/v1/goals``: read-only."""

from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import catalog
from watcher_ha.db import goals as db
from watcher_ha.policies import goal as goal_policy


class GoalsController(base.ResourceController):
    view = db.GOAL_VIEW
    fields = catalog.GOAL
    policy_module = goal_policy
