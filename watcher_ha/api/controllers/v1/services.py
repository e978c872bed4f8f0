"""``/v1/services``: the daemons that have registered, read-only."""

import time

from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.schemas import services as schema
from watcher_ha.db import audits
from watcher_ha.db import services as db
from watcher_ha.policies import service as service_policy
from watcher_ha.service import coordination

ENGINE = 'watcher-ha-decision-engine'


class ServicesController(base.ResourceController):
    view = db.VIEW
    fields = schema.SERVICE
    policy_module = service_policy
    marker_is_uuid = False
    link_column = 'id'

    def _annotate(self, context, rows):
        members = coordination.members_by_binary()
        engines = [row['host'] for row in rows if row['name'] == ENGINE]
        owned = audits.continuous_by_host(context, engines)
        now = time.time()
        for row in rows:
            engine = row['name'] == ENGINE
            row['status'] = db.status(row, members)
            row['continuous_audits'] = (owned.get(row['host'], [])
                                        if engine else None)
            row['data_models'] = (_models(row['details'], now) if engine
                                  else None)
        return rows


def _models(details, now):
    """An engine's reported models, their ages as of ``now``."""
    def age(moment):
        return None if moment is None else round(now - moment, 1)
    return [{'name': model['name'], 'generation': model['generation'],
             'ready': model['ready'],
             'seconds_since_resync': age(model['last_resync']),
             'seconds_since_notification': age(model['last_notification'])}
            for model in (details or {}).get('data_models', [])]
