"""The collectors of one decision engine: one instance per collector type
for the life of the process, each with its model, its notification
handlers and its periodic resync."""

import collections
import dataclasses
import threading

import tenacity
from oslo_config import cfg
from oslo_log import log
from stevedore import driver

from watcher_ha.common import plugins
from watcher_ha.decision_engine.model import elements

CONF = cfg.CONF
LOG = log.getLogger(__name__)


class CollectorManager:

    # Seconds between two tries of a model's first full sync.
    FIRST_SYNC_BACKOFF = (2, 60)
    # Seconds before each new read of a node announced by its service but
    # not yet in Nova's hypervisors or Placement.
    REFETCH_DELAYS = (5, 15, 30, 60, 120)

    def __init__(self, names=None, conf=CONF):
        self.conf = conf
        self.collectors = {}
        self.stopped = threading.Event()
        # One resync of a model at a time: the periodic one and one after
        # a broker reconnection (feed/reconnects.py) may meet, and a
        # model records the notifications of one resync at a time.
        self._resyncing = collections.defaultdict(threading.Lock)
        for name in names if names is not None else \
                conf.watcher_decision_engine.collectors:
            plugin = driver.DriverManager(plugins.COLLECTORS, name,
                                          invoke_on_load=False).driver
            collector = plugin(conf, plugin.make_model(name))
            reason = collector.disabled_because()
            if reason:
                LOG.warning('The %s data model is off: %s', name, reason)
                continue
            self.collectors[name] = collector

    def list(self):
        return sorted(self.collectors)

    def get(self, name):
        return self.collectors[name]

    def model(self, name):
        return self.collectors[name].model

    def handlers(self):
        """The collectors' notification handlers; a node a notification
        names but the model lacks is fetched from the source at once."""
        wrapped = []
        for name, collector in self.collectors.items():
            for handler in collector.handlers():
                wrapped.append(dataclasses.replace(
                    handler,
                    handle=self._fetching(name, handler.handle),
                    handle_many=(handler.handle_many and self._fetching(
                        name, handler.handle_many))))
        return wrapped

    def _fetching(self, name, handle):
        """``handle``, then the nodes it reports missing fetched; not
        before the first full sync, which reads them all anyway."""
        model = self.collectors[name].model

        def handle_and_fetch(events):
            missing = handle(events)
            if missing and model.ready:
                self.fetch_missing(name, missing)
        return handle_and_fetch

    def resync(self, name):
        """Read the whole source and swap the fresh model in; what arrives
        meanwhile is replayed onto it.

        Until a model's first full sync succeeds, the audits that need it
        wait and then fail, so a failed first sync (Nova or Placement
        briefly unreachable as the engine starts) is tried again with a
        backoff, for up to a period, not only at the next period."""
        collector = self.collectors[name]
        if collector.model.ready:
            self._resync_once(name)
            return
        low, high = self.FIRST_SYNC_BACKOFF
        retrying = tenacity.Retrying(
            wait=tenacity.wait_exponential(min=low, max=high),
            stop=(tenacity.stop_after_delay(collector.options.period)
                  | tenacity.stop_when_event_set(self.stopped)),
            sleep=self.stopped.wait, reraise=True,
            before_sleep=lambda state: LOG.warning(
                'First sync of the %s model failed (try %d); trying again '
                'in %.0f s', name, state.attempt_number,
                state.next_action.sleep))
        retrying(self._resync_once, name)

    def stop(self):
        """Stop retrying first syncs (the daemon is stopping)."""
        self.stopped.set()

    def _resync_once(self, name):
        with self._resyncing[name]:
            self._resync_locked(name)

    def _resync_locked(self, name):
        collector = self.collectors[name]
        model = collector.model
        stamp = elements.utcnow()
        model.begin_resync(stamp)
        try:
            fresh = collector.build(stamp)
        except Exception:
            model.abort_resync()
            LOG.exception('Resync of the %s model failed; the model keeps '
                          'its notifications-fed state', name)
            raise
        model.finish_resync(fresh)

    def refresh_servers(self, name, hostname):
        """Read the servers the source has on ``hostname`` now into the
        model, without waiting for their notifications or the next
        resync (what a later event told stays)."""
        collector = self.collectors[name]
        stamp = elements.utcnow()
        found = collector.fetch_servers(hostname, stamp)

        def put(changes):
            for instance in found:
                known = changes.instance(instance.uuid)
                if known is None or known.stamp <= stamp:
                    changes.put_instance(instance)
        collector.model.update(put)
        LOG.info('Read the %d server(s) of %s into the %s model',
                 len(found), hostname, name)

    def fetch_missing(self, name, hostnames, attempt=0):
        """Nodes a notification named that the model lacks: from the
        source. A node the model only knows from its service's creation
        (Nova announces the service before its hypervisor and resource
        provider exist) is asked for again, later, until the source has
        it or the tries run out (the next resync then reads it)."""
        collector = self.collectors[name]
        # A collector may say how what it reads goes into its model
        # (storage: pools, volume types); a compute node is added if
        # missing.
        merge = getattr(collector, 'merge_fetched', _add_if_missing)
        stamp = elements.utcnow()
        for hostname in hostnames:
            try:
                node = collector.fetch_node(hostname, stamp)
            except Exception as err:  # noqa: BLE001
                LOG.warning('Could not fetch node %s: %s (the next resync '
                            'will)', hostname, err)
                continue
            if node is not None:
                collector.model.update(
                    lambda changes, node=node: merge(changes, node))
            elif _placeholder(collector.model, hostname):
                self._fetch_later(name, hostname, attempt)

    def _fetch_later(self, name, hostname, attempt):
        if attempt >= len(self.REFETCH_DELAYS) or self.stopped.is_set():
            LOG.warning('Node %s is still unknown to Nova or Placement; '
                        'the next resync will read it', hostname)
            return
        timer = threading.Timer(self.REFETCH_DELAYS[attempt],
                                self.fetch_missing,
                                (name, {hostname}, attempt + 1))
        timer.daemon = True
        timer.start()


def _placeholder(model, hostname):
    """Whether the model knows ``hostname`` only from its service's
    notifications (no uuid: never read from the source)."""
    node = model.snapshot().node(hostname)
    return node is not None and getattr(node, 'uuid', '') is None


def _add_if_missing(changes, node):
    """Add a node read from the source, unless the model has it already;
    a placeholder made by a service notification (no uuid yet) gets the
    source's capacity but keeps the notification's status; a node whose
    zone an aggregate event left unknown gets the source's zone."""
    known = changes.node(node.hostname)
    if known is None:
        changes.put_node(node)
        return
    if known.uuid is None:
        changes.put_node(dataclasses.replace(
            node, state=known.state, status=known.status,
            disabled_reason=known.disabled_reason, stamp=known.stamp))
    elif known.availability_zone is None:
        # Its zone was Nova's to tell (it left its zone's aggregate).
        changes.put_node(dataclasses.replace(
            known, availability_zone=node.availability_zone))
