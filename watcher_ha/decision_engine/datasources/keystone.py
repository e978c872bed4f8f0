"""Keystone adapters for the datasources behind the catalog (aetos,
gnocchi). They authenticate as the service user of ``[nova]`` (its
keystoneauth auth and session options), the credentials watcher_ha already
has for the cloud; Watcher takes the same from ``[watcher_clients_auth]``.
Built on first use: nothing here contacts Keystone."""

import dataclasses
import threading

from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import loading as ks_loading

from watcher_ha.cloud import clients
from watcher_ha.decision_engine.datasources import base
from watcher_ha.decision_engine.datasources import retry


def adapter(conf, service_type, interface, region_name,
            endpoint_override=None):
    """An adapter on ``service_type``'s endpoint of the catalog (or
    ``endpoint_override``)."""
    group = clients.NOVA_GROUP
    auth = ks_loading.load_auth_from_conf_options(conf, group)
    session = ks_loading.load_session_from_conf_options(conf, group,
                                                        auth=auth)
    return ks_adapter.Adapter(
        session, service_type=service_type,
        # keystoneauth looks endpoints up without Watcher's "URL" suffix.
        interface=interface.replace('URL', ''), region_name=region_name,
        endpoint_override=endpoint_override)


@dataclasses.dataclass
class LazyAdapter:
    """A datasource's adapter, built by ``get()`` on first use (by
    whichever thread comes first) from the options of its ``group``:
    region_name, endpoint_override and the interface option
    ``interface_option`` names."""
    conf: object
    service_type: str
    group: str
    interface_option: str
    _adapter: ks_adapter.Adapter | None = None
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def get(self):
        with self._lock:
            if self._adapter is None:
                options = getattr(self.conf, self.group)
                self._adapter = adapter(
                    self.conf, self.service_type,
                    getattr(options, self.interface_option),
                    options.region_name, options.endpoint_override)
            return self._adapter


def endpoint(an_adapter, service_type):
    """The endpoint's URL, or a description if it cannot be found now
    (the request will say why)."""
    try:
        return (an_adapter.get_endpoint() or service_type).rstrip('/')
    except ks_exceptions.ClientException:
        return 'the %s endpoint' % service_type


def request(an_adapter, method, path, **kwargs):
    """The response to ``method path``; Transient if Keystone or the
    service cannot be reached, DatasourceError for what retrying cannot
    mend (no such endpoint, refused credentials)."""
    try:
        return an_adapter.request(path, method, raise_exc=False, **kwargs)
    except (ks_exceptions.ConnectionError,
            ks_exceptions.RetriableConnectionFailure) as err:
        raise retry.Transient('%s: %s' % (type(err).__name__, err)) from err
    except ks_exceptions.ClientException as err:
        raise base.DatasourceError('%s %s: %s: %s' % (
            method, path, type(err).__name__, err)) from err
