"""[coordination] options: group membership across controllers (tooz)."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('coordination', title='Coordination options')

OPTS = [
    cfg.StrOpt(
        'backend_url',
        sample_default='file://$state_path/coordination',
        secret=True,
        help=prose.paragraph("""tooz backend through which the decision engines
            and appliers of every controller see each other: redis://HOST:6379
            (or zookeeper://, etcd3+http://) for several controllers. Unset:
            files under [DEFAULT] state_path, which only processes of this
            machine share.""")),
    cfg.IntOpt(
        'member_timeout', default=10, min=2,
        help=prose.paragraph("""Seconds a daemon must be seen absent from its
            group before it is presumed gone and its work is taken over; also
            how long nobody is presumed gone after a daemon (re)joins its group
            or fails to read it (a restarted backend forgets every member, and
            they all join again). A member's heartbeat record lasts a quarter
            of it (beats every eighth), so a dead daemon is taken over between
            1.1 and 1.35 times member_timeout (plus membership_refresh) after
            it died. A database transaction left idle this long is ended by
            the server (a daemon paused in the middle of one), so that the
            rows it locked are free for whoever takes its work over.""")),
    cfg.FloatOpt(
        'membership_refresh', default=1.0, min=0.1, mutable=True,
        help=prose.paragraph("""Seconds between two reads of the live members,
            and so between two looks for work to take over or hand over.""")),
]
