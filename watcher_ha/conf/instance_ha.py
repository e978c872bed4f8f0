"""[instance_ha] options: the Masakari-compatible instance-HA service."""

from oslo_config import cfg

GROUP = cfg.OptGroup('instance_ha', title='Instance high availability')

OPTS = [
    cfg.StrOpt(
        'api_path_prefix', default='/instance-ha',
        regex=r'^/[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$',
        help='Path under which watcher-ha-api serves the Masakari-'
             'compatible instance-ha API (v1): register '
             '<API URL><prefix>/v1/%(project_id)s as the keystone '
             'endpoint of service type "instance-ha" for '
             'python-masakariclient and masakari-monitors.'),
    cfg.IntOpt(
        'duplicate_notification_detection_interval', default=180, min=0,
        help='Seconds within which a second notification of the same '
             'type and payload from the same host (a monitor retrying) '
             'is refused as a duplicate (409), counted either side of '
             'the generated_time of the first. Masakari\'s option of the '
             'same name, in [DEFAULT] there.'),
    cfg.BoolOpt(
        'evacuate_all_instances', default=True,
        help='Evacuate every server of a failed host. False: only the '
             'servers with the metadata HA_Enabled=True (Masakari\'s '
             '[host_failure] option of the same name).'),
    cfg.IntOpt(
        'recovery_attempts', default=3, min=1,
        help='Attempts at recovering from one host failure before its '
             'notification is failed (each attempt after the first keeps '
             'the reserved hosts the earlier ones claimed).'),
    cfg.FloatOpt(
        'recovery_retry_interval', default=30, min=0,
        help='Seconds between a failed recovery attempt and the next.'),
    cfg.FloatOpt(
        'recovery_poll_interval', default=1, min=0.05,
        help='Seconds between two looks of a decision engine at the '
             'recovery plan it follows.'),
    cfg.IntOpt(
        'max_recovery_workers', default=8, min=1,
        help='Recoveries one decision engine follows at once (each takes '
             'a thread while its plan runs on the appliers).'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return OPTS
