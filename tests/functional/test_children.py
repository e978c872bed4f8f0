"""Every process a test starts dies with the test, whatever ends it: a
test process SIGKILLed (its timeout, the OOM killer, a stopped CI run)
runs no cleanup, and its servers, in sessions of their own, would run on
for good (tools/children.py)."""

import ast
import pathlib
import subprocess
import sys
import textwrap

import psutil

from tests.functional import fixtures
from tools import children

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A test's helper: an API process as the fixtures start it, then waits.
HELPER = textwrap.dedent('''
    import pathlib, sys, time
    from tests.functional import fixtures
    tmp = pathlib.Path(sys.argv[1])
    port = fixtures.free_port()
    config = fixtures.write_config(tmp / 'watcher-ha.conf',
                                   fixtures.base_config(tmp, port=port))
    fixtures.prepare_database(config)
    with fixtures.api_process(config, port):
        print('serving', flush=True)
        time.sleep(3600)
''')
# Seconds the kernel and oslo.service's workers (which poll a pipe to
# their parent) take to end them after the SIGKILL, on a loaded machine.
GONE_WITHIN = 10


def descendants_once(proc, line):
    """Read ``proc``'s output until ``line``; then its descendants."""
    said = []
    for text in proc.stdout:
        said.append(text)
        if line in text:
            return psutil.Process(proc.pid).children(recursive=True)
    raise AssertionError('%s never said %r, but:\n%s'
                         % (proc.args, line, ''.join(said)))


def killed_takes_along(proc, line):
    """SIGKILL ``proc`` once it said ``line``: the descendants it had
    that still run ``GONE_WITHIN`` s later."""
    try:
        started = descendants_once(proc, line)
        assert started, 'no child process to watch'
        proc.kill()
        proc.wait()
        _, alive = psutil.wait_procs(started, timeout=GONE_WITHIN)
        return alive
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        for left in psutil.Process().children(recursive=True):
            if left.pid != proc.pid and left.is_running():
                left.kill()


def test_a_killed_test_takes_its_api_process_with_it(tmp_path):
    proc = children.popen([sys.executable, '-c', HELPER, str(tmp_path)],
                          cwd=ROOT, stdout=subprocess.PIPE,
                          text=True)
    assert killed_takes_along(proc, 'serving') == []


def test_a_killed_demo_takes_its_all_in_one_with_it(tmp_path):
    """tools/demo.py starts the all-in-one in a session of its own; a
    test's timeout SIGKILLs the demo, whose cleanup then never runs."""
    proc = children.popen(
        [sys.executable, str(ROOT / 'tools' / 'demo.py'), '--port',
         str(fixtures.free_port()), '--simulator-port',
         str(fixtures.free_port()), '--state-dir', str(tmp_path / 'demo')],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert killed_takes_along(proc, 'is serving on') == []


def _starts_processes(node):
    """The call ``node`` starts a process other than through
    tools/children.py."""
    if not isinstance(node, ast.Call):
        return None
    name = ast.unparse(node.func)
    if name in ('subprocess.Popen', 'os.fork', 'os.system',
                'os.posix_spawn', 'multiprocessing.Process'):
        return name
    if name not in ('children.popen', 'children.run') and any(
            k.arg == 'start_new_session' for k in node.keywords):
        return name
    return None


def _leaves_processes_behind(node):
    """The call ``node`` starts a process meant to outlive its caller
    (tools/children.detached): for command-line tools, never tests."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) == (
            'children.detached'):
        return 'children.detached'
    return None


def test_processes_that_outlive_a_call_start_through_children():
    """Servers (Popen, a new session) start only through
    tools/children.py. (A call that waits for its process, subprocess.run
    with a timeout, ends with it; the benchmarks, run by hand, are no
    tests.)"""
    found = []
    for path in sorted(list((ROOT / 'tests').rglob('*.py'))
                       + list((ROOT / 'tools').glob('*.py'))):
        if path.name == 'children.py' or 'benchmarks' in path.parts:
            continue
        in_tests = path.parts[len(ROOT.parts)] == 'tests'
        for node in ast.walk(ast.parse(path.read_text())):
            name = _starts_processes(node) or (
                in_tests and _leaves_processes_behind(node))
            if name:
                found.append('%s:%d %s' % (path.relative_to(ROOT),
                                            node.lineno, name))
    assert found == [], '\n'.join(found)

