"""watcher_ha.

Importing the package selects oslo.service's native threading backend,
before any library (oslo.messaging imports oslo.service) can fall back to
the eventlet one: watcher_ha never runs on eventlet. Tools that load us
after oslo.messaging (oslo-config-generator) only read our options, so a
backend already chosen is left alone there; the daemons check it at start
(``watcher_ha.service.service.prepare_service``).

Eventlet's deprecation notice is silenced, and its green DNS resolver
left unloaded, for the same reason.
"""

import os as _os
import warnings as _warnings

# oslo.service depends on eventlet, and futurist imports it when it is
# installed: eventlet's deprecation notice, nine lines on every command,
# would be about a library watcher_ha never runs on.
_warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
# Imported, eventlet would also import dnspython for a resolver only green
# threads use: a quarter of the CPU time each of our commands takes to
# start (0.5 s of 2 s for the applier). Said before anything imports it;
# an operator's own setting stands.
_os.environ.setdefault('EVENTLET_NO_GREENDNS', 'yes')

from oslo_service import backend as _backend  # noqa: E402
from oslo_service.backend import exceptions as _backend_exceptions  # noqa: E402

try:
    _backend.init_backend(_backend.BackendType.THREADING)
except _backend_exceptions.BackendAlreadySelected:
    pass
