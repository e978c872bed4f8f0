"""Heat's convergence engine (its default since Newton), as the
simulator runs it: a stack action is a traversal of the stack's
resources in dependency order, on the engine's ticks (heat/engine/
stack.py converge_stack, check_resource.py, resource.py at 26.0.0).

A create or an update converges each resource of the template once
those it needs have: a row never made is created; one the update must
replace (a FAILED one, CHECK_FAILED included, as its type decides;
with ``converge``, one whose physical resource is gone) gets a new row
of the same name, created first, and the old row is deleted once the
replacement and the resources needing it are done (a replaced server's
successor is ACTIVE before the old one is deleted); a group updates its
nested stack; any other is left as it is. Rows the template no longer
names, and rows an earlier update replaced, are deleted after the rows
needing them. A delete deletes every row that way.

Each resource's action is an Operation (CREATE_IN_PROGRESS, then
CREATE_COMPLETE or CREATE_FAILED...). A failure fails the stack
(``Resource CREATE failed: <Kind>: resources.<name>: <message>``):
nothing more starts, what runs finishes. A new action on a stack whose
traversal runs supersedes it, as in Heat (no 409): the old traversal
starts nothing more and no longer sets the stack's state, and the new
one waits for the resources the old one still works on.
"""

import dataclasses
import datetime

from watcher_ha.simulator.heat import errors

NO_CHANGE_ON_FAILED = ('Update status to COMPLETE for FAILED resource '
                       'neither update nor replace.')
# An action's two steps on the resource type: start it, then poll it.
STEPS = {'CREATE': ('create', 'created'), 'UPDATE': ('update', 'updated'),
         'DELETE': ('delete', 'deleted')}


class Operation:
    """One action on one resource row, from IN_PROGRESS to COMPLETE or
    FAILED; ``failure`` the row's status reason when it failed."""

    def __init__(self, heat, row, action):
        self.heat, self.row, self.action = heat, row, action
        self.failure = None
        self.finished = False

    def start(self):
        self.row.operation = self
        if self.action == 'UPDATE':
            self.row.updated_at = self.heat.now()
        self.heat.set_resource_state(self.row, self.action, 'IN_PROGRESS',
                                     'state changed')
        self._call(STEPS[self.action][0])

    def poll(self):
        """Whether the action is over."""
        if not self.finished and self._call(STEPS[self.action][1]):
            self._end('COMPLETE', 'state changed')
        return self.finished

    def _call(self, step):
        kind = self.heat.kind(self.row.type)
        try:
            return getattr(kind, step)(self.heat, self.row)
        except errors.ResourceFailure as failure:
            self.failure = failure.reason(['resources', self.row.name])
            self._end('FAILED', self.failure)
            return False

    def _end(self, status, reason):
        self.finished = True
        self.row.operation = None
        self.heat.set_resource_state(self.row, self.action, status, reason)


@dataclasses.dataclass(eq=False)
class Cleanup:
    """A row to delete, once the resources named in ``after`` are
    converged."""
    row: object
    after: frozenset = frozenset()


class Traversal:

    def __init__(self, heat, stack, action, template, converge=False):
        self.heat, self.stack, self.action = heat, stack, action
        self.template = template
        self.converge = converge
        self.started_at = heat.now()
        stack.traversal = self
        names = [] if action == 'DELETE' else list(template.order)
        self.updates = names
        self.done = set()
        self.running = []
        self.replacing = {}
        self.failed = False
        current = {stack.current(name) for name in names}
        self.cleanups = [Cleanup(row, frozenset(
            {row.name} | set(template.required_by(row.name)))
            if row.name in names else frozenset())
            for row in stack.resources if row not in current]
        for name in names:
            if stack.current(name) is None:
                heat.new_row(stack, template.resources[name])

    @property
    def superseded(self):
        return self.stack.traversal is not self

    def step(self):
        """One tick: poll what runs, start what is ready, finish. Whether
        the traversal is over."""
        for operation in list(self.running):
            if not operation.poll():
                continue
            self.running.remove(operation)
            if self.superseded or self.failed:
                continue
            if operation.failure is not None:
                self._fail('Resource %s failed: %s' % (operation.action,
                                                       operation.failure))
            else:
                self._completed(operation)
        if self.superseded or self.failed:
            return not self.running
        elapsed = self.heat.now() - self.started_at
        if elapsed > datetime.timedelta(
                seconds=self.stack.timeout_seconds()):
            self._fail('Timed out')
            return not self.running
        self._start_ready()
        if self.updates or self.cleanups or self.running:
            return False
        self.heat.stack_done(self.stack, self.action)
        return True

    def _fail(self, reason):
        self.failed = True
        self.heat.set_stack_state(self.stack, self.action, 'FAILED', reason)

    def _run(self, row, action):
        operation = Operation(self.heat, row, action)
        self.running.append(operation)
        operation.start()
        return operation

    def _start_ready(self):
        for name in list(self.updates):
            row = self.stack.current(name)
            if self.template.resources[name].requires() - self.done or (
                    row.operation is not None):
                continue
            self.updates.remove(name)
            self._converge(name, row)
        for cleanup in list(self.cleanups):
            if cleanup.after - self.done or cleanup.row.operation or any(
                    cleanup.row.name in other.requires
                    for other in self._deleting() if other is not
                    cleanup.row):
                continue
            self.cleanups.remove(cleanup)
            if cleanup.row.action == 'INIT' or cleanup.row.state == (
                    'DELETE', 'COMPLETE'):
                self.heat.forget_row(cleanup.row)
            else:
                self._run(cleanup.row, 'DELETE')

    def _deleting(self):
        """The rows still to delete or being deleted."""
        return [c.row for c in self.cleanups] + [
            o.row for o in self.running if o.action == 'DELETE']

    def _converge(self, name, row):
        definition = self.template.resources[name]
        kind = self.heat.kind(definition.type)
        try:
            properties = self.heat.resolve_properties(self.stack, definition)
        except errors.HeatError as refusal:
            self._fail('Resource %s failed: %s' % (
                'CREATE' if row.action == 'INIT' else 'UPDATE',
                refusal.message))
            return
        if row.action == 'INIT':
            row.properties = properties
            self._run(row, 'CREATE')
        elif kind.needs_replacement(self.heat, row, self.converge):
            successor = self.heat.new_row(self.stack, definition,
                                          replaces=row)
            successor.properties = properties
            self.replacing[self._run(successor, 'CREATE')] = row
        elif kind.holds_stack:
            row.properties = properties
            self._run(row, 'UPDATE')
        else:
            if row.status == 'FAILED':
                self.heat.set_resource_state(row, row.action, 'COMPLETE',
                                             NO_CHANGE_ON_FAILED)
            self.done.add(name)

    def _completed(self, operation):
        row = operation.row
        if operation.action == 'DELETE':
            self.heat.forget_row(row)
            return
        self.done.add(row.name)
        replaced = self.replacing.pop(operation, None)
        if replaced is not None:
            self.cleanups.append(Cleanup(replaced, frozenset(
                {row.name} | set(self.template.required_by(row.name)))))
