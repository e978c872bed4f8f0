"""[watcher_decision_engine] options."""

from oslo_config import cfg

from watcher_ha.conf import owned_work
from watcher_ha.conf import prose

GROUP = cfg.OptGroup('watcher_decision_engine',
                     title='Decision engine options')

OPTS = [
    cfg.IntOpt(
        'max_audit_workers', default=4, min=1,
        help='Audits one decision engine computes at the same time.'),
    *owned_work.opts('audits', 'a new PENDING audit', 'engine',
                     'their trigger message lost, or their engine gone'),
    cfg.IntOpt(
        'action_plan_expiry', default=24, min=0, mutable=True,
        help=prose.paragraph("""Hours after which an action plan nobody started
            (still RECOMMENDED) expires: it becomes SUPERSEDED and can no
            longer be started, since the cloud it was computed for has moved
            on; 0 never expires them. Watcher's option of the same name.""")),
    cfg.IntOpt(
        'check_periodic_interval', default=30 * 60, min=1, mutable=True,
        help=prose.paragraph("""Seconds between two looks of each decision
            engine for expired action plans (action_plan_expiry). Watcher's
            option of the same name.""")),
    cfg.IntOpt(
        'superseded_plan_retention', default=24 * 3600, min=0,
        mutable=True,
        help=prose.paragraph("""Seconds the action plans of a continuous audit
            that a later round replaced (CANCELLED without ever starting, or
            empty) are kept before they are archived (DELETED), so that
            watcher-ha-db-manage purge removes them in time; 0 keeps them.
            Plans that were started are never archived by this.""")),
    cfg.FloatOpt(
        'continuous_audit_check_interval', default=1.0, min=0.1,
        mutable=True,
        deprecated_name='continuous_audit_interval',
        help=prose.paragraph("""Seconds between two looks for continuous audits
            due for a round.""")),
    cfg.StrOpt(
        'nova_exchange', default='nova',
        help=prose.paragraph("""Exchange on which Nova publishes its
            notifications (its control_exchange).""")),
    cfg.StrOpt(
        'nova_topic', default='versioned_notifications',
        help=prose.paragraph("""Topic of Nova's versioned notifications
            ([notifications] versioned_notifications_topics in
            nova.conf).""")),
    cfg.StrOpt(
        'cinder_exchange', default='openstack',
        help=prose.paragraph("""Exchange on which Cinder publishes its
            notifications (its control_exchange, oslo.messaging's default
            "openstack" unless cinder.conf sets it). Listened to when the
            storage collector is enabled.""")),
    cfg.StrOpt(
        'cinder_topic', default='notifications',
        help=prose.paragraph("""Topic of Cinder's notifications
            ([oslo_messaging_notifications] topics in cinder.conf).""")),
    cfg.IntOpt(
        'notification_batch_size', default=256, min=1,
        help=prose.paragraph("""Nova notifications the listener takes from the
            broker before it hands them to the data models as one change.
            Larger batches apply a burst faster.""")),
    cfg.FloatOpt(
        'notification_batch_timeout', default=0.1, min=0.001,
        help=prose.paragraph("""Seconds the listener waits to fill a batch
            before it hands over what it has: the most a quiet cloud's
            notification waits before it reaches the model.""")),
    cfg.IntOpt(
        'notification_listener_processes', default=0, min=0,
        help=prose.paragraph("""Processes that read Nova's notifications from
            the broker for this decision engine and pass them to its data
            models. 0: the engine's own process reads them, which on
            oslo.messaging's RabbitMQ driver bounds it to about 3,000
            notifications a second per core (every message is read, decoded and
            acknowledged on one thread). Each process reads as much again, on a
            core of its own; 2 suits a cloud whose bursts (mass evacuations,
            large boots) exceed that. Needs a broker: the in-process fake://
            transport cannot be shared.""")),
    cfg.IntOpt(
        'gc_young_threshold', default=50000, min=0,
        help=prose.paragraph("""Net allocations between two young-generation
            collections of the Python garbage collector in a process that holds
            the data models (CPython's default is 700; 0 keeps it). At the
            default pace the collector scans the model so often that it takes a
            third of the CPU of an engine draining a burst of
            notifications.""")),
    cfg.ListOpt(
        'collectors', default=['compute'],
        deprecated_opts=[cfg.DeprecatedOpt('collector_plugins',
                                           group='collector')],
        help=prose.paragraph("""Cluster data model collectors (namespace
            watcher_ha.collectors) each decision engine runs: compute (Nova),
            storage (Cinder).""")),
    cfg.IntOpt(
        'notification_pool_expiry', default=86400, min=600, mutable=True,
        help=prose.paragraph("""Seconds after which the notification queue of a
            decision engine that left the coordination group (and stopped
            heartbeating) is deleted from RabbitMQ. Until then the queue keeps
            what it missed for when it comes back.""")),
    cfg.IntOpt(
        'model_ready_timeout', default=60, min=0, mutable=True,
        help=prose.paragraph("""Seconds an audit waits for a data model whose
            first full sync has not completed, before it fails.""")),
    cfg.StrOpt(
        'planner', default='weight',
        deprecated_opts=[cfg.DeprecatedOpt('planner',
                                           group='watcher_planner')],
        help=prose.paragraph("""The planner plugin (namespace
            watcher_ha.planners) that orders into an action plan the actions of
            the strategies that name no planner of their own (as Watcher's,
            most name none; node_resource_consolidation, workload_stabilization
            and workload_balance do). A planner named here or by a strategy and
            not installed stops the decision engine's start.""")),
    cfg.StrOpt(
        'metric_map_path', default='/etc/watcher-ha/metric_map.yaml',
        help=prose.paragraph("""YAML file overriding what the datasources query
            for each metric: {datasource: {metric: series}}, for example
            "prometheus: {host_outlet_temp:
            'ipmi_temperature_celsius{name="Outlet"}'}" or "gnocchi:
            {instance_cpu_usage: cpu}"; null removes a metric from a
            datasource. Read once when the decision engine starts; a missing
            file changes nothing, a malformed one stops the start. Watcher's
            option (whose default is /etc/watcher/metric_map.yaml).""")),
]
