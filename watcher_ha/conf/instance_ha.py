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
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return OPTS
