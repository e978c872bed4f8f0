"""[nova], [placement], [ironic], [cinder] and [heat]: keystoneauth's
session, auth and adapter options for the Compute, Placement, Bare Metal,
Block Storage and Orchestration APIs; and Watcher's [cinder_client]
endpoint_type."""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from watcher_ha.conf import prose

SERVICE_TYPES = {'nova': 'compute', 'placement': 'placement',
                 'ironic': 'baremetal', 'cinder': 'block-storage',
                 'heat': 'orchestration'}
# Seconds a request may take (keystoneauth's ``timeout``, None by
# default): a Nova that hangs must not hold a resync or the notification
# worker for ever. A page of 1,000 servers with details takes seconds.
REQUEST_TIMEOUT = 60
# Watcher's names of some of these options, accepted as deprecated
# aliases: its [*_client] groups, which keystoneauth's options replaced.
# (Its endpoint_type takes "publicURL"-style values, which
# valid_interfaces refuses: see conf/watcher_ignored.py.)
WATCHER_NAMES = {
    'nova': {'region_name': [cfg.DeprecatedOpt('region_name',
                                               group='nova_client')]},
    'placement': {
        'region_name': [cfg.DeprecatedOpt('region_name',
                                          group='placement_client')],
        'valid_interfaces': [cfg.DeprecatedOpt('interface',
                                               group='placement_client')]},
    'ironic': {'region_name': [cfg.DeprecatedOpt('region_name',
                                                 group='ironic_client')]},
    'cinder': {'region_name': [cfg.DeprecatedOpt('region_name',
                                                 group='cinder_client')]},
}

# Watcher 17 still reads [cinder_client] endpoint_type ("publicURL"-style)
# when [cinder] sets no interface: so does watcher_ha (cloud/clients.py
# cinder()).
CINDER_CLIENT = 'cinder_client'
CINDER_CLIENT_OPTS = [
    cfg.StrOpt(
        'endpoint_type', default='publicURL',
        choices=['public', 'internal', 'admin', 'publicURL', 'internalURL',
                 'adminURL'],
        deprecated_for_removal=True,
        deprecated_reason='Set [cinder] valid_interfaces (keystoneauth).',
        help=prose.paragraph("""Interface of the Block Storage endpoint, used
            only when [cinder] valid_interfaces is not set (as in Watcher
            17).""")),
]


def register_opts(conf):
    # Registering the same options again changes nothing: a ConfigOpts
    # may come here more than once.
    for group, service_type in SERVICE_TYPES.items():
        ks_loading.register_session_conf_options(conf, group)
        ks_loading.register_auth_conf_options(conf, group)
        ks_loading.register_adapter_conf_options(
            conf, group, deprecated_opts=WATCHER_NAMES.get(group))
        conf.set_default('service_type', service_type, group=group)
        conf.set_default('timeout', REQUEST_TIMEOUT, group=group)
    conf.register_opts(CINDER_CLIENT_OPTS, group=CINDER_CLIENT)


def list_opts():
    """(group, options) for the sample configuration."""
    listed = []
    for group in SERVICE_TYPES:
        opts = (ks_loading.get_session_conf_options()
                + ks_loading.get_auth_common_conf_options()
                + ks_loading.get_adapter_conf_options(
                    deprecated_opts=WATCHER_NAMES.get(group)))
        for opt in opts:
            # Fresh copies from keystoneauth: the sample shows our default.
            if opt.dest == 'timeout':
                opt.default = REQUEST_TIMEOUT
        listed.append((group, opts))
    listed.append((CINDER_CLIENT, CINDER_CLIENT_OPTS))
    return listed
