"""Instance-HA errors, with the messages Masakari's API gives for them
(clients and operators' scripts match on some of them)."""

from watcher_ha.common import exception


class SegmentNotFound(exception.NotFound):
    error_code = 'segment_not_found'
    msg_fmt = 'No failover segment with id %(segment)s.'


class HostNotFound(exception.NotFound):
    error_code = 'segment_host_not_found'
    msg_fmt = 'No host with id %(host)s.'


class HostNotInSegment(exception.NotFound):
    error_code = 'host_not_in_segment'
    msg_fmt = ("Host '%(host)s' under failover_segment '%(segment)s' could "
               "not be found.")


class NotificationNotFound(exception.NotFound):
    error_code = 'notification_not_found'
    msg_fmt = 'No notification with id %(notification)s.'


class VMoveNotFound(exception.NotFound):
    error_code = 'vmove_not_found'
    msg_fmt = 'No vm move with id %(vmove)s.'


class MarkerNotFound(exception.Invalid):
    error_code = 'marker_not_found'
    msg_fmt = 'Marker %(marker)s could not be found.'


class InvalidListInput(exception.Invalid):
    error_code = 'invalid_list_input'
    msg_fmt = 'Invalid input received: %(reason)s'


class InvalidSortKey(InvalidListInput):
    # Masakari's message is the repr of oslo.db's InvalidSortKey.
    msg_fmt = "InvalidSortKey('Sort key supplied is invalid: %(key)s')"


class UnknownHostName(exception.Invalid):
    """A notification names a host that no segment has."""
    error_code = 'unknown_segment_host_name'
    msg_fmt = 'Host with name %(name)s could not be found.'


class NotAComputeHost(exception.Invalid):
    error_code = 'not_a_compute_host'
    msg_fmt = 'Compute service with name %(name)s could not be found.'


class NoVMoves(exception.Invalid):
    error_code = 'notification_without_vmoves'
    msg_fmt = 'This notification %(notification)s without vm moves.'


class SegmentNameTaken(exception.Conflict):
    error_code = 'segment_name_taken'
    msg_fmt = 'Failover segment with name %(name)s already exists.'


class HostNameTaken(exception.Conflict):
    error_code = 'segment_host_name_taken'
    msg_fmt = 'Host with name %(name)s already exists.'


class SegmentInUse(exception.Conflict):
    """A recovery is under way (or waits) in the segment."""
    error_code = 'segment_in_use'
    msg_fmt = ("Failover segment %(segment)s can't be updated as it is "
               "in-use to process notifications.")


class SegmentInUseDelete(SegmentInUse):
    # Masakari's wording, parentheses included.
    msg_fmt = ("Failover segment (%(segment)s) can't be deleted as it is "
               "in-use to process notifications.")


class HostInUse(exception.Conflict):
    error_code = 'segment_host_in_use'
    msg_fmt = ("Host %(host)s can't be %(done)s as it is in-use to process "
               "notifications.")


class DuplicateNotification(exception.Conflict):
    error_code = 'duplicate_notification'
    msg_fmt = ('Notification received from host %(host)s of type %(type)s '
               'is duplicate.')


class ComputeUnavailable(exception.ServiceUnavailable):
    error_code = 'compute_unavailable'
    msg_fmt = ('Could not ask the Compute API whether %(name)s is a '
               'nova-compute host: %(reason)s. Nothing was changed; retry '
               'once Nova answers.')
