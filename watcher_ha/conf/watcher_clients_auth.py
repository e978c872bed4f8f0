"""[watcher_clients_auth]: Watcher's shared credentials for the services
it calls, read as Watcher reads them so that a Watcher configuration
works unchanged: [nova], [placement] or [ironic] with no auth_type of
their own authenticate, and take their session options (TLS files,
timeout), from here. Their endpoint options (region_name,
valid_interfaces, endpoint_override) stay their own."""

from keystoneauth1 import loading as ks_loading

from watcher_ha.conf import clients

GROUP = 'watcher_clients_auth'


def register_opts(conf):
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)
    conf.set_default('timeout', clients.REQUEST_TIMEOUT, group=GROUP)


def list_opts():
    opts = (ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options())
    for opt in opts:
        # Fresh copies from keystoneauth: the sample shows our default.
        if opt.dest == 'timeout':
            opt.default = clients.REQUEST_TIMEOUT
    return opts
