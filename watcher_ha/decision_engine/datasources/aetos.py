"""The ``aetos`` datasource: the prometheus datasource's queries sent
through Keystone to Aetos, the ``metric-storage`` service of the catalog
(Aetos serves Prometheus's API under its endpoint), as ``[aetos_client]``
says. What Prometheus behind Aetos needs is what the prometheus datasource
documents.

Watcher refuses to list both prometheus and aetos; here the order of
``[watcher_datasources] datasources`` decides, as for any two.
"""

from watcher_ha.decision_engine.datasources import keystone
from watcher_ha.decision_engine.datasources import prometheus

SERVICE_TYPE = 'metric-storage'


class AetosDatasource(prometheus.PrometheusDatasource):
    name = 'aetos'
    group = 'aetos_client'

    def __init__(self, conf):
        super().__init__(conf)
        self._adapter = keystone.LazyAdapter(conf, SERVICE_TYPE,
                                             'aetos_client', 'interface')

    def _check_options(self):
        pass  # the catalog gives the endpoint

    def _keystone(self):
        return self._adapter.get()

    def _location(self):
        return keystone.endpoint(self._keystone(), SERVICE_TYPE)

    def _send(self, method, path, **kwargs):
        return keystone.request(self._keystone(), method, path,
                                timeout=prometheus.REQUEST_TIMEOUT,
                                **kwargs)
