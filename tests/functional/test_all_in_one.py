"""`make demo`: watcher-ha-all-in-one with no server at all (SQLite, the
in-process bus) and a simulated cloud embedded; the watcher CLI drains a
compute host with host_maintenance and the openstack CLI sees it drained."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _after(out, command, occurrence=-1):
    """What the demo printed after its ``occurrence``-th ``command``."""
    chunk = out.split('\n$ ' + command)[occurrence]
    return chunk.split('\n$ ')[0]


def test_demo_drains_a_host_of_the_embedded_cloud():
    result = subprocess.run([sys.executable, str(ROOT / 'tools/demo.py')],
                            capture_output=True, text=True, timeout=180)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    host = 'compute-0002'
    before = _after(out, 'openstack server list', 1)
    servers = re.findall(r'\| (vm-\d+) +\| ACTIVE', before)
    assert servers, before
    assert '... audit drain-%s is SUCCEEDED' % host in out
    planned = _after(out, 'watcher action list', 1)
    assert planned.count('migrate') == len(re.findall(
        r'\| (vm-\d+) ', before)), planned
    assert 'change_nova_service_state' in planned
    assert 'is SUCCEEDED' in out.split('$ watcher actionplan start')[1]
    executed = _after(out, 'watcher action list')
    assert executed.count('SUCCEEDED') == planned.count('PENDING') > 1
    services = _after(out, 'openstack compute service list')
    assert re.search(r'%s +\| disabled +\| up +\| watcher_maintaining'
                     % host, services), services
    assert 'vm-' not in _after(out, 'openstack server list')
    registered = _after(out, 'watcher service list')
    for binary in ('watcher-ha-api', 'watcher-ha-decision-engine',
                   'watcher-ha-applier'):
        assert binary in registered
