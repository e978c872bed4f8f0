"""What the simulator's own API (``GET /simulator/state``) shows of the
simulated Heat, for tests to count what a real Heat would not show
together: each stack (nested ones and deleted ones too) with its state,
the updates it accepted and its resources, each with the signals it
received (``accepted`` false for one Heat's engine dropped)."""


def stacks(heat):
    return {stack.id: {
        'name': stack.name, 'tenant': stack.tenant,
        'status': '%s_%s' % (stack.action, stack.status),
        'status_reason': stack.status_reason,
        'parent': stack.owner.id if stack.owner else None,
        'parent_resource': stack.parent_resource,
        'deleted': stack.deleted_at is not None,
        'updates': stack.updates,
        'resources': {row.name: {
            'type': row.type, 'physical_id': row.physical_id,
            'status': '%s_%s' % (row.action, row.status),
            'signals': list(row.signals)}
            for row in stack.listed()}}
        for stack in list(heat.stacks.values())}
