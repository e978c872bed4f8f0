"""``/v1/services``: the daemons that have registered, read-only."""

from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import services as schema
from watcher_ha.db import services as db
from watcher_ha.policies import service as service_policy


class ServicesController(base.ResourceController):
    collection = 'services'
    view = db.VIEW
    fields = schema.SERVICE
    policy_module = service_policy
    marker_is_uuid = False
    link_column = 'id'
