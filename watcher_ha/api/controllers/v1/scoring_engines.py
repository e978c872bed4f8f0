"""``/v1/scoring_engines``: read-only."""

from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import scoring_engines as schema
from watcher_ha.db import goals as db
from watcher_ha.policies import scoring_engine as scoring_engine_policy


class ScoringEnginesController(base.ResourceController):
    view = db.SCORING_ENGINE_VIEW
    fields = schema.SCORING_ENGINE
    policy_module = scoring_engine_policy
