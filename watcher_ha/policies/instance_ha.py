"""Policy rules of the instance-ha API, under Masakari's rule names so
that an operator's Masakari policy file applies unchanged."""

from oslo_policy import policy

from watcher_ha.policies import base

PATH = '/instance-ha/v1'

SEGMENTS_INDEX = 'os_masakari_api:segments:index'
SEGMENTS_DETAIL = 'os_masakari_api:segments:detail'
SEGMENTS_CREATE = 'os_masakari_api:segments:create'
SEGMENTS_UPDATE = 'os_masakari_api:segments:update'
SEGMENTS_DELETE = 'os_masakari_api:segments:delete'
HOSTS_INDEX = 'os_masakari_api:os-hosts:index'
HOSTS_DETAIL = 'os_masakari_api:os-hosts:detail'
HOSTS_CREATE = 'os_masakari_api:os-hosts:create'
HOSTS_UPDATE = 'os_masakari_api:os-hosts:update'
HOSTS_DELETE = 'os_masakari_api:os-hosts:delete'
NOTIFICATIONS_INDEX = 'os_masakari_api:notifications:index'
NOTIFICATIONS_DETAIL = 'os_masakari_api:notifications:detail'
NOTIFICATIONS_CREATE = 'os_masakari_api:notifications:create'
VMOVES_INDEX = 'os_masakari_api:vmoves:index'
VMOVES_DETAIL = 'os_masakari_api:vmoves:detail'

SEGMENT = '/segments/{segment_id}'
HOST = SEGMENT + '/hosts/{host_id}'
NOTIFICATION = '/notifications/{notification_id}'

OPERATIONS = {
    SEGMENTS_INDEX: ('GET', '/segments', 'List failover segments.'),
    SEGMENTS_DETAIL: ('GET', SEGMENT, 'Show a failover segment.'),
    SEGMENTS_CREATE: ('POST', '/segments', 'Create a failover segment.'),
    SEGMENTS_UPDATE: ('PUT', SEGMENT, 'Update a failover segment.'),
    SEGMENTS_DELETE: ('DELETE', SEGMENT,
                      'Delete a failover segment and its hosts.'),
    HOSTS_INDEX: ('GET', SEGMENT + '/hosts', 'List the hosts of a '
                                             'segment.'),
    HOSTS_DETAIL: ('GET', HOST, 'Show a host of a segment.'),
    HOSTS_CREATE: ('POST', SEGMENT + '/hosts', 'Add a host to a '
                                               'segment.'),
    HOSTS_UPDATE: ('PUT', HOST, 'Update a host of a segment.'),
    HOSTS_DELETE: ('DELETE', HOST, 'Remove a host from a segment.'),
    NOTIFICATIONS_INDEX: ('GET', '/notifications', 'List notifications.'),
    NOTIFICATIONS_DETAIL: ('GET', NOTIFICATION, 'Show a notification.'),
    NOTIFICATIONS_CREATE: ('POST', '/notifications',
                           'Report a failure (monitors do).'),
    VMOVES_INDEX: ('GET', NOTIFICATION + '/vmoves',
                   'List the server moves of a notification.'),
    VMOVES_DETAIL: ('GET', NOTIFICATION + '/vmoves/{vmove_id}',
                    'Show a server move of a notification.'),
}


def list_rules():
    return [policy.DocumentedRuleDefault(
        name=name, check_str=base.ADMIN, description=description,
        operations=[{'path': PATH + path, 'method': method}])
        for name, (method, path, description) in OPERATIONS.items()]
