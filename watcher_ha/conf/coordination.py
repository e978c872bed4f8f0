"""[coordination] options: group membership across controllers (tooz)."""

from oslo_config import cfg

GROUP = cfg.OptGroup('coordination', title='Coordination options')

OPTS = [
    cfg.StrOpt(
        'backend_url',
        sample_default='file://$state_path/coordination',
        secret=True,
        help='tooz backend through which the decision engines and appliers '
             'of every controller see each other: redis://HOST:6379 (or '
             'zookeeper://, etcd3+http://) for several controllers. Unset: '
             'files under [DEFAULT] state_path, which only processes of '
             'this machine share.'),
    cfg.IntOpt(
        'member_timeout', default=10, min=2,
        help='Seconds after its last heartbeat at which a daemon is '
             'considered gone and its work is taken over. Heartbeats go '
             'out every half of it.'),
    cfg.FloatOpt(
        'membership_refresh', default=1.0, min=0.1, mutable=True,
        help='Seconds between two reads of the live members, and so '
             'between two looks for work to take over or hand over.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return OPTS
