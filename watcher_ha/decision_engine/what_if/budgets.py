"""How much of its audit's disruption budget a plan's moves take
(the budget parameters of strategy/moves.py), counted on the moves as
the projection runs them: from where each server is now."""

import collections

from watcher_ha.decision_engine.strategy import moves

# Limit -> what each move counts under (None: every move, one count).
COUNTED_BY = {
    'max_migrations': None,
    'max_migrations_per_host': lambda server, source: source,
    'max_migrations_per_project': lambda server, source: server.project_id,
}


def used(moved, parameters):
    """[{name, description, limit, used, where, within}] of the budget
    limits, for ``moved`` ([(server, source, destination)]) under the
    audit's ``parameters``. ``used``: the moves counted (the largest
    count, for a limit per host or project, and ``where`` names that
    host or project); a limit of 0 is none and always ``within``."""
    rows = []
    for name, key in COUNTED_BY.items():
        limit = parameters.get(name) or 0
        where = None
        if key is None:
            count = len(moved)
        else:
            counts = collections.Counter(key(server, source)
                                         for server, source, _ in moved)
            where, count = max(counts.items(), key=lambda item: (
                item[1], str(item[0])), default=(None, 0))
        rows.append({
            'name': name,
            'description': moves.BUDGET_PARAMETERS[name]['description'],
            'limit': limit, 'used': count, 'where': where,
            'within': not limit or count <= limit})
    return rows
