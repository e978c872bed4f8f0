"""The decision engine: RPC endpoints, audits in a thread pool, sweeps."""

import threading

from oslo_config import cfg
from oslo_log import log

from watcher_ha.common import audit_scope
from watcher_ha.common import context as watcher_context
from watcher_ha.common import exception
from watcher_ha.common import plugins
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import AuditType
from watcher_ha.db import action_plans
from watcher_ha.db import audit_runs
from watcher_ha.db import installed_plugins
from watcher_ha.db import models
from watcher_ha.db import services as services_db
from watcher_ha.decision_engine import auditor
from watcher_ha.decision_engine import loaded_plugins
from watcher_ha.decision_engine import pipelines
from watcher_ha.decision_engine import rpcapi
from watcher_ha.decision_engine import scope as compute_scope
from watcher_ha.decision_engine import storage_scope
from watcher_ha.decision_engine import strategy_metrics
from watcher_ha.decision_engine.datasources import loader as \
    datasource_loader
from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import listener_process
from watcher_ha.decision_engine.feed import pools
from watcher_ha.decision_engine.feed import reconnects
from watcher_ha.decision_engine.instance_ha import failure_detection
from watcher_ha.decision_engine.instance_ha import recoveries
from watcher_ha.decision_engine.model import garbage_collection
from watcher_ha.decision_engine.model import listing
from watcher_ha.decision_engine.model.collector import manager as \
    collector_manager
from watcher_ha.decision_engine.planner import loader as planner_loader
from watcher_ha.decision_engine.what_if import report as what_if_report
from watcher_ha.notifications import notifier
from watcher_ha.service import coordination
from watcher_ha.service import daemon
from watcher_ha.service import ownership

CONF = cfg.CONF
LOG = log.getLogger(__name__)

BINARY = 'watcher-ha-decision-engine'


class Endpoints:
    """What other services call; every handler is idempotent."""

    def __init__(self, manager):
        self._manager = manager

    def trigger_audit(self, context, audit_uuid):
        self._manager.submit(audit_uuid)

    def trigger_audit_pipeline(self, context, audit_pipeline_uuid):
        """Plan the audit pipeline (watcher-specs audit-pipeline.rst,
        "RPC and Service Routing"); whichever engine claims it first."""
        self._manager.submit_pipeline(audit_pipeline_uuid)

    def recover_notification(self, context, notification_uuid):
        self._manager.recover(notification_uuid)

    def follow_recovery(self, context, notification_uuid):
        """The attempt of the notification has a step to take (its plan
        or audit ended, or a plan its recovery plan waits for did): its
        owner takes it; another engine changes nothing
        (recoveries.Recoveries.take follows only what it holds)."""
        self._manager.recover(notification_uuid)

    def get_data_model_info(self, context, data_model_type, audit_uuid):
        """The model as Watcher lists it, with its generation and age (an
        engine that keeps no such model lists nothing, and says so)."""
        try:
            model = self._manager.model(data_model_type)
        except exception.NotFound as err:
            return {'context': [], 'model': {
                'name': data_model_type, 'host': self._manager.host,
                'enabled': False, 'reason': str(err)}}
        snapshot, excluded = model.snapshot(), frozenset()
        if audit_uuid and data_model_type == 'compute':
            # The part of the model the audit's strategy sees.
            snapshot, excluded = compute_scope.narrowed(
                snapshot, _scope_of(context, audit_uuid))
        elif audit_uuid and data_model_type == 'storage':
            snapshot = storage_scope.apply(snapshot,
                                           _scope_of(context, audit_uuid))
        return {'context': listing.entries(snapshot, excluded),
                'model': dict(model.info(), host=self._manager.host,
                              enabled=True)}

    def what_if(self, context, plan_uuid, all_hosts=False):
        """A RECOMMENDED plan run on a copy of this engine's compute model
        (what_if/report.py), or {'error': ...} (rpcapi.what_if raises
        it in the API)."""
        try:
            return self._manager.what_if(plan_uuid, all_hosts)
        except exception.WatcherHAError as err:
            return {'error': {'code': err.code, 'error_code': err.error_code,
                              'message': err.message}}

    def get_strategy_info(self, context, strategy_name):
        """What the strategy needs (datasources, metrics, data models)."""
        strategy = self._manager.loaded.strategies.get(strategy_name)
        return list(getattr(strategy, 'requirements', ()))


def _scope_of(context, audit_uuid):
    """The audit's scope, checked (nothing if the audit is gone, or its
    scope, stored before scopes were checked, is invalid: logged)."""
    try:
        return audit_scope.check(
            audit_runs.get(context, audit_uuid)['scope'] or [])
    except exception.AuditNotFound:
        return []
    except audit_scope.InvalidScope as err:
        LOG.warning('Audit %s: %s; its whole model is shown', audit_uuid,
                    err)
        return []


class Audits:
    """Audits as owned work (ownership.Domain): one-shot and event audits
    are held while an engine computes them; continuous audits between
    their rounds too, and they follow the hash ring."""

    kind = 'audit'

    def __init__(self, host):
        self.host = host
        self.auditor = None

    def unclaimed(self, context):
        return audit_runs.unclaimed(
            context, CONF.watcher_decision_engine.pending_grace)

    def held(self, context):
        return [ownership.Held(
            uuid, owner, follows_ring=audit_type == AuditType.CONTINUOUS,
            needs_worker=audit_type != AuditType.CONTINUOUS)
            for uuid, audit_type, owner in audit_runs.ongoing(context)]

    def take(self, uuid):
        self.auditor.run(uuid)
        self._ended(uuid)

    def _ended(self, uuid):
        """The audit computed here may be an instance-HA recovery's: its
        owner hears that it ended (without a plan, or with one waiting
        for the plans it preempts; nothing is sent otherwise)."""
        rpcapi.DecisionEngineAPI().audit_ended(
            watcher_context.admin_context(), uuid)

    def request_id(self, uuid):
        return audit_runs.request_id(watcher_context.admin_context(), uuid)

    def adopt(self, context, held, gone):
        return audit_runs.change_owner(context, held.uuid, gone, self.host)

    def resume(self, uuid, why, previous):
        self.auditor.resume(uuid)
        self._ended(uuid)

    def hand_over(self, context, held, to):
        return audit_runs.change_owner(context, held.uuid, self.host, to)

    def interrupt(self, uuids, why=None):
        # An audit's only effect is its plan, stored by a compare-and-swap
        # on the owner: a computation that lost its audit stores nothing.
        return set()

    def release(self, context):
        released = audit_runs.release(context, self.host)
        if released:
            LOG.info('Handed %d audit(s) back to the other engines',
                     released)


class DecisionEngineManager:

    def __init__(self, host=None, transports=None):
        """``transports``: {source: transport} for the notifications that
        do not come on the configured notification transport (an embedded
        simulated cloud's; see feed.listener.NovaListener)."""
        self.host = host or CONF.host
        self._transports = transports
        self.loaded = None
        self.audits = Audits(self.host)
        self.owner = ownership.Owner(
            self.audits, self.host,
            CONF.watcher_decision_engine.max_audit_workers,
            threading.Event())
        # Audit pipelines, planned as one-shot audits are computed.
        self.pipelines = pipelines.Pipelines(self.host)
        self.pipeline_owner = ownership.Owner(
            self.pipelines, self.host,
            CONF.watcher_decision_engine.max_audit_workers,
            threading.Event())
        # Host notifications (instance HA): their recoveries.
        stopping = threading.Event()
        self.recoveries = recoveries.Recoveries(self.host, stopping,
                                                self.submit)
        self.recovery_owner = ownership.Owner(
            self.recoveries, self.host,
            CONF.instance_ha.max_recovery_workers, stopping)
        # Host failures seen in Nova, reported as a monitor would.
        self.detector = failure_detection.Detector(
            lambda: self.model('compute'), self.recover,
            read_services=self._compute_services)
        self.collectors = None
        self.dispatcher = None
        self._listener = None
        # What was missed while the broker connections were down
        # (feed/reconnects.py).
        self.resync_after_reconnect = reconnects.ResyncAfterReconnect(
            self._synced_models, lambda name: self.collectors.resync(name))
        self._reconnect_watch = None

    @property
    def auditor(self):
        return self.audits.auditor

    @property
    def group(self):
        return self.owner.group

    def start(self, group=None):
        """``group``: this engine's membership of the engines' group
        (None: a lone engine that owns everything)."""
        context = watcher_context.admin_context()
        installed_plugins.sync(context)
        self.loaded = loaded_plugins.LoadedPlugins()
        strategy_metrics.known(self.loaded.strategies)
        self.audits.auditor = auditor.Auditor(
            self.host, self.loaded,
            planner_loader.load(CONF, self.loaded.strategies), self.model,
            refresh_servers=lambda name, host: self.collectors
            .refresh_servers(name, host),
            datasources=datasource_loader.load(CONF))
        self.pipelines.handler = pipelines.Handler(
            self.host, self.loaded, self.auditor.planners, self.model,
            datasources=self.auditor.datasources)
        self._start_models()
        # One-shot audits stamped with this host were being computed by an
        # earlier life of this engine: computed again from scratch.
        self.owner.start(group)
        self.pipeline_owner.start(group)
        self.recovery_owner.start(group)

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
        self._reconnect_watch = reconnects.ReconnectWatch(
            self.resync_after_reconnect.reconnected).install()
        self._listener = listener_process.nova_listener(
            self.dispatcher, self.host, transports=self._transports)
        self._listener.start()

    def watch_feed(self):
        """Replace the notification listener if its connection keeps
        failing while a broker answers; resync the models once the
        connections came back (feed/reconnects.py)."""
        listener = self._listener
        connection_ids = getattr(listener, 'connection_ids', None)
        if self._reconnect_watch is not None and connection_ids:
            wedged = self._reconnect_watch.failing(connection_ids())
            if wedged and reconnects.brokers_answer(pools.broker_urls()):
                LOG.warning('The connection(s) %s of the notification '
                            'listener have failed for %d s while a broker '
                            'answers: listening again on new connections',
                            ', '.join(wedged), reconnects.STUCK_SECONDS)
                listener.replace()
                self._reconnect_watch.forget(wedged)
                self.resync_after_reconnect.reconnected()
        self.resync_after_reconnect.check()

    def _synced_models(self):
        """The models that had a full sync (the others are having their
        first)."""
        if self.collectors is None:
            return []
        return [name for name in self.collectors.list()
                if self.collectors.model(name).ready]

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

    def what_if(self, plan_uuid, all_hosts=False):
        """The what-if of plan ``plan_uuid`` on the compute model (read
        with the engine's own context: the API checked the caller's
        right to it); ServiceUnavailable while the model has no first
        sync or without one."""
        try:
            model = self.model('compute')
        except exception.NotFound as err:
            raise exception.ServiceUnavailable(reason=str(err))
        if not model.ready:
            raise exception.ServiceUnavailable(
                reason='The compute data model of decision engine %s is '
                       'still being built (no full sync of the cluster has '
                       'completed yet); ask again shortly.' % self.host)
        collector = self.collectors.get('compute')
        return what_if_report.for_plan(
            watcher_context.admin_context(), plan_uuid, model,
            self.loaded.goals,
            flavors=what_if_report.nova_flavors(collector.nova),
            cpu_usage=what_if_report.cpu_reader(self.auditor.datasources),
            all_hosts=all_hosts, host=self.host)

    def _compute_services(self):
        """Nova's compute services, through the compute collector's
        client."""
        return self.collectors.get('compute').nova().services.list(
            binary='nova-compute')

    def endpoints(self):
        return [Endpoints(self)]

    def periodic(self):
        engine = CONF.watcher_decision_engine
        return self.owner.periodic(
            'audits', lambda: engine.sweep_interval) + (
            self.pipeline_owner.periodic(
                'audit_pipelines', lambda: engine.sweep_interval)) + (
            self.recovery_owner.periodic(
                'notifications', lambda: engine.sweep_interval)) + [
            daemon.Periodic('continuous_audits', self.run_due_rounds,
                            lambda: engine.continuous_audit_check_interval),
            daemon.Periodic('watch_services', self.watch_services,
                            lambda: CONF.heartbeat_interval),
            daemon.Periodic('archive_superseded_plans',
                            self.archive_superseded_plans,
                            lambda: ARCHIVE_INTERVAL),
            daemon.Periodic('expire_action_plans', self.expire_action_plans,
                            lambda: engine.check_periodic_interval,
                            at_start=True),
            daemon.Periodic('expire_notification_pools', self.expire_pools,
                            lambda: 600),
            daemon.Periodic('detect_host_failures', self.detector.look,
                            lambda: CONF.instance_ha.nova_detection_interval),
            daemon.Periodic('watch_feed', self.watch_feed,
                            lambda: reconnects.CHECK_SECONDS),
        ] + [
            daemon.Periodic('resync_%s_model' % name,
                            lambda name=name: self.collectors.resync(name),
                            lambda name=name: self.collectors.get(
                                name).options.period,
                            at_start=True)
            for name in (self.collectors.list() if self.collectors else ())
        ]

    def submit(self, audit_uuid):
        self.owner.submit(audit_uuid, self.audits.take, audit_uuid)

    def submit_pipeline(self, pipeline_uuid):
        self.pipeline_owner.submit(pipeline_uuid, self.pipelines.take,
                                   pipeline_uuid)

    def recover(self, notification_uuid):
        self.recovery_owner.submit(notification_uuid, self.recoveries.take,
                                   notification_uuid)

    def run_due_rounds(self):
        for uuid in audit_runs.due_continuous(
                watcher_context.admin_context(), self.host,
                models.utcnow()):
            self.owner.submit(uuid, self.auditor.run_round, uuid)

    def archive_superseded_plans(self):
        """Archive the plans of continuous audits that later rounds
        replaced, once older than the retention (any engine may: each
        archive is a compare-and-swap)."""
        retention = CONF.watcher_decision_engine.superseded_plan_retention
        if not retention:
            return
        archived = action_plans.archive_superseded(
            watcher_context.admin_context(), retention)
        if archived:
            LOG.info('Archived %d action plan(s) of continuous audits that '
                     'later rounds replaced', len(archived))
        for uuid in archived:
            notifier.action_plan('delete', uuid)

    def expire_action_plans(self):
        """Supersede the plans nobody started within action_plan_expiry
        hours (any engine may: each is a compare-and-swap, one wins and
        notifies)."""
        hours = CONF.watcher_decision_engine.action_plan_expiry
        if not hours:
            return
        expired = action_plans.expire_recommended(
            watcher_context.admin_context(), hours)
        if expired:
            LOG.info('%d action plan(s) recommended for more than %d '
                     'hour(s) and never started are SUPERSEDED',
                     len(expired), hours)
        engines = rpcapi.DecisionEngineAPI()
        for uuid in expired:
            notifier.action_plan('update', uuid,
                                 old_state=ActionPlanState.RECOMMENDED)
            engines.plan_ended(watcher_context.admin_context(), uuid)

    def expire_pools(self):
        """Delete the notification queues of engines gone for good."""
        if self.collectors is None or not self.collectors.list():
            return
        # The last read of the membership (a read here could find this
        # engine lapsed and join again behind the ownership engine's back).
        members = self.group.last_members if self.group else None
        if not members:
            return
        pools.delete_pools(pools.gone_engines(
            members, CONF.watcher_decision_engine.notification_pool_expiry))

    def watch_services(self):
        """Announce services that went FAILED or came back ACTIVE, once:
        every engine looks, one wins the compare-and-swap and notifies.
        Services silent for longer than the retention are forgotten."""
        context = watcher_context.admin_context()
        members = coordination.members_by_binary()
        rows = services_db.all_services(context)
        for row in rows:
            current = services_db.status(row, members)
            if (current != row['notified_status']
                    and services_db.announce(context, row, current)):
                LOG.info('Service %s on %s is now %s', row['name'],
                         row['host'], current)
                notifier.service_update(row, row['notified_status'],
                                        current)
        retention = CONF.service_retention
        if retention:
            for row in services_db.forget_silent(context, rows, retention,
                                                 members):
                LOG.info('Service %s on %s was silent for over %d s: '
                         'removed from the services', row['name'],
                         row['host'], retention)

    def stop(self, timeout):
        """Take no more work; give running audits until ``timeout``, then
        hand every audit this engine holds back to the others."""
        # Following a recovery stops at once: the others pick it up.
        self.recovery_owner.stop(min(timeout, 5))
        # Planning a pipeline has no effect but its plan: handed back at
        # once, another engine plans it again.
        self.pipeline_owner.stop(min(timeout, 1))
        self.owner.stop(timeout)
        if self.collectors is not None:
            self.collectors.stop()
        if self._reconnect_watch is not None:
            self._reconnect_watch.uninstall()
        if self._listener is not None:
            self._listener.stop()
        if self.dispatcher is not None:
            self.dispatcher.stop()


# Seconds between two looks for plans of continuous audits to archive.
ARCHIVE_INTERVAL = 300


def topic():
    return rpcapi.TOPIC
