"""[ironic] options of our own: power fencing through the Bare Metal API.

The group also holds keystoneauth's session, auth and adapter options
(cloud/clients.py registers them, as for [nova]), which say where Ironic
is and how to authenticate."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('ironic', title='Bare Metal (Ironic) API')

OPTS = [
    cfg.IntOpt(
        'power_timeout', default=120, min=1, mutable=True,
        help=prose.paragraph("""Seconds the power_off_host action waits for
            Ironic to confirm that a failed host is powered off (its node's
            power_state "power off", no power action under way), counted from
            its first look at the node; a node locked by another operation
            (409) is asked again within the same time. Keep it longer than
            Ironic's own wait for a BMC ([conductor]
            power_state_change_timeout, plus the driver's retries, such as
            [ipmi] command_retry_timeout), so that Ironic's verdict (the node's
            last_error) arrives first. The node is read every [watcher_applier]
            poll_interval seconds.""")),
]
