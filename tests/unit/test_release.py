"""What an operator reads of a release before running it: every command
says its version, the licence is Apache 2.0 (as OpenStack's), and the
version source is setup.cfg's pre-version with git tags
(tests/functional/test_packaging.py builds the wheel and checks both)."""

import configparser
import importlib.metadata
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
SCRIPTS = sorted(
    entry_point.name for entry_point in importlib.metadata.entry_points(
        group='console_scripts')
    if entry_point.value.startswith('watcher_ha.'))


def setup_cfg():
    parser = configparser.ConfigParser()
    parser.read(ROOT / 'setup.cfg')
    return parser


def test_every_command_is_listed():
    assert SCRIPTS == [
        'watcher-ha', 'watcher-ha-all-in-one', 'watcher-ha-api',
        'watcher-ha-applier', 'watcher-ha-db-manage',
        'watcher-ha-decision-engine', 'watcher-ha-simulator',
        'watcher-ha-status']


@pytest.mark.parametrize('script', SCRIPTS)
def test_every_command_prints_the_installed_version(script):
    done = subprocess.run([BIN / script, '--version'], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == importlib.metadata.version('watcher-ha') + '\n'


def test_setup_cfg_names_the_release_being_prepared():
    metadata = setup_cfg()['metadata']
    major, minor, patch = metadata['version'].split('.')
    assert (int(major), int(minor), int(patch)) >= (1, 0, 0)


def test_the_licence_is_apache_2_and_the_metadata_says_so():
    text = (ROOT / 'LICENSE').read_text()
    assert text.split()[:5] == ['Apache', 'License', 'Version', '2.0,',
                                'January']
    assert 'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION' \
        in text
    metadata = setup_cfg()['metadata']
    # An SPDX expression (PEP 639), the licence file shipped with it.
    assert metadata['license_expression'] == 'Apache-2.0'
    assert metadata['license_files'].split() == ['LICENSE']
    # Superseded by the expression: setuptools refuses both.
    assert 'License ::' not in metadata['classifier']


# Release notes.

RENO = BIN / 'reno'
NOTES = ROOT / 'releasenotes' / 'notes'
# What `reno new` writes into a note for its author to replace.
TEMPLATE_TEXT = ('Replace this text', 'or remove this section')


def tracked_notes():
    listed = subprocess.run(
        ['git', '-C', str(ROOT), 'ls-files', 'releasenotes/notes'],
        capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / name for name in listed if name.endswith('.yaml')]


def test_the_release_notes_pass_reno_lint():
    done = subprocess.run([RENO, 'lint', str(ROOT)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_committed_note_is_in_the_report():
    notes = tracked_notes()
    assert notes
    done = subprocess.run([RENO, 'report', str(ROOT)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # reno shows each note's source above its items.
    assert [note.name for note in notes
            if '.. releasenotes/notes/%s @' % note.name
            not in done.stdout] == []


def test_no_note_keeps_the_template_text():
    for note in NOTES.glob('*.yaml'):
        text = note.read_text()
        assert not any(words in text for words in TEMPLATE_TEXT), note.name


def test_the_deployment_guide_names_every_command_and_what_watches_them():
    guide = (ROOT / 'doc/source/deployment.rst').read_text()
    assert [script for script in SCRIPTS
            if '``%s``' % script not in guide] == []
    for subject in ('upgrade check', 'WatchdogSec=', '``WATCHDOG=1``',
                    'GET /healthcheck', 'systemd-analyze security'):
        assert subject in guide, subject
