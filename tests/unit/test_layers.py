"""The floors hold: every import of the package goes the way
tests/layers.py allows (the table doc/source/architecture.rst draws), and
the check itself catches a wrong import, naming both modules."""

import pathlib
import re
import subprocess
import sys

import watcher_ha
from tests import layers

PACKAGE = pathlib.Path(watcher_ha.__file__).parent


def test_every_import_of_the_package_goes_the_allowed_way():
    wrong = layers.violations(layers.module_graph(PACKAGE))
    assert wrong == [], 'imports against the floors:\n' + '\n'.join(
        '%s imports %s' % pair for pair in wrong)


def test_every_room_of_the_package_is_in_the_table():
    # A new top-level folder must take a floor before it holds code.
    rooms = {path.name for path in PACKAGE.iterdir()
             if (path / '__init__.py').exists()}
    assert rooms <= set(layers.ALLOWED)


def test_the_ground_floor_imports_nothing_above_it():
    graph = layers.module_graph(PACKAGE)
    for module in layers.GROUND:
        assert layers.ALLOWED[module] == set()
        above = {imported for importer, imports in graph.items()
                 if layers.room_of(importer) == module
                 for imported in imports
                 if layers.room_of(imported) != module}
        assert above == set()


# A made-up package, as module_graph would read it.
FAKE = {
    'common.states': set(),
    'db.audits': {'common.states'},
    'applier.manager': {'db.audits', 'decision_engine.rpcapi'},
    'decision_engine.manager': {'applier.rpcapi', 'db.audits'},
    'api.audits': {'decision_engine.rpcapi', 'applier.rpcapi'},
    'decision_engine.model.cluster': {'common.states'},
    'decision_engine.feed.dispatch': {'decision_engine.model.cluster'},
}


def test_a_graph_within_the_floors_passes():
    assert layers.violations(FAKE) == []


def test_a_lower_room_reaching_up_is_named_with_both_modules():
    graph = dict(FAKE, **{'db.audits': {'common.states',
                                        'applier.actions.base'}})
    assert layers.violations(graph) == [('db.audits',
                                         'applier.actions.base')]


def test_the_ground_floor_importing_anything_of_ours_fails():
    graph = dict(FAKE, **{'common.states': {'conf.api'}})
    assert layers.violations(graph) == [('common.states', 'conf.api')]


def test_a_daemon_may_use_another_only_through_its_door():
    graph = dict(FAKE, **{'api.audits': {'decision_engine.manager'}})
    assert layers.violations(graph) == [('api.audits',
                                         'decision_engine.manager')]


def test_the_model_may_not_reach_its_feed_or_a_collector():
    graph = dict(FAKE, **{'decision_engine.model.cluster': {
        'decision_engine.feed.dispatch',
        'decision_engine.model.collector.compute'}})
    assert layers.violations(graph) == [
        ('decision_engine.model.cluster', 'decision_engine.feed.dispatch'),
        ('decision_engine.model.cluster',
         'decision_engine.model.collector.compute')]


def test_imports_are_read_from_the_code(tmp_path):
    package = tmp_path / 'watcher_ha'
    (package / 'common').mkdir(parents=True)
    (package / 'db').mkdir()
    for path in (package, package / 'common', package / 'db'):
        (path / '__init__.py').write_text('')
    (package / 'common' / 'states.py').write_text(
        'from watcher_ha.db import audits\nimport os\n')
    (package / 'db' / 'audits.py').write_text(
        'from watcher_ha.common import states\n'
        'from watcher_ha.common.states import X\n')
    graph = layers.module_graph(package)
    assert graph['common.states'] == {'db.audits'}
    assert graph['db.audits'] == {'common.states'}
    assert layers.violations(graph) == [('common.states', 'db.audits')]


def test_importing_the_model_loads_no_feed():
    # Beyond the static graph: nothing imported at run time either.
    loaded = subprocess.run(
        [sys.executable, '-c',
         'import sys; '
         'from watcher_ha.decision_engine.model import cluster, metrics, '
         'listing, garbage_collection; '
         'print(" ".join(m for m in sys.modules if m.startswith('
         '"watcher_ha.decision_engine.feed") or m.startswith('
         '"watcher_ha.decision_engine.model.collector")))'],
        capture_output=True, text=True, check=True)
    assert loaded.stdout.split() == []


def test_the_architecture_guide_draws_the_same_table():
    text = (PACKAGE.parent / 'doc' / 'source'
            / 'architecture.rst').read_text()
    table = text.split('Allowed imports')[1].split('Doors:')[0]
    drawn = {}
    for row in table.split('   * - ')[2:]:
        room, allowed = row.split('\n     - ')
        drawn[room.strip('`')] = set(re.findall(r'``([\w.]+)``', allowed))
    assert drawn == layers.ALLOWED
