"""The project is self-contained: no test, tool or module reads a file
outside the checkout, and the reference data the tests compare against
ships in tests/data/reference/ with its provenance. A plain clone must
run every test; nothing may depend on what sits beside it."""

import ast
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from tests import reference_data

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCANNED = ('tests', 'tools', 'watcher_ha')


def _docstrings(tree):
    nodes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, nodes) and node.body and isinstance(
                node.body[0], ast.Expr) and isinstance(
                    node.body[0].value, ast.Constant):
            found.add(id(node.body[0].value))
    return found


# Calls whose result names the same place as their argument or receiver.
SAME_PLACE = {'Path', 'PurePath', 'resolve', 'absolute', 'abspath',
              'realpath', 'normpath', 'fspath', 'str'}
# A constant path relative to the working directory that climbs out of it
# to name something (``../shared``); ``../..`` alone is fuzzing input.
CLIMBING_LITERAL = re.compile(r'^(\.\.[/\\])+[\w-]')


def _name(func):
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _walk_down(climbed, parts):
    """``climbed`` (highest, now) moved along constant path ``parts``."""
    highest, now = climbed
    for part in parts:
        if not (isinstance(part, ast.Constant)
                and isinstance(part.value, str)):
            now -= 1  # an unknown component: say it names a child
            continue
        for piece in part.value.replace('\\', '/').split('/'):
            if piece == '..':
                now += 1
            elif piece not in ('', '.'):
                now -= 1
            highest = max(highest, now)
    return highest, now


def _up(climbed, levels):
    highest, now = climbed
    return max(highest, now + levels), now + levels


def climb(node):
    """For a path expression built from ``__file__``: (the highest
    directory it reaches, the one it ends in), each counted in levels
    above the module's file (1: the module's own directory). None for
    any other expression."""
    if isinstance(node, ast.Name):
        return (0, 0) if node.id == '__file__' else None
    if isinstance(node, ast.Attribute) and node.attr == 'parent':
        base = climb(node.value)
        return base and _up(base, 1)
    if (isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == 'parents'
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)):
        base = climb(node.value.value)
        return base and _up(base, node.slice.value + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        base = climb(node.left)
        return base and _walk_down(base, [node.right])
    if not isinstance(node, ast.Call):
        return None
    name = _name(node.func)
    receiver = (node.func.value if isinstance(node.func, ast.Attribute)
                else None)
    if name in SAME_PLACE:
        base = climb(node.args[0]) if node.args else None
        return base or (climb(receiver) if receiver is not None else None)
    if name == 'dirname' and node.args:
        base = climb(node.args[0])
        return base and _up(base, 1)
    if name == 'join' and node.args:
        base = climb(node.args[0])
        return base and _walk_down(base, node.args[1:])
    if name == 'joinpath' and receiver is not None:
        base = climb(receiver)
        return base and _walk_down(base, node.args)
    return None


def escapes(source, where):
    """Where ``source``, the module at ``where`` in the checkout, reaches
    out of the checkout, as ``line: expression`` strings."""
    if not any(mark in source for mark in ('__file__', 'pardir', '..')):
        return []  # nothing to find: spare the parse
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    # The directories above the module still inside the checkout.
    inside = len((ROOT / where).relative_to(ROOT).parents)
    found = {}
    for node in ast.walk(tree):
        climbed = climb(node)
        if climbed and climbed[0] > inside:
            found.setdefault(node.lineno, ast.unparse(node))
        elif isinstance(node, ast.Attribute) and node.attr == 'pardir':
            found.setdefault(node.lineno, ast.unparse(node))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings
              and CLIMBING_LITERAL.match(node.value)):
            found.setdefault(node.lineno, repr(node.value))
    return ['%d: %s' % item for item in sorted(found.items())]


def _modules():
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob('*.py')):
            yield path.relative_to(ROOT).as_posix(), path.read_text()


def test_the_scan_sees_a_module_that_climbs_out():
    found = escapes(
        'import os, pathlib\n'
        "A = pathlib.Path(__file__).resolve().parents[3] / 'shared'\n"
        'B = pathlib.Path(__file__).parent.parent\n'
        'C = pathlib.Path(__file__).parent.parent.parent.parent\n'
        'D = os.path.dirname(os.path.dirname(os.path.dirname(\n'
        '    os.path.dirname(__file__))))\n'
        "E = os.path.join(os.path.dirname(__file__), '..', '..', '..')\n"
        "F = '../shared/reference'\n"
        "G = pathlib.Path(__file__).resolve().parents[1].parent.parent\n"
        "H = pathlib.Path(__file__).parent / '../../../shared'\n"
        "I = pathlib.Path(__file__).parents[2].joinpath('..', 'x')\n"
        'J = os.pardir\n'
        # Inside the checkout, or not a path from here: no finding.
        "K = os.path.join(os.path.dirname(__file__), '..', '..', 'etc')\n"
        "L = pathlib.Path(__file__).parents[2] / 'etc' / '..' / 'doc'\n"
        "M = ('../..', '/v1/../v1/audits', 'a/../b')\n"
        '"""Docstrings may name ../shared."""\n',
        'tests/unit/probe.py')
    assert [line.split(':')[0] for line in found] == [
        '2', '4', '5', '7', '8', '9', '10', '11', '12'], found


def test_no_module_reads_outside_the_checkout():
    leaks = {name: found for name, source in _modules()
             if (found := escapes(source, name))}
    assert leaks == {}, (
        'These modules reach outside the repository; copy the data they '
        'need into tests/data/reference/ (with a PROVENANCE.md) instead: '
        '%s' % leaks)


# Every loader of reference data the tests use, and how much it finds.
LOADERS = '''
import json
import tests
from tests import golden, nova_samples, reference_data, strategy_clusters
print(json.dumps({
    'package': tests.__file__,
    'watcher-api-golden': len(golden.exchanges()),
    'masakari-api-golden': len(golden.exchanges(
        golden.MASAKARI_GOLDEN_DIR, '[0-9][0-9][0-9]_*.txt')),
    'nova-notifications/live': len(nova_samples.live()),
    'nova-notifications/samples': len(nova_samples.documented()),
    'watcher-notifications': len(reference_data.files(
        reference_data.ROOT / 'watcher-notifications', '*.json')),
    'reference-clusters': len(reference_data.files(
        strategy_clusters.REFERENCE, 'cluster_*.json.gz')),
}))
'''


def _load_all(checkout):
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    done = subprocess.run([sys.executable, '-c', LOADERS], cwd=checkout,
                          env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert pathlib.Path(found.pop('package')).is_relative_to(checkout)
    return found


def test_reference_data_loads_from_a_checkout_with_nothing_beside_it(
        tmp_path):
    # Only tests/ is copied: the loaders must need nothing else, and
    # tmp_path has no shared/ (or anything) beside the copy.
    copy = tmp_path / 'checkout'
    shutil.copytree(ROOT / 'tests', copy / 'tests',
                    ignore=shutil.ignore_patterns('__pycache__'))
    here = _load_all(ROOT)
    assert all(here.values()), here
    assert _load_all(copy) == here


def test_every_reference_folder_says_where_it_came_from():
    folders = [p for p in reference_data.ROOT.iterdir() if p.is_dir()]
    assert folders
    for folder in folders:
        provenance = folder / 'PROVENANCE.md'
        assert provenance.is_file(), folder
        assert 'Read by' in provenance.read_text(), provenance


def test_a_missing_reference_file_is_an_error_not_a_skip(tmp_path):
    with pytest.raises(FileNotFoundError, match='part of the repository'):
        reference_data.files(tmp_path, '*.json')
