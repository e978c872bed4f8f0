"""/v1/segments/{segment_id}/hosts: the compute hosts of a segment."""

from watcher_ha.api.instance_ha import inputs
from watcher_ha.api.instance_ha import listing
from watcher_ha.api.instance_ha import views
from watcher_ha.cloud import compute_hosts
from watcher_ha.db import failover_segments
from watcher_ha.policies import instance_ha as rules
from watcher_ha.policies import policy


def _shown(call, row):
    return {'host': views.show(views.HOST, row, call.version)}


def _typed(values):
    for name in ('reserved', 'on_maintenance'):
        if name in values:
            values[name] = inputs.boolean(values[name])
    return values


def index(call, segment_id):
    policy.authorize(rules.HOSTS_INDEX, call.context)
    rows = failover_segments.list_hosts(
        call.context, segment_id, listing.paging(call.params),
        listing.filters(call.params,
                        exact=('type', 'control_attributes', 'name'),
                        booleans=('reserved', 'on_maintenance')))
    return 200, {'hosts': [views.show(views.HOST, row, call.version)
                           for row in rows]}


def show(call, segment_id, host_id):
    policy.authorize(rules.HOSTS_DETAIL, call.context)
    return 200, _shown(call, failover_segments.get_host(
        call.context, segment_id, host_id))


def create(call, segment_id):
    policy.authorize(rules.HOSTS_CREATE, call.context)
    values = _typed(inputs.create_values(inputs.HOST, call.version,
                                         call.json_body()))
    compute_hosts.check_compute_host(values['name'])
    return 201, _shown(call, failover_segments.create_host(
        call.context, segment_id, values))


def update(call, segment_id, host_id):
    policy.authorize(rules.HOSTS_UPDATE, call.context)
    values = _typed(inputs.update_values(inputs.HOST, call.version,
                                         call.json_body()))
    if 'name' in values:
        compute_hosts.check_compute_host(values['name'])
    return 200, _shown(call, failover_segments.update_host(
        call.context, segment_id, host_id, values))


def delete(call, segment_id, host_id):
    policy.authorize(rules.HOSTS_DELETE, call.context)
    failover_segments.delete_host(call.context, segment_id, host_id)
    return 204, None
