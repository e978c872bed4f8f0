"""/v1/notifications: failures reported by monitors."""

from oslo_config import cfg

from watcher_ha.api.instance_ha import inputs
from watcher_ha.api.instance_ha import listing
from watcher_ha.api.instance_ha import views
from watcher_ha.common.instance_ha import statuses
from watcher_ha.db import host_notifications
from watcher_ha.db import recoveries
from watcher_ha.decision_engine import rpcapi as engine_rpcapi
from watcher_ha.policies import instance_ha as rules
from watcher_ha.policies import policy

CONF = cfg.CONF


def _shown(call, row, shown_alone=False):
    return {'notification': views.show(views.NOTIFICATION, row,
                                       call.version, shown_alone)}


def index(call):
    policy.authorize(rules.NOTIFICATIONS_INDEX, call.context)
    rows = host_notifications.list_notifications(
        call.context, listing.paging(call.params),
        listing.filters(call.params,
                        exact=('status', 'source_host_uuid', 'type')),
        generated_since=listing.generated_since(call.params))
    return 200, {'notifications': [
        views.show(views.NOTIFICATION, row, call.version)
        for row in rows]}


def show(call, notification_id):
    policy.authorize(rules.NOTIFICATIONS_DETAIL, call.context)
    row = host_notifications.get_notification(call.context,
                                              notification_id)
    if (call.version.major, call.version.minor) >= (1, 1):
        row['recovery_workflow_details'] = recoveries.workflow_details(
            call.context, row)
    return 200, _shown(call, row, shown_alone=True)


def create(call):
    policy.authorize(rules.NOTIFICATIONS_CREATE, call.context)
    values = inputs.notification_values(call.version, call.json_body())
    row = host_notifications.create_notification(
        call.context, values,
        CONF.instance_ha.duplicate_notification_detection_interval)
    if row['state'] == statuses.NEW:
        # After the commit; a lost message waits for the engines' sweep.
        engine_rpcapi.DecisionEngineAPI().recover_notification(
            call.context, row['uuid'])
    return 202, _shown(call, row)
