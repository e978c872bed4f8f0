"""Heat's notifications for what the simulated Heat does.

Heat sends one at every state change of a stack (nested ones included):
event type ``orchestration.stack.<action>.<start|end|error>`` (IN_PROGRESS
is start, COMPLETE end, FAILED error), priority INFO, ERROR for an
error; publisher ``orchestration.<host>`` (its default_publisher_id);
on exchange ``heat`` (the transport default Heat sets), topic
``notifications``, driver messagingv2. The payload is Heat's
format_notification_body: the stack's project, user, id, name, state,
reason, times, tags and description (heat/engine/notification/
__init__.py and stack.py, heat/engine/api.py, heat/common/messaging.py
at 26.0.0).
"""

from watcher_ha.simulator import notifications
from watcher_ha.simulator.heat import records

HEAT_EXCHANGE = 'heat'
TOPIC = 'notifications'
SUFFIXES = {'IN_PROGRESS': 'start', 'COMPLETE': 'end', 'FAILED': 'error'}


def heat_transport(transport_url, config_files=()):
    """A notification transport whose default exchange is Heat's."""
    return notifications.transport(transport_url, HEAT_EXCHANGE,
                                   config_files)


def stack_payload(stack):
    return {
        'tenant_id': stack.tenant,
        # Heat sends the user's name as user_id (deprecated, kept) and
        # the id as user_identity.
        'user_id': stack.username,
        'user_identity': stack.user_id,
        'username': stack.username,
        'stack_identity': stack.id,
        'stack_name': stack.name,
        'state': '%s_%s' % (stack.action, stack.status),
        'state_reason': stack.status_reason,
        'create_at': records.isotime(stack.created_at),
        'tags': stack.tags,
        'updated_at': records.isotime(stack.updated_at),
        'description': stack.template.description,
    }


class Notifier(notifications.Sender):
    """Sends Heat's notifications, unless the fault injection drops or
    delays them (the same faults as Nova's)."""

    def __init__(self, transport, faults=None, clock=None):
        super().__init__(transport, TOPIC, faults, clock)

    def stack_state(self, stack, host):
        suffix = SUFFIXES[stack.status]
        self.send('orchestration.stack.%s.%s' % (stack.action.lower(),
                                                 suffix),
                  'orchestration.%s' % host, stack_payload(stack),
                  priority='error' if suffix == 'error' else 'info')
