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
        return [sum((row[h] - mean) * scale for row, mean, scale in parts)
                for h in range(n)]

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
    """

    def __init__(self, spread, servers, destinations, allowed, accept,
                 width=4, max_width=64, every_destination=False):
        self.spread = spread
        self.servers = servers
        self.destinations = list(destinations)
        self.allowed = allowed
        self.accept = accept
        self.width = width
        self.max_width = max(max_width, width)
        self.every_destination = every_destination

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
                self.spread.move(amounts, source, destination)
                self.accept(instance, source, destination)
                return True
            if width >= self.max_width:
                return False
            width *= 2

    def _best(self, current, scores, width):
        senders = [h for h, here in self.servers.items() if here]
        sources = heapq.nlargest(width, senders, key=scores.__getitem__)
        targets = self.destinations
        if not self.every_destination:
            targets = heapq.nsmallest(width, targets,
                                      key=scores.__getitem__)
        best_value, best = current - EPSILON, None
        after_move = self.spread.after_move
        for source in sources:
            for instance, amounts in self.servers[source].values():
                for destination in targets:
                    if destination == source:
                        continue
                    value = after_move(amounts, source, destination)
                    if value < best_value and self.allowed(instance,
                                                           destination):
                        best_value = value
                        best = (instance, amounts, source, destination)
        return best
