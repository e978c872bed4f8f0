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

# Where a recovery puts a failed host's servers: wherever Nova's
# scheduler sends them, or on the segment's reserved hosts.
AUTO = 'auto'
RESERVED_HOST = 'reserved_host'
# A segment's recovery method -> the methods one round of attempts tries,
# each only once the one before it failed.
ROUNDS = {AUTO: (AUTO,),
          RESERVED_HOST: (RESERVED_HOST,),
          'auto_priority': (AUTO, RESERVED_HOST),
          'rh_priority': (RESERVED_HOST, AUTO)}
RECOVERY_METHODS = tuple(ROUNDS)

# VM moves (API 1.3).
VMOVE_TYPES = ('evacuation', 'migration', 'live_migration')
VMOVE_STATUSES = ('pending', 'ongoing', 'ignored', 'failed', 'succeeded')
