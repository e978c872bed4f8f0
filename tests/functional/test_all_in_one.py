"""`make demo`: watcher-ha-all-in-one with no server at all (SQLite, the
in-process bus), an audit becoming a plan and the plan executing, driven
by the watcher CLI."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_demo_runs_the_whole_pipeline_embedded():
    result = subprocess.run([sys.executable, str(ROOT / 'tools/demo.py')],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert '... audit demo-audit is SUCCEEDED' in out
    assert 'is SUCCEEDED' in out.split('$ watcher actionplan start')[1]
    executed = out.split('$ watcher action list')[-1]
    assert executed.count('SUCCEEDED') == 3
    assert 'Interval of audit must not be set for ONESHOT. (HTTP 400)' in out
    services = out.split('$ watcher service list')[1]
    for binary in ('watcher-ha-api', 'watcher-ha-decision-engine',
                   'watcher-ha-applier'):
        assert binary in services
