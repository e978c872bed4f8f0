"""What the simulated Heat keeps: stacks, their resources and their
events, as Heat's database rows hold them, with the states of Heat's
ResourceStatus (an action and a status, shown joined: ``CREATE_COMPLETE``).

A stack's ``resources`` are rows: while an update replaces a resource
(Heat's convergence: the replacement is created, then the old one
deleted), two rows share its name; the newest is the one Heat lists.
Every state change of a stack and every change of a resource's state
adds an event (Heat's Stack._add_event, Resource._add_event); a resource
set again to the state it is in adds none, as in Heat's state_set.
"""

import dataclasses
import datetime
import itertools
import uuid as uuidlib

ACTIONS = ('INIT', 'CREATE', 'UPDATE', 'DELETE', 'CHECK', 'SIGNAL')
STATUSES = ('IN_PROGRESS', 'COMPLETE', 'FAILED')
STACK_TYPE = 'OS::Heat::Stack'
# Heat's stack_action_timeout: an action not done in an hour fails.
DEFAULT_TIMEOUT_MINS = 60
# An event keeps the first 255 characters of its reason (Heat's
# models.Event.resource_status_reason; a stack's or a resource's own
# status reason is kept whole).
EVENT_REASON_LENGTH = 255

# The order rows and events were made in, across the simulator (Heat's
# database ids): the tie-break of equal times.
_ORDER = itertools.count(1)


def new_uuid():
    return str(uuidlib.uuid4())


def isotime(moment):
    """Heat's API time (heat.common.timeutils.isotime)."""
    return None if moment is None else moment.strftime('%Y-%m-%dT%H:%M:%SZ')


@dataclasses.dataclass(eq=False)
class Event:
    stack: object
    resource_name: str
    physical_resource_id: str | None
    action: str
    status: str
    reason: str
    resource_type: str
    time: datetime.datetime
    properties: dict
    uuid: str = dataclasses.field(default_factory=new_uuid)
    order: int = dataclasses.field(default_factory=lambda: next(_ORDER))


@dataclasses.dataclass(eq=False)
class Resource:
    stack: object
    name: str
    type: str
    created_at: datetime.datetime
    # The names of the resources this one needed when it was made: it is
    # deleted after them.
    requires: frozenset = frozenset()
    action: str = 'INIT'
    status: str = 'COMPLETE'
    status_reason: str = ''
    physical_id: str | None = None
    updated_at: datetime.datetime | None = None
    # Resolved and checked, with defaults: what it was made with.
    properties: dict = dataclasses.field(default_factory=dict)
    # Heat's resource metadata (a WaitConditionHandle keeps its signals
    # there).
    metadata: dict = dataclasses.field(default_factory=dict)
    # A group's nested stack.
    nested: object = None
    # The row this one replaces.
    replaces: object = None
    # The action under way on it (traversal.Operation), whichever
    # traversal started it: a newer traversal waits for it.
    operation: object = None
    # Every signal it received: {details, at, accepted}.
    signals: list = dataclasses.field(default_factory=list)
    uuid: str = dataclasses.field(default_factory=new_uuid)
    order: int = dataclasses.field(default_factory=lambda: next(_ORDER))

    @property
    def state(self):
        return self.action, self.status


@dataclasses.dataclass(eq=False)
class Stack:
    id: str
    name: str
    tenant: str
    template: object                # template.Template
    parameters: dict                # what the user gave
    values: dict                    # every parameter's value
    created_at: datetime.datetime
    user_id: str | None = None
    username: str | None = None
    action: str = 'INIT'
    status: str = 'COMPLETE'
    status_reason: str = ''
    updated_at: datetime.datetime | None = None
    deleted_at: datetime.datetime | None = None
    # A nested stack's parent stack and resource, and its depth.
    owner: object = None
    parent_resource: str | None = None
    nested_depth: int = 0
    disable_rollback: bool = True
    timeout_mins: int | None = None
    tags: list | None = None
    resources: list = dataclasses.field(default_factory=list)
    events: list = dataclasses.field(default_factory=list)
    # The traversal that owns the stack's state (a newer one supersedes
    # it), and how many updates were accepted.
    traversal: object = None
    updates: int = 0
    order: int = dataclasses.field(default_factory=lambda: next(_ORDER))

    def current(self, name):
        """The newest row named ``name``, or None."""
        rows = [row for row in self.resources if row.name == name]
        return rows[-1] if rows else None

    def listed(self):
        """The rows Heat lists: the newest of each name, in the order
        their names were first made."""
        found = {}
        for row in self.resources:
            found.setdefault(row.name, []).append(row)
        return [rows[-1] for rows in found.values()]

    def root(self):
        return self if self.owner is None else self.owner.root()

    def timeout_seconds(self):
        return 60 * (self.timeout_mins or DEFAULT_TIMEOUT_MINS)
