"""/v1/notifications/{notification_id}/vmoves: the servers a recovery
moved (API 1.3; Masakari 22 serves them at every version, and so do
we)."""

from watcher_ha.api.instance_ha import listing
from watcher_ha.api.instance_ha import views
from watcher_ha.db import host_notifications
from watcher_ha.policies import instance_ha as rules
from watcher_ha.policies import policy


def index(call, notification_id):
    policy.authorize(rules.VMOVES_INDEX, call.context)
    rows = host_notifications.list_vmoves(
        call.context, notification_id, listing.paging(call.params),
        listing.filters(call.params, exact=('status', 'type')))
    return 200, {'vmoves': [views.show(views.VMOVE, row, call.version)
                            for row in rows]}


def show(call, notification_id, vmove_id):
    policy.authorize(rules.VMOVES_DETAIL, call.context)
    row = host_notifications.get_vmove(call.context, notification_id,
                                       vmove_id)
    return 200, {'vmove': views.show(views.VMOVE, row, call.version,
                                     shown_alone=True)}
