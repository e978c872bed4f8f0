"""Instance-HA errors, with the messages Masakari's API gives for them
(clients and operators' scripts match on some of them). Declared as in
common/exception.py: a row each, a class where another refines it."""

from watcher_ha.common import exception

exception.declare(globals(), exception.NotFound, (
    ('SegmentNotFound', 'segment_not_found',
     'No failover segment with id %(segment)s.'),
    ('HostNotFound', 'segment_host_not_found', 'No host with id %(host)s.'),
    ('HostNotInSegment', 'host_not_in_segment',
     "Host '%(host)s' under failover_segment '%(segment)s' could not be "
     'found.'),
    ('NotificationNotFound', 'notification_not_found',
     'No notification with id %(notification)s.'),
    ('VMoveNotFound', 'vmove_not_found', 'No vm move with id %(vmove)s.'),
))


class InvalidListInput(exception.Invalid):
    error_code = 'invalid_list_input'
    msg_fmt = 'Invalid input received: %(reason)s'


class InvalidSortKey(InvalidListInput):
    # Masakari's message is the repr of oslo.db's InvalidSortKey.
    msg_fmt = "InvalidSortKey('Sort key supplied is invalid: %(key)s')"


exception.declare(globals(), exception.Invalid, (
    ('MarkerNotFound', 'marker_not_found',
     'Marker %(marker)s could not be found.'),
    # A notification names a host that no segment has.
    ('UnknownHostName', 'unknown_segment_host_name',
     'Host with name %(name)s could not be found.'),
    ('NotAComputeHost', 'not_a_compute_host',
     'Compute service with name %(name)s could not be found.'),
    ('NoVMoves', 'notification_without_vmoves',
     'This notification %(notification)s without vm moves.'),
))


class SegmentInUse(exception.Conflict):
    """A recovery is under way (or waits) in the segment."""
    error_code = 'segment_in_use'
    msg_fmt = ("Failover segment %(segment)s can't be updated as it is "
               "in-use to process notifications.")


class SegmentInUseDelete(SegmentInUse):
    # Masakari's wording, parentheses included.
    msg_fmt = ("Failover segment (%(segment)s) can't be deleted as it is "
               "in-use to process notifications.")


exception.declare(globals(), exception.Conflict, (
    ('SegmentNameTaken', 'segment_name_taken',
     'Failover segment with name %(name)s already exists.'),
    ('HostNameTaken', 'segment_host_name_taken',
     'Host with name %(name)s already exists.'),
    ('HostInUse', 'segment_host_in_use',
     "Host %(host)s can't be %(done)s as it is in-use to process "
     'notifications.'),
    ('DuplicateNotification', 'duplicate_notification',
     'Notification received from host %(host)s of type %(type)s is '
     'duplicate.'),
))

exception.declare(globals(), exception.ServiceUnavailable, (
    ('ComputeUnavailable', 'compute_unavailable',
     'Could not ask the Compute API whether %(name)s is a nova-compute '
     'host: %(reason)s. Nothing was changed; retry once Nova answers.'),
))
