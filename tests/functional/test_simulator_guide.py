"""doc/source/simulator.rst's sandbox, followed as a newcomer follows it:
its configuration written as shown, its commands run as shown, in an
empty directory. The one change: its two ports become free ones, the
machine being shared."""

import os
import pathlib
import re
import shlex
import subprocess

from tests.functional import fixtures
from tools import children

GUIDE = (pathlib.Path(__file__).resolve().parents[2] / 'doc' / 'source'
         / 'simulator.rst')
SECTION = 'Inside watcher-ha-all-in-one'
PORTS = ('9322', '8778')


def literal_blocks(text):
    """The literal blocks (after a paragraph ending '::') of ``text``, as
    their lines without the indentation."""
    blocks, current, inside = [], None, False
    for line in text.splitlines():
        if inside:
            if line.startswith('    ') or not line.strip():
                current.append(line[4:])
                continue
            blocks.append('\n'.join(current).strip('\n'))
            inside = False
        if line.rstrip().endswith('::'):
            current, inside = [], True
    if inside:
        blocks.append('\n'.join(current).strip('\n'))
    return blocks


def guide_section():
    text = GUIDE.read_text()
    start = text.index(SECTION + '\n')
    end = text.index('\n=====', start + 2 * len(SECTION) + 2)
    return text[start:text.rindex('\n', 0, end)]


def test_the_all_in_one_sandbox_of_the_guide_works(tmp_path):
    ports = {port: str(fixtures.free_port()) for port in PORTS}

    def localised(text):
        return re.sub('|'.join(PORTS), lambda m: ports[m.group(0)], text)
    config, commands, calls = [localised(block) for block in
                               literal_blocks(guide_section())]
    (tmp_path / 'watcher-ha.conf').write_text(config + '\n')
    env = dict(os.environ, PATH=fixtures.BIN + os.pathsep
               + os.environ.get('PATH', ''), HOME=str(tmp_path))
    *preparing, serving = commands.splitlines()
    assert serving.startswith('watcher-ha-all-in-one '), serving
    for command in preparing:
        done = children.run(shlex.split(command), cwd=tmp_path, env=env,
                            capture_output=True, text=True,
                            timeout=fixtures.Bound(work=30).seconds())
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    output = tmp_path / 'all-in-one.out'
    with open(output, 'w') as out:
        proc = children.popen(shlex.split(serving), cwd=tmp_path, env=env,
                              stdout=out, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        fixtures.wait_answering(
            proc, 'http://127.0.0.1:%s/' % ports['9322'], output,
            fixtures.Bound(work=30).seconds(), 'watcher-ha-all-in-one')
        status = children.run(
            ['watcher-ha-status', '--config-file', 'watcher-ha.conf',
             'upgrade', 'check'], cwd=tmp_path, env=env,
            capture_output=True, text=True,
            timeout=fixtures.Bound(work=30).seconds())
        assert status.returncode == 0, status.stdout + status.stderr
        create, show = calls.splitlines()
        done = children.run(shlex.split(create), cwd=tmp_path, env=env,
                            capture_output=True, text=True,
                            timeout=fixtures.Bound(work=20).seconds())
        assert done.returncode == 0, done.stdout + done.stderr

        def succeeded():
            shown = children.run(shlex.split(show), cwd=tmp_path, env=env,
                                 capture_output=True, text=True,
                                 timeout=fixtures.Bound(work=20).seconds())
            assert 'FAILED' not in shown.stdout, shown.stdout
            return 'SUCCEEDED' in shown.stdout
        # The compute model's first sync and the strategy's run: work
        # only, no timer of the guide's configuration.
        fixtures.wait_for(succeeded, fixtures.Bound(work=30),
                          'the audit of the guide SUCCEEDED', every=1)
    finally:
        fixtures.stop(proc)
