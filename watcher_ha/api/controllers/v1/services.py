"""``/v1/services``: the daemons that have registered, read-only."""

from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import services as schema
from watcher_ha.common import coordination
from watcher_ha.db import audits
from watcher_ha.db import services as db
from watcher_ha.policies import service as service_policy

ENGINE = 'watcher-ha-decision-engine'


class ServicesController(base.ResourceController):
    collection = 'services'
    view = db.VIEW
    fields = schema.SERVICE
    policy_module = service_policy
    marker_is_uuid = False
    link_column = 'id'

    def _annotate(self, context, rows):
        members = coordination.members_by_binary()
        engines = [row['host'] for row in rows if row['name'] == ENGINE]
        owned = audits.continuous_by_host(context, engines)
        for row in rows:
            row['status'] = db.status(row, members)
            row['continuous_audits'] = (owned.get(row['host'], [])
                                        if row['name'] == ENGINE else None)
        return rows
