"""OpenStack Watcher's options that mean nothing to watcher_ha.

A Watcher 17 configuration file is read as it is: Watcher's options that
have a meaning here are ours under the same group and name, or accepted
under Watcher's name as deprecated aliases of ours (oslo.config logs the
name to use). The others are in the table below, with the reason and,
where there is one, the option of ours to set instead.
``watcher-ha-status upgrade check`` lists those that are set;
tests/unit/conf/test_watcher_options.py checks that every Watcher 17 option is
one of the three.

``group`` and ``name`` are shell-style patterns (fnmatch): ``*`` as the
name ignores a whole group of Watcher's, including the keystoneauth
plugin options (auth_url, password...) set in it.
"""

import dataclasses
import fnmatch


@dataclasses.dataclass(frozen=True)
class Ignored:
    group: str
    name: str
    why: str


_UNUSED_AUTH = ('watcher_ha does not call this service: credentials, '
                'session and endpoint options for it are unused')

IGNORED = (
    # [DEFAULT]
    Ignored('DEFAULT', 'bindir', 'Watcher\'s own install path'),
    Ignored('DEFAULT', 'pybasedir', 'Watcher\'s own install path'),
    Ignored('DEFAULT', 'enable_authentication',
            'a boolean in Watcher: set [DEFAULT] auth_strategy (keystone '
            'or noauth)'),
    Ignored('DEFAULT', 'fatal_exception_format_errors',
            'no error message here is formatted from a template'),
    Ignored('DEFAULT', 'periodic_interval',
            'each periodic task has its own interval here (sweep_interval, '
            'check_periodic_interval, heartbeat_interval...)'),
    Ignored('DEFAULT', 'print_thread_pool_stats',
            'no eventlet thread pools here'),
    # [api]
    Ignored('api', 'enable_ssl_api',
            'the API serves plain HTTP: terminate TLS in front of it (a '
            'proxy, or uwsgi/gunicorn through the WSGI entry point)'),
    # [database]
    Ignored('database', 'mysql_engine',
            'the migrations create InnoDB tables on MySQL/MariaDB'),
    # [collector]: how Watcher's collectors poll Nova.
    Ignored('collector', 'api_query_interval',
            'the model resyncs through keystoneauth, whose [nova] '
            'connect_retries and status_code_retries apply'),
    Ignored('collector', 'api_query_max_retries',
            'the model resyncs through keystoneauth, whose [nova] '
            'connect_retries and status_code_retries apply'),
    Ignored('collector', 'compute_resources_collector_timeout',
            'a resync is bounded by [nova] timeout per request'),
    Ignored('compute_model', 'enable_extended_attributes',
            'always on: the model reads Nova at microversion 2.96'),
    # [nova]: Watcher's polling of its Nova actions.
    Ignored('nova', 'api_version',
            'watcher_ha always talks microversion 2.96 to Nova'),
    Ignored('nova', 'migration_interval',
            'set [watcher_applier] poll_interval (every action\'s wait)'),
    Ignored('nova', 'migration_max_retries',
            'set [watcher_applier] migration_timeout (in seconds)'),
    Ignored('nova', 'delete_interval',
            'no action deletes servers here'),
    Ignored('nova', 'delete_max_retries',
            'no action deletes servers here'),
    Ignored('nova', 'shelve_interval',
            'no action shelves servers here'),
    Ignored('nova', 'shelve_max_retries',
            'no action shelves servers here'),
    Ignored('nova', 'http_retries',
            'set keystoneauth\'s [nova] connect_retries'),
    Ignored('nova', 'http_retry_interval',
            'set keystoneauth\'s [nova] connect_retry_delay'),
    # The *_client groups Watcher replaced by keystoneauth's options;
    # region_name (and placement's interface) are accepted there.
    Ignored('nova_client', 'api_version',
            'watcher_ha always talks microversion 2.96 to Nova'),
    Ignored('nova_client', 'endpoint_type',
            'takes publicURL-style values: set [nova] valid_interfaces '
            '(public, internal or admin)'),
    Ignored('placement_client', 'api_version',
            'watcher_ha always talks microversion 1.6 to Placement'),
    Ignored('ironic_client', 'api_version',
            'watcher_ha always talks microversion 1.46 to Ironic'),
    Ignored('ironic_client', 'endpoint_type',
            'takes publicURL-style values: set [ironic] valid_interfaces '
            '(public, internal or admin)'),
    Ignored('cinder_client', 'api_version',
            'watcher_ha always talks microversion 3.60 to Cinder'),
    # Services watcher_ha does not call.
    Ignored('keystone', '*',
            _UNUSED_AUTH + ' (tokens are checked by [keystone_authtoken])'),
    Ignored('keystone_client', '*',
            _UNUSED_AUTH + ' (tokens are checked by [keystone_authtoken])'),
    Ignored('maas_client', '*', 'no MAAS integration here'),
    Ignored('grafana_client', '*', 'no Grafana datasource here'),
    Ignored('grafana_translators', '*', 'no Grafana datasource here'),
    Ignored('watcher_cluster_data_model_collectors.baremetal', '*',
            'no bare metal model here'),
    # Per-strategy options.
    Ignored('watcher_strategies.*', 'datasources',
            'every strategy uses [watcher_datasources] datasources'),
    # Messaging.
    Ignored('watcher_decision_engine', 'conductor_topic',
            'the RPC topics are watcher_ha\'s own, fixed'),
    Ignored('watcher_decision_engine', 'publisher_id',
            'the notifications\' publisher ids are fixed'),
    Ignored('watcher_decision_engine', 'notification_topics',
            'set [watcher_decision_engine] nova_exchange and nova_topic '
            '(and cinder_exchange and cinder_topic)'),
    Ignored('watcher_decision_engine', 'max_general_workers',
            'no general thread pool here'),
    Ignored('watcher_applier', 'conductor_topic',
            'the RPC topics are watcher_ha\'s own, fixed'),
    Ignored('watcher_applier', 'publisher_id',
            'the notifications\' publisher ids are fixed'),
    Ignored('watcher_applier', 'workflow_engine',
            'taskflow is the only workflow engine'),
    Ignored('watcher_workflow_engines.taskflow', 'max_workers',
            'set [watcher_applier] workers (actions of one plan at a '
            'time)'),
    Ignored('watcher_workflow_engines.taskflow', 'action_execution_rule',
            'no such rule here: a plan runs its actions in the order its '
            'planner gave them'),
)


def why_ignored(group, name):
    """Why Watcher's ``[group] name`` is ignored here, or None."""
    for entry in IGNORED:
        if (fnmatch.fnmatchcase(group, entry.group)
                and fnmatch.fnmatchcase(name, entry.name)):
            return entry.why
    return None
