"""Host failures found in Nova's view, beyond Masakari's monitors.

Every decision engine looks, every ``[instance_ha]
nova_detection_interval`` seconds, at the compute nodes of its compute
data model. A host of an enabled failover segment, not on maintenance,
that it has seen down (its nova-compute service down or forced down) at
every look for ``[instance_ha] nova_detection_delay`` seconds is reported
as a monitor would report it: a COMPUTE_HOST notification, recorded by
the very function the API records a monitor's with, then its recovery
kicked. A host seen up once starts again from zero: a flapping host, a
nova-compute restarting, a message bus failing over are not failures.

What Nova says is weaker than what a monitor says: a service that does
not report may run on a host that is up and runs its servers (the
service stopped, or cut off from the message bus). So the report says
``host_status`` UNKNOWN, and the recovery treats it as it treats a
monitor that could not see the host powered off.

Nova sends no notification when a service stops reporting: the model
would only learn it at its next full resync (an hour by default). So each
look first reads the compute services from Nova (one request) into the
model.

Several engines look at once, each with its own clock, and none leads:

* the report goes through the segment's row lock and Masakari's
  duplicate rule (db/host_notifications.py): of engines reporting one
  failure within ``duplicate_notification_detection_interval`` of each
  other, one records it and the others are refused;
* an engine reports nothing of a host with a report waiting for or in a
  recovery, nor of one reported (by anyone, a monitor included) since a
  delay before it first saw the host down: an engine whose view lags
  (its look came later, its read of Nova failed) finds the others'
  report of the failure, even one whose recovery is over; and once per
  failure: a host it reported, or found reported, is reported again only
  after it was seen up.

When many watched hosts are down at once, Nova itself is the likelier
failure (a conductor, the database or the message bus down makes every
compute service look down): nothing is reported (``[instance_ha]
nova_detection_max_down_fraction``).
"""

import dataclasses
import datetime

from oslo_config import cfg
from oslo_log import log

from watcher_ha.common import context as watcher_context
from watcher_ha.common import exception as common_exception
from watcher_ha.common.instance_ha import exception
from watcher_ha.common.instance_ha import statuses
from watcher_ha.db import host_notifications
from watcher_ha.db import watched_hosts
from watcher_ha.decision_engine.model import elements

CONF = cfg.CONF
LOG = log.getLogger(__name__)

# What a report from Nova's view says: the host stopped, and whether it is
# powered off is not known.
PAYLOAD = {'event': 'STOPPED', 'host_status': 'UNKNOWN',
           'cluster_status': 'OFFLINE'}


def service_fields(service):
    """(state, status, disabled_reason) of a node, from its nova-compute
    service as Nova's API shows it (as the full sync reads them)."""
    down = service.state == 'down' or getattr(service, 'forced_down', False)
    return ('down' if down else 'up', service.status,
            getattr(service, 'disabled_reason', None))


def refresh_services(model, services, stamp):
    """Put into ``model`` the state of the compute services
    ``services``, read at ``stamp``, of the nodes it has; a node told of
    by a later event keeps what the event said."""
    def edit(changes):
        for service in services:
            node = changes.node(service.host)
            if node is None or stamp < node.stamp:
                continue
            state, status, reason = service_fields(service)
            if (state, status, reason) != (node.state, node.status,
                                           node.disabled_reason):
                changes.put_node(dataclasses.replace(
                    node, state=state, status=status,
                    disabled_reason=reason, stamp=stamp))
    model.update(edit)


class Detector:
    """One engine's watch. ``model()``: the compute data model
    (common.exception.NotFound if the engine keeps none);
    ``read_services()``: Nova's compute services (None: the model's
    state only); ``kick(uuid)``: start the recovery of a notification
    recorded; ``clock()``: now, naive UTC."""

    def __init__(self, model, kick, read_services=None,
                 clock=elements.utcnow):
        self._model = model
        self._kick = kick
        self._read_services = read_services
        self._clock = clock
        # hostname -> when this engine first saw it down, at every look
        # since.
        self.down_since = {}
        # Hosts whose failure under way was reported (here or elsewhere).
        self.reported = set()
        self._held_back = False

    def look(self):
        """One look (the periodic task)."""
        options = CONF.instance_ha
        if options.nova_detection_delay <= 0:
            self.down_since.clear()
            self.reported.clear()
            return
        try:
            model = self._model()
        except common_exception.NotFound:
            return
        if not model.ready:
            return
        self._refresh(model)
        now = self._clock()
        nodes = model.snapshot().nodes
        down = {name for name, node in nodes.items() if node.state == 'down'}
        self._track(down, now)
        if not down:
            return
        context = watcher_context.admin_context()
        watched = {name: host for name, host in watched_hosts.watched(
            context).items() if name in nodes}
        down_watched = sorted(down & watched.keys())
        if self._hold_back(len(down_watched), len(watched),
                           options.nova_detection_max_down_fraction):
            return
        due = [name for name in down_watched
               if name not in self.reported
               and (now - self.down_since[name]).total_seconds()
               >= options.nova_detection_delay]
        if not due:
            return
        known = watched_hosts.reports(context,
                                      [watched[name].uuid for name in due])
        for name in due:
            self._report(context, watched[name], known.get(
                watched[name].uuid), now)

    def _refresh(self, model):
        if self._read_services is None:
            return
        stamp = self._clock()
        try:
            services = self._read_services()
        except Exception as err:  # noqa: BLE001
            # The model's own state still serves.
            LOG.warning('Could not read the compute services from Nova: '
                        '%s', err)
            return
        refresh_services(model, services, stamp)

    def _track(self, down, now):
        for name in list(self.down_since):
            if name not in down:
                del self.down_since[name]
                if name in self.reported:
                    self.reported.discard(name)
                    LOG.info('Host %s: nova-compute is up again', name)
        for name in down:
            self.down_since.setdefault(name, now)

    def _hold_back(self, down, watched, fraction):
        """Whether ``down`` watched hosts out of ``watched`` are too many
        to be host failures."""
        held_back = down > 1 and down > fraction * watched
        if held_back != self._held_back:
            if held_back:
                LOG.warning(
                    '%d of the %d hosts of enabled failover segments are '
                    'down in Nova: more than [instance_ha] '
                    'nova_detection_max_down_fraction (%s). Nothing is '
                    'reported from Nova\'s view while so many are down: '
                    'check nova-conductor, its database and message bus',
                    down, watched, fraction)
            else:
                LOG.info('Fewer hosts are down in Nova: their failures '
                         'are reported again')
            self._held_back = held_back
        return held_back

    def _report(self, context, host, known, now):
        since = self.down_since[host.name]
        # Reports of this failure by engines that saw it first, made
        # before this one saw it.
        window = datetime.timedelta(
            seconds=CONF.instance_ha.nova_detection_delay)
        if known is not None and (known.in_recovery or (
                known.latest is not None and known.latest >= since - window)):
            self.reported.add(host.name)
            LOG.info('Host %s: nova-compute down since %s, already '
                     'reported', host.name, since.isoformat())
            return
        try:
            row = host_notifications.create_notification(context, {
                'type': statuses.COMPUTE_HOST, 'hostname': host.name,
                'generated_time': now, 'payload': dict(PAYLOAD)},
                CONF.instance_ha.duplicate_notification_detection_interval)
        except exception.DuplicateNotification:
            # Another engine reported it first.
            self.reported.add(host.name)
            return
        except exception.UnknownHostName:
            return      # no longer in a segment
        self.reported.add(host.name)
        LOG.warning('Host %s: nova-compute down since %s, for over %d s: '
                    'reported failed (notification %s, %s)', host.name,
                    since.isoformat(), CONF.instance_ha.nova_detection_delay,
                    row['uuid'], row['state'])
        if row['state'] == statuses.NEW:
            # Committed: as the API casts after its commit.
            self._kick(row['uuid'])
