"""The services registry: which daemon runs where, and when it last
reported."""

from watcher_ha.common import exception
from watcher_ha.db import models
from watcher_ha.db import query

VIEW = query.View(
    model=models.Service,
    not_found=exception.ServiceNotFound, not_found_arg='service',
    lookup=('id', 'name'),
)
