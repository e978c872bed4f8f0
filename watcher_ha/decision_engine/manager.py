"""The decision engine: RPC endpoints, audits in a thread pool, sweeps."""

import threading
import time

from futurist import ThreadPoolExecutor
from oslo_config import cfg
from oslo_log import log

from watcher_ha.common import context as watcher_context
from watcher_ha.common import coordination
from watcher_ha.common import daemon
from watcher_ha.common import exception
from watcher_ha.common import plugins
from watcher_ha.common.states import AuditType
from watcher_ha.db import audit_runs
from watcher_ha.db import catalog as catalog_db
from watcher_ha.db import engine as db_engine
from watcher_ha.db import models
from watcher_ha.db import services as services_db
from watcher_ha.decision_engine import auditor
from watcher_ha.decision_engine import catalog
from watcher_ha.decision_engine import rpcapi
from watcher_ha.decision_engine.model import dispatch
from watcher_ha.decision_engine.model import garbage_collection
from watcher_ha.decision_engine.model import listener_process
from watcher_ha.decision_engine.model import pools
from watcher_ha.decision_engine.model import views as model_views
from watcher_ha.decision_engine.model.collector import manager as \
    collector_manager
from watcher_ha.notifications import notifier

CONF = cfg.CONF
LOG = log.getLogger(__name__)

BINARY = 'watcher-ha-decision-engine'


class Endpoints:
    """What other services call; every handler is idempotent."""

    def __init__(self, manager):
        self._manager = manager

    def trigger_audit(self, context, audit_uuid):
        self._manager.submit(audit_uuid)

    def get_data_model_info(self, context, data_model_type, audit_uuid):
        """The model as Watcher lists it, with its generation and age (an
        engine that keeps no such model lists nothing, and says so)."""
        try:
            model = self._manager.model(data_model_type)
        except exception.NotFound as err:
            return {'context': [], 'model': {
                'name': data_model_type, 'host': self._manager.host,
                'enabled': False, 'reason': str(err)}}
        return {'context': model_views.listing(model.snapshot()),
                'model': dict(model.info(), host=self._manager.host,
                              enabled=True)}

    def get_strategy_info(self, context, strategy_name):
        """What the strategy needs (datasources, metrics, data models)."""
        strategy = self._manager.catalog.strategies.get(strategy_name)
        return list(getattr(strategy, 'requirements', ()))


class DecisionEngineManager:

    def __init__(self, host=None, nova_transport=None):
        """``nova_transport``: where Nova's notifications come from, if
        not from the configured notification transport."""
        self.host = host or CONF.host
        self._nova_transport = nova_transport
        self.catalog = None
        self.auditor = None
        self._pool = None
        self._in_flight = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.group = None
        self._ring = coordination.Ring()
        self.collectors = None
        self.dispatcher = None
        self._listener = None

    def start(self, group=None):
        """``group``: this engine's membership of the engines' group
        (None: a lone engine that owns everything)."""
        self.group = group
        context = watcher_context.admin_context()
        # Anything stamped with this host was being run by an earlier life
        # of this engine, killed before it could hand it back.
        released = audit_runs.release(context, self.host)
        if released:
            LOG.info('Took back %d audit(s) interrupted on %s', released,
                     self.host)
        catalog_db.sync(context)
        self.catalog = catalog.Catalog()
        planner = plugins.load_classes(plugins.PLANNERS)[
            CONF.watcher_decision_engine.planner]
        self.auditor = auditor.Auditor(self.host, self.catalog,
                                       planner.from_conf(CONF), self.model)
        self._pool = ThreadPoolExecutor(
            CONF.watcher_decision_engine.max_audit_workers)
        self._start_models()

    def _start_models(self):
        """The data models: notifications flow in at once; each model's
        first full sync runs in the background (see periodic())."""
        self.collectors = collector_manager.CollectorManager()
        handlers = (self.collectors.handlers()
                    + plugins.load_handlers(CONF))
        if not handlers:
            return
        garbage_collection.pace(
            CONF.watcher_decision_engine.gc_young_threshold)
        self.dispatcher = dispatch.Dispatcher(handlers)
        self.dispatcher.start()
        self._listener = listener_process.nova_listener(
            self.dispatcher, self.host, transport=self._nova_transport)
        self._listener.start()

    def details(self):
        """Reported with each heartbeat: the data models' generation and
        when they were last resynced and fed (seconds since the epoch)."""
        if self.collectors is None:
            return {'data_models': []}
        return {'data_models': [
            {'name': name, 'generation': model.generation,
             'ready': model.ready, 'last_resync': model.last_resync,
             'last_notification': model.last_notification}
            for name in self.collectors.list()
            for model in (self.collectors.model(name),)]}

    def model(self, name):
        """The data model ``name``; NotFound if this engine has none."""
        if self.collectors is None or name not in self.collectors.list():
            raise exception.NotFound(
                'This decision engine (%s) keeps no %s data model; check '
                '[watcher_decision_engine] collectors and its log.'
                % (self.host, name))
        return self.collectors.model(name)

    def endpoints(self):
        return [Endpoints(self)]

    def periodic(self):
        engine = CONF.watcher_decision_engine
        return [
            daemon.Periodic('sweep_audits', self.sweep,
                            lambda: engine.sweep_interval),
            daemon.Periodic('continuous_audits', self.run_due_rounds,
                            lambda: engine.continuous_audit_check_interval),
            daemon.Periodic('watch_services', self.watch_services,
                            lambda: CONF.heartbeat_interval),
            daemon.Periodic('balance_audits', self.balance,
                            lambda: CONF.coordination.membership_refresh),
            daemon.Periodic('expire_notification_pools', self.expire_pools,
                            lambda: 600),
        ] + [
            daemon.Periodic('resync_%s_model' % name,
                            lambda name=name: self.collectors.resync(name),
                            lambda name=name: self.collectors.get(
                                name).options.period,
                            at_start=True)
            for name in (self.collectors.list() if self.collectors else ())
        ]

    def _run(self, key, func, uuid):
        """Run ``func(uuid)`` in the pool unless it already runs here."""
        with self._lock:
            if self._stopping.is_set() or key in self._in_flight:
                return
            self._in_flight.add(key)

        def job():
            try:
                if not self._stopping.is_set():
                    func(uuid)
            except Exception:  # noqa: BLE001
                LOG.exception('%s of audit %s failed', key[0], uuid)
            finally:
                with self._lock:
                    self._in_flight.discard(key)

        self._pool.submit(job)

    def submit(self, audit_uuid):
        self._run(('audit', audit_uuid), self.auditor.run, audit_uuid)

    def sweep(self):
        """Take the PENDING audits whose trigger never arrived."""
        for uuid in audit_runs.unclaimed(
                watcher_context.admin_context(),
                CONF.watcher_decision_engine.pending_grace):
            self.submit(uuid)

    def run_due_rounds(self):
        for uuid in audit_runs.due_continuous(
                watcher_context.admin_context(), self.host,
                models.utcnow()):
            self._run(('round', uuid), self.auditor.run_round, uuid)

    def balance(self):
        """Keep every ONGOING audit with a live engine.

        Continuous audits go to the engine the hash ring over the live
        engines names: the owner hands an audit over when the ring moves
        it, and takes one whose owner is gone. One-shot and event audits
        of a gone engine are put back to PENDING and run again from
        scratch. Every move is a compare-and-swap on the previous owner,
        so exactly one engine wins it whatever the others believe.
        """
        if self.group is None or self._stopping.is_set():
            return
        members = self.group.members()
        if not members:
            # Backend unreadable: nobody may be presumed dead.
            return
        context = watcher_context.admin_context()
        for uuid, audit_type, owner in audit_runs.ongoing(context):
            try:
                self._balance_one(context, members, uuid, audit_type, owner)
            except db_engine.DB_ERRORS as err:
                if not db_engine.lock_wait_timed_out(err):
                    raise
                # Its row is locked by a stuck transaction (its owner
                # paused mid-round?): the others' moves go on meanwhile.
                LOG.warning('Audit %s is locked by another transaction; '
                            'its move waits for the next look', uuid)

    def _balance_one(self, context, members, uuid, audit_type, owner):
        assigned = self._ring.owner(members, uuid)
        continuous = audit_type == AuditType.CONTINUOUS
        if owner == self.host:
            if (continuous and assigned != self.host
                    and not self._busy(('round', uuid))
                    and audit_runs.change_owner(context, uuid, self.host,
                                                assigned)):
                LOG.info('Continuous audit %s handed over to %s', uuid,
                         assigned)
            return
        if owner in members or assigned != self.host:
            return
        if continuous:
            if audit_runs.change_owner(context, uuid, owner, self.host):
                LOG.info('Continuous audit %s taken over from %s', uuid,
                         owner)
        elif audit_runs.release(context, owner, uuids=[uuid]):
            LOG.info('Audit %s of gone engine %s runs again', uuid, owner)
            self.submit(uuid)

    def expire_pools(self):
        """Delete the notification queues of engines gone for good."""
        if self.collectors is None or not self.collectors.list():
            return
        members = self.group.members() if self.group else None
        if not members:
            return
        pools.delete_pools(pools.gone_engines(
            members, CONF.watcher_decision_engine.notification_pool_expiry))

    def _busy(self, key):
        with self._lock:
            return key in self._in_flight

    def watch_services(self):
        """Announce services that went FAILED or came back ACTIVE, once:
        every engine looks, one wins the compare-and-swap and notifies."""
        context = watcher_context.admin_context()
        members = coordination.members_by_binary()
        for row in services_db.all_services(context):
            current = services_db.status(row, members)
            if (current != row['notified_status']
                    and services_db.announce(context, row, current)):
                LOG.info('Service %s on %s is now %s', row['name'],
                         row['host'], current)
                notifier.service_update(row, row['notified_status'],
                                        current)

    def stop(self, timeout):
        """Take no more work; give running audits until ``timeout``, then
        hand every audit this engine holds back to the others."""
        deadline = time.monotonic() + timeout
        self._stopping.set()
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        while self._in_flight and time.monotonic() < deadline - 1:
            time.sleep(0.1)
        if self.collectors is not None:
            self.collectors.stop()
        if self._listener is not None:
            self._listener.stop()
        if self.dispatcher is not None:
            self.dispatcher.stop()
        released = audit_runs.release(watcher_context.admin_context(),
                                      self.host)
        if released:
            LOG.info('Handed %d audit(s) back to the other engines',
                     released)


def topic():
    return rpcapi.TOPIC
