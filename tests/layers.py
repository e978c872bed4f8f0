"""The floors of the package and the directions imports may take between
them, as data; and the check that holds a module graph against them.

A room is a top-level folder of ``watcher_ha`` (``db``, ``applier``...),
or a folder inside one where a room has floors of its own
(``decision_engine.model`` below ``decision_engine.feed``). A module
belongs to the deepest room its dotted name starts with. A module may
import any module of its own room and of the rooms its room's entry in
ALLOWED names; nothing else, except the DOORS: single modules that other
rooms may import although their room is above them (the daemons' RPC
clients). doc/source/architecture.rst draws the same table.
"""

import ast
import pathlib

PACKAGE = 'watcher_ha'

# The package's own rooms, lowest first; each may import its own modules
# and the rooms it lists. ``common`` is the ground floor: vocabulary and
# pure rules of every domain, importing nothing of the package.
GROUND = ('common',)
ALLOWED = {
    'common': set(),
    'conf': {'common'},
    'policies': {'common', 'conf'},
    'db': {'common', 'conf'},
    'cloud': {'common', 'conf', 'db'},
    'notifications': {'common', 'conf', 'db'},
    'service': {'common', 'conf', 'db'},
    'simulator': {'common', 'service'},
    'decision_engine': {'common', 'conf', 'policies', 'db', 'cloud',
                        'notifications', 'service', 'decision_engine.model',
                        'decision_engine.model.collector',
                        'decision_engine.feed'},
    'applier': {'common', 'conf', 'policies', 'db', 'cloud',
                'notifications', 'service'},
    'api': {'common', 'conf', 'policies', 'db', 'cloud', 'notifications',
            'service'},
    'cmd': {'common', 'conf', 'policies', 'db', 'cloud', 'notifications',
            'service', 'simulator', 'decision_engine', 'applier', 'api'},
    # Inside the decision engine: the data model knows neither the feed
    # that keeps it current nor a source of it, so a second model
    # (storage, fed by Cinder) reuses ClusterModel without forking it.
    'decision_engine.model': {'common', 'conf'},
    'decision_engine.feed': {'common', 'conf', 'db', 'service',
                             'decision_engine.model'},
    'decision_engine.model.collector': {
        'common', 'conf', 'cloud', 'decision_engine.model',
        'decision_engine.feed'},
}

# Modules other rooms may import though their room is above: how one
# daemon asks another for something.
DOORS = {
    'decision_engine.rpcapi': {'api', 'applier', 'cmd'},
    'applier.rpcapi': {'api', 'decision_engine', 'cmd'},
}


def room_of(module, rooms=ALLOWED):
    """The deepest room ``module`` (dotted, without the package) is in;
    None for the package's own ``__init__``."""
    parts = module.split('.')
    for length in range(len(parts), 0, -1):
        candidate = '.'.join(parts[:length])
        if candidate in rooms:
            return candidate
    return None


def allowed(importer, imported, rooms=ALLOWED, doors=DOORS):
    """Whether module ``importer`` may import module ``imported``: same
    room, a room its room lists (a top-level room with the rooms inside
    it), or a door open to its top-level room."""
    source, target = room_of(importer, rooms), room_of(imported, rooms)
    if target is None:
        return True     # the package's __init__: the threading backend
    if source is not None and (
            source == target or target in rooms[source]
            # Listing a top-level room lists the rooms inside it.
            or any(target.startswith(room + '.')
                   for room in rooms[source] if '.' not in room)):
        return True
    top = (source or '').split('.')[0]
    return any(imported == door or imported.startswith(door + '.')
               for door, users in doors.items() if top in users)


def violations(graph, rooms=ALLOWED, doors=DOORS):
    """Sorted (importer, imported) pairs of ``graph`` ({module: {modules it
    imports}}, dotted names without the package) that the floors
    forbid."""
    return sorted((importer, imported)
                  for importer, imports in graph.items()
                  for imported in imports
                  if not allowed(importer, imported, rooms, doors))


def module_graph(root):
    """{module: {package modules it imports}} of the package at ``root``
    (the folder of ``watcher_ha/__init__.py``), dotted names without the
    package's own name. ``from a import b`` counts as importing ``a.b``
    when that is a module, else ``a``."""
    root = pathlib.Path(root)
    modules = {}
    for path in root.rglob('*.py'):
        parts = list(path.relative_to(root).with_suffix('').parts)
        if parts[-1] == '__init__':
            parts = parts[:-1]
        modules['.'.join(parts)] = path
    graph = {}
    for module, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module \
                    and node.level == 0:
                names = [node.module + '.' + alias.name
                         if _own(node.module + '.' + alias.name) in modules
                         else node.module for alias in node.names]
            else:
                continue
            found.update(_own(name) for name in names
                         if name == PACKAGE
                         or name.startswith(PACKAGE + '.'))
        found.discard(module)
        found.discard('')
        graph[module] = found
    return graph


def _own(name):
    return name[len(PACKAGE) + 1:] if name != PACKAGE else ''
