"""The vocabularies of instance HA, as Masakari's API spells them."""

# Notification types.
COMPUTE_HOST = 'COMPUTE_HOST'
VM = 'VM'
PROCESS = 'PROCESS'
NOTIFICATION_TYPES = (COMPUTE_HOST, VM, PROCESS)

# Notification statuses.
NEW = 'new'
"""Accepted; no recovery has picked it up yet."""
RUNNING = 'running'
"""A recovery is working on it."""
ERROR = 'error'
"""A recovery failed and will be tried again."""
FAILED = 'failed'
"""Every try failed: an operator must look."""
IGNORED = 'ignored'
"""Recorded, and nothing to do (a host on maintenance, an event that
needs no recovery)."""
FINISHED = 'finished'
"""The recovery succeeded."""

# Statuses of a notification whose segment is busy: its segment and the
# segment's hosts may not be changed meanwhile.
IN_RECOVERY = (NEW, RUNNING, ERROR)

# Recovery methods of a segment.
RECOVERY_METHODS = ('auto', 'reserved_host', 'auto_priority', 'rh_priority')

# VM moves (API 1.3).
VMOVE_TYPES = ('evacuation', 'migration', 'live_migration')
VMOVE_STATUSES = ('pending', 'ongoing', 'ignored', 'failed', 'succeeded')
