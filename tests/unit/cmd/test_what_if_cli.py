"""``watcher-ha what-if``: the CLI against the API served on a loopback
port (noauth: ``--os-auth-type none`` and the API's URL), the engine's
what-if answering in this process (tests/helpers/what_if.py)."""

import io
import json

import pytest

from tests import factories
from tests.helpers import what_if
from watcher_ha.cmd import cli
from watcher_ha.common.states import ActionPlanState


def plan(db, *moves, **values):
    audit = factories.audit(db, goal='workload_balancing',
                            strategy='workload_balance',
                            parameters={'max_migrations_per_host': 1})
    made, _ = factories.action_plan(db, audit,
                                    kinds=what_if.migrations(*moves),
                                    **values)
    return made['uuid']


def run(url, *argv):
    return what_if.cli_output(url, *argv)


def test_it_prints_the_hosts_before_and_after_and_the_rest(db, url):
    uuid = plan(db, ('a', 'busy', 'empty'), ('b', 'busy', 'idle'))
    lines = run(url, uuid).splitlines()
    assert lines[0] == ('What-if of action plan %s (RECOMMENDED), goal '
                        'workload_balancing, strategy workload_balance'
                        % uuid)
    assert 'decision engine engine-a' in lines[1]
    hosts = lines.index('Hosts: 3 of 3 changed (percent of what each can '
                        'give; load: the highest of the three)')
    header, rule, *rows = lines[hosts + 1:hosts + 6]
    assert header.split() == ['host', 'servers', 'vCPU', '%', 'RAM', '%',
                              'disk', '%', 'load', '%', 'CPU', 'used', '%',
                              'node']
    # The busiest after first: empty (4 vcpus), idle (3), busy (0).
    assert [row.split()[0] for row in rows] == ['empty', 'idle', 'busy']
    assert rows[2].split()[:4] == ['busy', '2', '->', '0']
    assert '75.0 -> 0.0' in rows[2]
    assert ('Worst moment: busy at 75.0 % (vcpus) in step 1, once migrate'
            in '\n'.join(lines))
    budget = next(line for line in lines
                  if line.startswith('max_migrations_per_host'))
    assert budget.split() == ['max_migrations_per_host', '1', '2', 'busy',
                              'NO']
    assert 'Failover segments: none.' in lines
    assert 'Actions: 2 migrate' in lines


def test_all_hosts_and_json(db, url):
    uuid = plan(db, ('c', 'idle', 'empty'))
    lines = run(url, uuid, '--all-hosts').splitlines()
    assert any(line.startswith('busy (unchanged)') for line in lines)
    answer = json.loads(run(url, uuid, '--format', 'json'))
    assert answer['action_plan_uuid'] == uuid
    assert [h['name'] for h in answer['hosts']] == ['empty', 'idle']


def test_a_refusal_is_said_with_the_apis_words(db, url):
    uuid = plan(db, ('c', 'idle', 'empty'), state=ActionPlanState.ONGOING)
    with pytest.raises(SystemExit) as ended:
        run(url, uuid)
    assert str(ended.value) == (
        'watcher-ha what-if: Action plan %s is ONGOING: a what-if projects '
        'a plan that has not started; the states allowed are RECOMMENDED. '
        '(HTTP 409)' % uuid)


def test_without_credentials_it_says_what_is_missing(monkeypatch):
    for name in ('OS_AUTH_URL', 'OS_AUTH_TYPE', 'OS_ENDPOINT'):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SystemExit) as ended:
        cli.main(['what-if', 'x'], out=io.StringIO())
    assert 'auth_url' in str(ended.value)
    assert 'OS_* variables' in str(ended.value)
