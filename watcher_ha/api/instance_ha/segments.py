"""/v1/segments: failover segments."""

from watcher_ha.api.instance_ha import inputs
from watcher_ha.api.instance_ha import listing
from watcher_ha.api.instance_ha import views
from watcher_ha.db import failover_segments
from watcher_ha.policies import instance_ha as rules
from watcher_ha.policies import policy


def _shown(call, row):
    return {'segment': views.show(views.SEGMENT, row, call.version)}


def _typed(values):
    if 'enabled' in values:
        values['enabled'] = inputs.boolean(values['enabled'])
    return values


def index(call):
    policy.authorize(rules.SEGMENTS_INDEX, call.context)
    rows = failover_segments.list_segments(
        call.context, listing.paging(call.params), listing.filters(
            call.params, exact=('recovery_method', 'service_type'),
            booleans=('enabled',)))
    return 200, {'segments': [views.show(views.SEGMENT, row, call.version)
                              for row in rows]}


def show(call, segment_id):
    policy.authorize(rules.SEGMENTS_DETAIL, call.context)
    return 200, _shown(call, failover_segments.get_segment(call.context,
                                                           segment_id))


def create(call):
    policy.authorize(rules.SEGMENTS_CREATE, call.context)
    values = _typed(inputs.create_values(inputs.SEGMENT, call.version,
                                         call.json_body()))
    return 201, _shown(call, failover_segments.create_segment(call.context,
                                                              values))


def update(call, segment_id):
    policy.authorize(rules.SEGMENTS_UPDATE, call.context)
    values = _typed(inputs.update_values(inputs.SEGMENT, call.version,
                                         call.json_body()))
    return 200, _shown(call, failover_segments.update_segment(
        call.context, segment_id, values))


def delete(call, segment_id):
    policy.authorize(rules.SEGMENTS_DELETE, call.context)
    failover_segments.delete_segment(call.context, segment_id)
    return 204, None
