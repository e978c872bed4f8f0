"""[nova], [placement] and [ironic]: keystoneauth's session, auth and
adapter options for the Compute, Placement and Bare Metal APIs."""

from keystoneauth1 import loading as ks_loading

SERVICE_TYPES = {'nova': 'compute', 'placement': 'placement',
                 'ironic': 'baremetal'}
# Seconds a request may take (keystoneauth's ``timeout``, None by
# default): a Nova that hangs must not hold a resync or the notification
# worker for ever. A page of 1,000 servers with details takes seconds.
REQUEST_TIMEOUT = 60


def register_opts(conf):
    # Registering the same options again changes nothing: a ConfigOpts
    # may come here more than once.
    for group, service_type in SERVICE_TYPES.items():
        ks_loading.register_session_conf_options(conf, group)
        ks_loading.register_auth_conf_options(conf, group)
        ks_loading.register_adapter_conf_options(conf, group)
        conf.set_default('service_type', service_type, group=group)
        conf.set_default('timeout', REQUEST_TIMEOUT, group=group)


def list_opts():
    """(group, options) for the sample configuration."""
    opts = (ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_adapter_conf_options())
    for opt in opts:
        # Fresh copies from keystoneauth: the sample shows our default.
        if opt.dest == 'timeout':
            opt.default = REQUEST_TIMEOUT
    return [(group, opts) for group in SERVICE_TYPES]
