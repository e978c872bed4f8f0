"""The data model's layers depend one way: collectors on the feed and the
model, the feed on the model, the model on neither; so a second model
(e.g. storage, fed by Cinder) reuses ClusterModel without forking it."""

import ast
import pathlib
import subprocess
import sys

import watcher_ha

PACKAGE = pathlib.Path(watcher_ha.__file__).parent
ENGINE = PACKAGE / 'decision_engine'
FEED = 'watcher_ha.decision_engine.feed'
COLLECTOR = 'watcher_ha.decision_engine.model.collector'


def _imports(path):
    """The modules ``path`` imports, as dotted names (``from a import b``
    gives ``a.b``: b may be a module)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update('%s.%s' % (node.module, alias.name)
                         for alias in node.names)
    return names


def _offending(directory, forbidden, skip=None):
    found = {}
    for path in sorted(directory.rglob('*.py')):
        if skip is not None and skip in path.parents:
            continue
        bad = sorted(name for name in _imports(path)
                     if any(name == prefix or name.startswith(prefix + '.')
                            for prefix in forbidden))
        if bad:
            found[str(path.relative_to(PACKAGE))] = bad
    return found


def test_the_model_imports_neither_the_feed_nor_a_source():
    model = ENGINE / 'model'
    assert _offending(model, [FEED, COLLECTOR],
                      skip=model / 'collector') == {}


def test_the_feed_imports_no_collector():
    assert _offending(ENGINE / 'feed', [COLLECTOR]) == {}


def test_importing_the_model_loads_no_feed():
    loaded = subprocess.run(
        [sys.executable, '-c',
         'import sys; '
         'from watcher_ha.decision_engine.model import cluster, metrics, '
         'views, garbage_collection; '
         'print(" ".join(m for m in sys.modules if m.startswith(%r) '
         'or m.startswith(%r)))' % (FEED, COLLECTOR)],
        capture_output=True, text=True, check=True)
    assert loaded.stdout.split() == []
