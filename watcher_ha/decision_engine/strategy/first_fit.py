"""The first host, in an order of preference, with room for a server.

Packing strategies (basic, vm_workload_consolidation and
node_resource_consolidation, through consolidation.Packer) ask, server
after server, "which is the first host on my list that can still take
this one?". Scanning the list each time costs hosts x servers; here the
hosts are the leaves of a tree whose inner nodes keep, per dimension,
the most room any host below them has left, so the search skips every
subtree where no host has enough of some dimension: a few levels per
server instead of the whole list.

A host's room is a tuple, one amount per dimension: Placement's
resources (moves.RESOURCES, always the first three) and any measured
ones a strategy adds.
"""

import operator

# The room of a leaf that is no host, or of a host taken off the list:
# no server needs less than nothing, so nothing ever fits there.
NO_ROOM = float('-inf')


class FirstFit:
    """The room of hosts in order of preference, ``rooms``: {hostname:
    its room (a sequence, the same dimensions for all)}, in that
    order."""

    def __init__(self, rooms):
        self.hostnames = list(rooms)
        self._leaf = {}
        size = 1
        while size < len(self.hostnames):
            size *= 2
        self._size = size
        self.dimensions = len(next(iter(rooms.values()))) if rooms else 0
        self._nowhere = (NO_ROOM,) * self.dimensions
        # [1] is the root, [size + i] host i; each a tuple of room.
        tree = [self._nowhere] * (2 * size)
        for i, (hostname, room) in enumerate(rooms.items()):
            self._leaf[hostname] = size + i
            tree[size + i] = tuple(room)
        for position in range(size - 1, 0, -1):
            tree[position] = tuple(map(max, tree[2 * position],
                                       tree[2 * position + 1]))
        self._tree = tree

    def __contains__(self, hostname):
        return hostname in self._leaf

    def room(self, hostname):
        return self._tree[self._leaf[hostname]]

    def first(self, need, accept=None):
        """The first host whose room covers ``need`` in every dimension
        and, if given, ``accept(hostname)`` is true; or None."""
        if not self.hostnames:
            return None
        tree, size, ge = self._tree, self._size, operator.ge
        # Placement's three come first in every room, and most
        # strategies add one measured dimension at most: checked one by
        # one they spare most visits the general check (of two measured
        # dimensions or more), in a loop that runs hundreds of times
        # per server placed.
        vcpus, memory, disk = need[:3]
        last, last_need = len(need) - 1, need[-1]
        measured = len(need) > 4
        stack = [1]
        pop, push = stack.pop, stack.append
        while stack:
            position = pop()
            room = tree[position]
            if (room[0] < vcpus or room[1] < memory or room[2] < disk
                    or room[last] < last_need
                    or measured and not all(map(ge, room, need))):
                continue
            if position >= size:
                hostname = self.hostnames[position - size]
                if accept is None or accept(hostname):
                    return hostname
                continue
            # Right pushed first: the left subtree, earlier hosts, is
            # searched first.
            push(2 * position + 1)
            push(2 * position)
        return None

    def set(self, hostname, room):
        """``hostname`` has ``room`` now."""
        tree = self._tree
        position = self._leaf[hostname]
        tree[position] = tuple(room)
        position //= 2
        while position:
            most = tuple(map(max, tree[2 * position], tree[2 * position + 1]))
            if most == tree[position]:
                # Nothing above changes either: most changes of one
                # host's room are hidden by a roomier sibling.
                break
            tree[position] = most
            position //= 2

    def take(self, hostname, need):
        """Count ``need`` as used on ``hostname``."""
        self.set(hostname, map(operator.sub, self.room(hostname), need))

    def give_back(self, hostname, need):
        """Undo a ``take`` of ``need`` on ``hostname``."""
        self.set(hostname, map(operator.add, self.room(hostname), need))

    def drop(self, hostname):
        """Take ``hostname`` off the list: nothing fits there any more."""
        self.set(hostname, self._nowhere)
