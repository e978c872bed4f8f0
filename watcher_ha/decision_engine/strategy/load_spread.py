"""How evenly a load is spread over hosts, and the moves that even it.

Each metric's load on a host is a fraction of what the host has (CPU
cores in use over its vcpus, RAM in use over its memory); a server adds
its own amount divided by its host's. The spread of one metric is the
population standard deviation of the hosts' loads, and the objective is
the weighted sum of the metrics' spreads, as workload_stabilization
reports them.

The sums of the loads and of their squares are kept per metric, so the
objective after a candidate move costs a few operations, not a pass
over every host: the search can weigh hundreds of candidates per
migration and still answer in seconds at 20,000 servers.
"""

import heapq
import math
import operator

# The least improvement of the objective a move must bring: below it, a
# move is rounding noise, not balance.
EPSILON = 1e-12


class Spread:
    """Loads of ``hosts`` (indexes 0..n-1) for ``len(weights)`` metrics.

    ``loads[j][h]`` is host h's load of metric j, ``capacity[j][h]`` what
    host h has of it (a server's amount over it is the server's load
    there), ``weights[j]`` the metric's weight in the objective.
    """

    def __init__(self, loads, capacity, weights):
        self.loads = [list(row) for row in loads]
        self.capacity = capacity
        self.weights = list(weights)
        self.size = len(self.loads[0]) if self.loads else 0
        self.sums = [math.fsum(row) for row in self.loads]
        self.squares = [math.fsum(x * x for x in row) for row in self.loads]

    def deviation(self, j):
        """Standard deviation of metric j's loads."""
        return _deviation(self.sums[j], self.squares[j], self.size)

    def objective(self):
        return sum(w * self.deviation(j) for j, w in enumerate(self.weights))

    def scores(self):
        """Each host's weighted distance above the mean, in standard
        deviations: the most loaded hosts have the highest."""
        n = self.size
        parts = []
        for j, w in enumerate(self.weights):
            sd = self.deviation(j)
            if sd > 0 and w > 0:
                parts.append((self.loads[j], self.sums[j] / n, w / sd))
        scores = [0.0] * n
        for row, mean, scale in parts:
            scores = [score + (x - mean) * scale
                      for score, x in zip(scores, row, strict=True)]
        return scores

    def after_move(self, amounts, source, destination):
        """The objective once a server taking ``amounts`` (one per
        metric) moves from host ``source`` to host ``destination``."""
        n = self.size
        total = 0.0
        for j, amount in enumerate(amounts):
            row, cap = self.loads[j], self.capacity[j]
            down = amount / cap[source]
            up = amount / cap[destination]
            xs, xd = row[source], row[destination]
            sums = self.sums[j] - down + up
            squares = (self.squares[j] + (xs - down) ** 2 - xs * xs
                       + (xd + up) ** 2 - xd * xd)
            total += self.weights[j] * _deviation(sums, squares, n)
        return total

    def after_moves(self, amounts, source, destinations):
        """after_move() for each of ``destinations`` (none of them
        ``source``), in one pass per metric."""
        n = self.size
        totals = [0.0] * len(destinations)
        for j, amount in enumerate(amounts):
            row, cap, weight = self.loads[j], self.capacity[j], \
                self.weights[j]
            down = amount / cap[source]
            xs = row[source]
            sums_out = self.sums[j] - down
            squares_out = self.squares[j] + (xs - down) ** 2 - xs * xs
            part = []
            for destination in destinations:
                up = amount / cap[destination]
                xd = row[destination]
                mean = (sums_out + up) / n
                variance = (squares_out + (xd + up) ** 2 - xd * xd) / n \
                    - mean * mean
                part.append(weight * math.sqrt(variance) if variance > 0
                            else 0.0)
            totals = [t + p for t, p in zip(totals, part, strict=True)]
        return totals

    def move(self, amounts, source, destination):
        for j, amount in enumerate(amounts):
            row, cap = self.loads[j], self.capacity[j]
            for host, delta in ((source, -amount / cap[source]),
                                (destination, amount / cap[destination])):
                old = row[host]
                row[host] = old + delta
                self.sums[j] += delta
                self.squares[j] += row[host] ** 2 - old * old


def _deviation(sums, squares, n):
    if n == 0:
        return 0.0
    mean = sums / n
    return math.sqrt(max(squares / n - mean * mean, 0.0))


class Search:
    """Steepest descent over single-server moves.

    Each step weighs the servers of the most loaded hosts against the
    least loaded destinations and makes the move that lowers the
    objective most. The window of hosts starts at ``width`` and doubles
    while no move in it improves (a full host, a budget spent), up to
    ``max_width``; ``every_destination`` weighs all destinations at
    each step instead.

    ``servers[h]`` is {uuid: (instance, amounts)} of the servers host h
    may send; ``allowed(instance, h)`` says whether a server may go to
    host h now; ``accept(instance, source, destination)`` records a
    move. A server moves at most once.

    The least loaded hosts are often the ones that cannot take anything:
    idle servers that hold all the host's memory. So the destinations a
    server is weighed against are the least loaded among those with
    room for it: ``room(h)`` is what host h has free and ``need(instance)``
    what a server takes, two tuples in the same order (without them,
    every destination counts as having room). Servers that take the
    same share the walk down the destinations.
    """

    def __init__(self, spread, servers, destinations, allowed, accept,
                 width=4, max_width=64, every_destination=False,
                 room=None, need=None):
        self.spread = spread
        self.servers = servers
        self.destinations = list(destinations)
        self.allowed = allowed
        self.accept = accept
        self.width = width
        self.max_width = max(max_width, width)
        self.every_destination = every_destination
        self.room = room
        self.need = need or (lambda instance: ())
        # What each destination has free, as far as this search knows:
        # a move changes it on its source and destination only.
        self.free = {}
        self.needs = {}

    def step(self):
        """Make the best move found; False when none improves."""
        current = self.spread.objective()
        scores = self.spread.scores()
        width = self.width
        while True:
            found = self._best(current, scores, width)
            if found is not None:
                instance, amounts, source, destination = found
                del self.servers[source][instance.uuid]
                self.free.pop(source, None)
                self.free.pop(destination, None)
                self.spread.move(amounts, source, destination)
                self.accept(instance, source, destination)
                return True
            if width >= self.max_width:
                return False
            width *= 2

    def _best(self, current, scores, width):
        senders = [h for h, here in self.servers.items() if here]
        sources = heapq.nlargest(width, senders, key=scores.__getitem__)
        targets = _Targets(self, scores, width)
        best_value, best = current - EPSILON, None
        after_moves = self.spread.after_moves
        needs = self.needs
        for source in sources:
            for uuid, (instance, amounts) in self.servers[source].items():
                need = needs.get(uuid)
                if need is None:
                    need = needs[uuid] = self.need(instance)
                destinations = [d for d in targets.of(need) if d != source]
                values = after_moves(amounts, source, destinations)
                for value, destination in zip(values, destinations,
                                              strict=True):
                    if value < best_value and self.allowed(instance,
                                                           destination):
                        best_value = value
                        best = (instance, amounts, source, destination)
        return best


class _Targets:
    """The destinations one step weighs, per need: the ``width`` least
    loaded with room for it (every destination with
    ``every_destination``)."""

    def __init__(self, search, scores, width):
        self.search = search
        self.width = width
        self.found = {}
        self.ordered = None
        if search.every_destination or search.room is None:
            self.ordered = search.destinations
            if not search.every_destination:
                self.ordered = heapq.nsmallest(width, self.ordered,
                                               key=scores.__getitem__)
            self.found = None
        else:
            self.scores = scores

    def of(self, need):
        if self.found is None:
            return self.ordered
        targets = self.found.get(need)
        if targets is None:
            targets = self.found[need] = self._walk(need)
        return targets

    def _walk(self, need):
        if self.ordered is None:
            self.ordered = sorted(self.search.destinations,
                                  key=self.scores.__getitem__)
        room, free = self.search.room, self.search.free
        targets = []
        for h in self.ordered:
            has = free.get(h)
            if has is None:
                has = free[h] = room(h)
            if all(map(operator.ge, has, need)):
                targets.append(h)
                if len(targets) == self.width:
                    break
        return targets
