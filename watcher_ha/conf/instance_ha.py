"""[instance_ha] options: the Masakari-compatible instance-HA service."""

from oslo_config import cfg
from oslo_config import types

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('instance_ha', title='Instance high availability')

POWER_FENCING = ('never', 'unknown', 'always')

OPTS = [
    cfg.StrOpt(
        'api_path_prefix', default='/instance-ha',
        regex=r'^/[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$',
        help=prose.paragraph("""Path under which watcher-ha-api serves the
            Masakari-compatible instance-ha API (v1): register <API
            URL><prefix>/v1/%(project_id)s as the keystone endpoint of service
            type "instance-ha" for python-masakariclient and
            masakari-monitors.""")),
    cfg.IntOpt(
        'duplicate_notification_detection_interval', default=180, min=0,
        help=prose.paragraph("""Seconds within which a second notification of
            the same type and payload from the same host (a monitor retrying)
            is refused as a duplicate (409), counted either side of the
            generated_time of the first. Masakari's option of the same name, in
            [DEFAULT] there.""")),
    cfg.BoolOpt(
        'evacuate_all_instances', default=True,
        help=prose.paragraph("""Evacuate every server of a failed host. False:
            only the servers with the metadata HA_Enabled=True (Masakari's
            [host_failure] option of the same name).""")),
    cfg.BoolOpt(
        'add_reserved_host_to_aggregate', default=False,
        help=prose.paragraph("""Put each reserved host a recovery holds in the
            host aggregates of the failed host (and so in its availability
            zone) before servers are evacuated onto it, so that a server the
            scheduler keeps to a zone or an aggregate can land there; a held
            host the recovery did not use leaves them again when it goes back
            to the pool. Masakari's [host_failure] option of the same
            name.""")),
    cfg.BoolOpt(
        'process_all_instances', default=False,
        help=prose.paragraph("""Restart every server a VM notification reports
            failed. False: only the servers with the metadata HA_Enabled=True;
            the reports of the others are ignored (Masakari's
            [instance_failure] option of the same name).""")),
    cfg.IntOpt(
        'recovery_attempts', default=3, min=1,
        help=prose.paragraph("""Attempts at recovering from one failure (of a
            host, a server or a process) before its notification is failed
            (each attempt at a host's after the first keeps the reserved hosts
            the earlier ones held).""")),
    cfg.FloatOpt(
        'recovery_retry_interval', default=30, min=0,
        help='Seconds between a failed recovery attempt and the next.'),
    cfg.IntOpt(
        'max_evacuations', default=3, min=0, mutable=True,
        help=prose.paragraph("""A server evacuated this many times within
            max_evacuations_window is not evacuated again: it is left on its
            failed host, its vmove failed saying why, and the recovery ends
            failed on it, rather than let one server (a workload or image that
            brings its hosts down) take one host after another. 0: no
            limit.""")),
    cfg.IntOpt(
        'max_evacuations_window', default=3600, min=1, mutable=True,
        help=prose.paragraph("""Seconds over which max_evacuations counts a
            server's evacuations.""")),
    cfg.FloatOpt(
        'preemption_timeout', default=300, min=0, mutable=True,
        help=prose.paragraph("""Seconds a recovery plan waits for the
            optimisation plans holding its servers or hosts, cancelled for it,
            to end (an ongoing one stops once its running actions are aborted)
            before its attempt fails. Counted from the plan's making; the end
            of each such plan moves the recovery on at once, and the engine's
            self-check (every [watcher_decision_engine] sweep_interval) notices
            the timeout.""")),
    cfg.IntOpt(
        'max_recovery_workers', default=8, min=1,
        help=prose.paragraph("""Recoveries one decision engine moves on at once
            (each takes a thread while its engine starts or ends an attempt, or
            waits recovery_retry_interval before the next; none while its plan
            runs on the appliers).""")),
    # Power fencing (the power_off_host action, through Ironic).
    cfg.StrOpt(
        'power_fencing', default='unknown',
        choices=[('never', 'Never power a failed host off; a report '
                           'with host_status UNKNOWN is ignored.'),
                 ('unknown', 'Power a failed host off first when its '
                             'report says host_status UNKNOWN (its '
                             'monitor could not see it off, or Nova '
                             'reported it).'),
                 ('always', 'Power every failed host off before its '
                            'servers are evacuated.')],
        mutable=True,
        help=prose.paragraph("""When a recovery powers the failed host off
            through Ironic (the [ironic] options; the node named like the host)
            and evacuates only once Ironic confirmed it. Without [ironic]
            credentials there is no power fencing: reports with host_status
            UNKNOWN are ignored, and "always" recoveries fail at their first
            step.""")),
    cfg.Opt(
        'segment_power_fencing', default={}, mutable=True,
        type=types.Dict(value_type=types.String(choices=POWER_FENCING)),
        help=prose.paragraph("""power_fencing for some failover segments, by
            segment name (for example rack-1:always,lab:never); the others
            follow power_fencing.""")),
    # Failure detection from Nova
    # (decision_engine/instance_ha/failure_detection.py).
    cfg.IntOpt(
        'nova_detection_delay', default=300, min=0, mutable=True,
        help=prose.paragraph("""Seconds a decision engine must see the
            nova-compute service of a host of an enabled failover segment down
            (Nova already counts a service down only after its own
            service_down_time without a report), at every look, before it
            reports the host failed as a monitor would: a COMPUTE_HOST
            notification, host_status UNKNOWN. A host seen up meanwhile starts
            again from zero, so that a nova-compute restarting, a message bus
            or database failing over, or a flapping host is not reported. 0
            turns detection from Nova off (monitors only, as Masakari).""")),
    cfg.FloatOpt(
        'nova_detection_interval', default=10, min=1, mutable=True,
        help=prose.paragraph("""Seconds between two looks of a decision engine
            at the compute services: it reads them from Nova (one request,
            which also refreshes its compute data model: Nova sends no
            notification when a service stops reporting) and times the hosts it
            sees down.""")),
    cfg.FloatOpt(
        'nova_detection_max_down_fraction', default=0.5, min=0, max=1,
        mutable=True,
        help=prose.paragraph("""When more than this fraction of the watched
            hosts (hosts of enabled segments, not on maintenance, that Nova
            knows) are down at once, and more than one, nothing is reported:
            Nova shows every compute down when its conductor, database or
            message bus fails, and evacuating them all would be far worse than
            waiting. 1 reports whatever the count.""")),
]
