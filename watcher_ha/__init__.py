"""watcher_ha.

Importing the package selects oslo.service's native threading backend,
before any library (oslo.messaging imports oslo.service) can fall back to
the eventlet one: watcher_ha never runs on eventlet. Tools that load us
after oslo.messaging (oslo-config-generator) only read our options, so a
backend already chosen is left alone there; the daemons check it at start
(``watcher_ha.common.service.prepare_service``).
"""

from oslo_service import backend as _backend
from oslo_service.backend import exceptions as _backend_exceptions

try:
    _backend.init_backend(_backend.BackendType.THREADING)
except _backend_exceptions.BackendAlreadySelected:
    pass
