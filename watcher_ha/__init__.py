"""watcher_ha.

Importing the package selects oslo.service's native threading backend,
before any library (oslo.messaging imports oslo.service) can fall back to
the eventlet one: watcher_ha never runs on eventlet.
"""

from oslo_service import backend as _backend

_backend.init_backend(_backend.BackendType.THREADING)
