"""``pip wheel`` builds watcher-ha, and the wheel, installed in a fresh
virtualenv with its dependencies, migrates a database to the head of its
schema and runs its commands, with nothing from the checkout.

The wheel is built from a clone of the checkout (its history and tags:
pbr takes the version from setup.cfg and git, and the package data from
git) holding the working tree as its last commit (the files git tracks
or would track: ``git ls-files --cached --others --exclude-standard``);
the checkout itself gets no build artefacts. The dependencies come from
the package index (uv's cache makes it quick), as for an operator:
nothing of the project's venv is visible to the new one.
"""

import configparser
import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest
import sqlalchemy as sa
import uv as uv_bin

from tests.functional import fixtures
from tests.helpers import made_once
from watcher_ha.db import migration

pytestmark = pytest.mark.functional

REPO = pathlib.Path(__file__).resolve().parents[2]
MIGRATIONS = pathlib.Path(migration.SCRIPT_LOCATION)
UNITS = sorted(path.name for path in (REPO / 'etc' / 'systemd').iterdir())


def run(*command, cwd=None, timeout=300):
    """Run ``command``; fail with its output if it fails."""
    found = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout)
    assert found.returncode == 0, '%s exited with %s:\n%s\n%s' % (
        ' '.join(map(str, command)), found.returncode, found.stdout,
        found.stderr)
    return found.stdout


def git(tree):
    return ['git', '-C', str(tree), '-c', 'user.name=packaging test',
            '-c', 'user.email=packaging@test.invalid']


def copy_of_tree(target):
    """A clone of the checkout whose last commit is its working tree."""
    run('git', 'clone', '--quiet', str(REPO), str(target))
    for name in run(*git(target), 'ls-files', '-z').split('\0'):
        if name:
            (target / name).unlink()
    listed = run('git', '-C', str(REPO), 'ls-files', '-z', '--cached',
                 '--others', '--exclude-standard').split('\0')
    for name in filter(None, listed):
        source = REPO / name
        # Tracked but deleted in the working tree: not part of it.
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    run(*git(target), 'add', '-A')
    if run(*git(target), 'status', '--porcelain'):
        run(*git(target), 'commit', '-q', '-m', 'the working tree')
    return target


def release_being_prepared():
    """setup.cfg's version: the release the checkout prepares."""
    parser = configparser.ConfigParser()
    parser.read(REPO / 'setup.cfg')
    return parser['metadata']['version']


def once_per_run(tmp_path_factory, name, make):
    """A folder of this test run's, filled by ``make(folder)`` in the
    first of the run's processes to ask for it; the others (pytest-xdist
    workers) wait for it and share it. The tree, its wheel and the
    virtualenv it installs into take a minute or more to make, and are
    the same for every worker that runs a test of this module."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get('PYTEST_XDIST_WORKER'):
        # Each worker's own base is in the run's.
        base = base.parent
    folder = base / name
    made = made_once.Stamp(base / (name + '.made'))
    with made_once.exclusive(base / (name + '.lock')):
        if not made.current():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            made.write()
    return folder


@pytest.fixture(scope='module')
def tree(tmp_path_factory):
    return once_per_run(tmp_path_factory, 'packaged-tree',
                        lambda folder: copy_of_tree(
                            folder / 'watcher-ha')) / 'watcher-ha'


def build_wheel(tree, out):
    # As an operator or a distribution builds it: build isolation on.
    run(sys.executable, '-m', 'pip', 'wheel', '--quiet', '--no-deps',
        '--wheel-dir', str(out), str(tree))
    [built] = out.glob('watcher_ha-*.whl')
    return built


@pytest.fixture(scope='module')
def wheel(tree, tmp_path_factory):
    folder = once_per_run(tmp_path_factory, 'packaged-wheel',
                          lambda out: build_wheel(tree, out))
    [built] = folder.glob('watcher_ha-*.whl')
    return built


def install(wheel, path):
    # uv, as tests/venvs.py makes the other projects' virtualenvs: the
    # same wheel and dependencies as pip would install, in a quarter of
    # its CPU time.
    uv = uv_bin.find_uv_bin()
    run(uv, 'venv', '--quiet', '--python', sys.executable, str(path))
    run(uv, 'pip', 'install', '--quiet', '--python',
        str(path / 'bin' / 'python'), '--compile-bytecode', str(wheel),
        timeout=600)


@pytest.fixture(scope='module')
def venv(wheel, tmp_path_factory):
    return once_per_run(tmp_path_factory, 'packaged-venv',
                        lambda path: install(wheel, path))


def test_the_wheel_holds_the_migrations_and_the_operators_files(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in MIGRATIONS.rglob('*'):
        if path.is_file() and '__pycache__' not in path.parts:
            name = path.relative_to(REPO).as_posix()
            assert name in names, name
    data = wheel.name.split('-py')[0] + '.data/data/'
    for name in ('etc/watcher-ha/config-generator.conf',
                 'etc/watcher-ha/policy-generator.conf',
                 'share/watcher-ha/grafana/watcher-ha.json',
                 *('share/watcher-ha/systemd/' + unit for unit in UNITS)):
        assert data + name in names, name


def wheel_version(wheel):
    return wheel.name.split('-')[1]


def test_the_wheel_is_the_release_being_prepared(wheel, tree):
    """setup.cfg's version on the commit tagged with it, else a
    development build of it (``.devN``: N commits after the last release
    tag), never pbr's ``0.0.1.devN`` of a project without a version."""
    release = release_being_prepared()
    tagged = subprocess.run(
        ['git', '-C', str(tree), 'describe', '--exact-match'],
        capture_output=True, text=True).stdout.strip()
    if tagged == release:
        assert wheel_version(wheel) == release
    else:
        assert re.fullmatch(re.escape(release) + r'\.dev[0-9]+',
                            wheel_version(wheel)), wheel_version(wheel)


def test_a_release_tag_makes_the_release(tree, tmp_path):
    """What releasing is: an annotated tag of setup.cfg's version on the
    commit that has it; pbr then versions that commit so."""
    release = release_being_prepared()
    tagged = tmp_path / 'tagged'
    run('git', 'clone', '--quiet', str(tree), str(tagged))
    run(*git(tagged), 'tag', '--force', '-a', release, '-m', release)
    assert wheel_version(build_wheel(tagged, tmp_path)) == release


def test_the_wheel_carries_the_licence(wheel):
    version = wheel_version(wheel)
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(
            'watcher_ha-%s.dist-info/METADATA' % version).decode()
        licence = archive.read(
            'watcher_ha-%s.dist-info/licenses/LICENSE' % version)
    assert 'License-Expression: Apache-2.0' in metadata.splitlines()
    assert 'License-File: LICENSE' in metadata.splitlines()
    assert licence == (REPO / 'LICENSE').read_bytes()


def test_every_installed_command_prints_the_wheels_version(venv, wheel,
                                                           tmp_path):
    commands = sorted(name for name in os.listdir(venv / 'bin')
                      if name.startswith('watcher-ha-')
                      and not name.endswith('-wsgi'))
    assert len(commands) == 7, commands
    for command in commands:
        out = run(str(venv / 'bin' / command), '--version', cwd=tmp_path)
        assert out == wheel_version(wheel) + '\n', command


def test_the_installed_wheel_migrates_a_database_to_head(venv, tmp_path):
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                   fixtures.base_config(tmp_path))
    # Not from the checkout: the current directory is no part of it.
    location = run(str(venv / 'bin' / 'python'), '-c',
                   'from watcher_ha.db import migration; '
                   'print(migration.SCRIPT_LOCATION)', cwd=tmp_path)
    assert pathlib.Path(location.strip()).is_relative_to(venv)
    run(str(venv / 'bin' / 'watcher-ha-db-manage'), '--config-file',
        str(config), 'upgrade', cwd=tmp_path)
    engine = sa.create_engine('sqlite:///%s' % (tmp_path
                                                / 'watcher_ha.sqlite'))
    try:
        assert migration.version(bind=engine) == migration.head()
    finally:
        engine.dispose()


@pytest.mark.parametrize('command', ['watcher-ha-decision-engine',
                                     'watcher-ha-applier',
                                     'watcher-ha-api'])
def test_the_installed_daemons_start_far_enough_to_help(venv, tmp_path,
                                                        command):
    out = run(str(venv / 'bin' / command), '--help', cwd=tmp_path)
    assert out.startswith('usage: %s' % command), out


def test_the_installed_wheel_generates_the_sample_files(venv, tmp_path):
    """The sample configuration and policy an operator starts from: the
    generators' files come with the wheel, and every namespace they name
    is installed."""
    etc = venv / 'etc' / 'watcher-ha'
    run(str(venv / 'bin' / 'oslo-config-generator'), '--config-file',
        str(etc / 'config-generator.conf'), '--output-file',
        str(tmp_path / 'watcher-ha.conf.sample'), cwd=tmp_path)
    sample = (tmp_path / 'watcher-ha.conf.sample').read_text()
    for section in ('[watcher_decision_engine]', '[watcher_applier]',
                    '[database]', '[keystone_authtoken]'):
        assert section in sample, section
    run(str(venv / 'bin' / 'oslopolicy-sample-generator'), '--config-file',
        str(etc / 'policy-generator.conf'), '--output-file',
        str(tmp_path / 'policy.yaml.sample'), cwd=tmp_path)
    assert '"audit:get_all"' in (tmp_path / 'policy.yaml.sample').read_text()
    assert sorted(os.listdir(venv / 'share' / 'watcher-ha' / 'systemd')) == (
        UNITS)
