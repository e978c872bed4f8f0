"""One audit followed across the daemons' logs: the request id the API
answered with is on every line the decision engine and the applier log
about the audit and its plan, whatever thread picked the work up."""

import re
import uuid as uuidlib

import requests

from tests.functional import services
from tests.functional.daemons import state_of
from tests.functional.fixtures import MARIADB_ONLY
from tests.functional.fixtures import wait_for

REQUEST_ID = re.compile(r'^req-[0-9a-f-]{36}$')


def _request(url, method, path, body):
    """Send with a request id of the client's own: (the answer, the id
    the API answered with, the client's)."""
    chosen = 'req-%s' % uuidlib.uuid4()
    answer = requests.request(
        method, url + path, json=body, timeout=30,
        headers={'X-Openstack-Request-Id': chosen,
                 'OpenStack-API-Version': 'infra-optim 1.0'})
    assert answer.status_code < 300, answer.text
    answered = answer.headers['X-Openstack-Request-Id']
    # oslo.middleware keeps the client's as the global request id.
    assert REQUEST_ID.match(answered) and answered != chosen
    return answer.json(), answered, chosen


def _lines(path, *needles):
    return [line for line in path.read_text().splitlines()
            if any(needle in line for needle in needles)]


def _all_under(lines, request_id):
    untraced = [line for line in lines if request_id not in line]
    assert not untraced, '\n'.join(untraced)


@MARIADB_ONLY
def test_request_id_follows_audit_and_plan(tmp_path, database, rabbit):
    url, _ = database
    with services.cluster(tmp_path, url, rabbit) as cluster:
        cluster.start_applier('applier-1')
        # No engine listens yet: the audit's message is lost, and the
        # engine started later takes the audit in its sweep, with no RPC
        # context to carry anything.
        audit, created, created_chosen = _request(
            cluster.url, 'POST', '/v1/audits', {
                'audit_type': 'ONESHOT', 'goal': 'dummy',
                'strategy': 'dummy', 'parameters': {'para1': 1}})
        cluster.start_engine('engine-1')
        wait_for(lambda: state_of(cluster.url, 'audits', audit['uuid'])
                 == 'SUCCEEDED', 30, 'audit SUCCEEDED')
        [plan] = requests.get(
            cluster.url + '/v1/action_plans?audit_uuid=' + audit['uuid'],
            timeout=10).json()['action_plans']
        _, started, started_chosen = _request(
            cluster.url, 'PATCH', '/v1/action_plans/' + plan['uuid'],
            [{'op': 'replace', 'path': '/state', 'value': 'PENDING'}])
        wait_for(lambda: state_of(cluster.url, 'action_plans', plan['uuid'])
                 == 'SUCCEEDED', 30, 'plan SUCCEEDED')
        actions = requests.get(
            cluster.url + '/v1/actions?action_plan_uuid=' + plan['uuid'],
            timeout=10).json()['actions']

    # The API's access log: the client's id as the global one, beside.
    for answered, chosen in ((created, created_chosen),
                             (started, started_chosen)):
        assert _lines(tmp_path / 'watcher-ha.log',
                      '[%s %s ' % (chosen, answered))
    engine_log = tmp_path / 'engine-1.log'
    about_audit = _lines(engine_log, audit['uuid'])
    _all_under(about_audit, created)
    # The strategy's run, in one line: what it chose and its indicators.
    assert len([line for line in about_audit
                if 'strategy dummy proposes' in line]) == 1

    applier_log = tmp_path / 'applier-1.log'
    about_plan = _lines(applier_log, plan['uuid'],
                        *(action['uuid'] for action in actions))
    _all_under(about_plan, started)
    for action in actions:
        # One line as it starts (type, parameters), one as it ends.
        [begun] = _lines(applier_log, 'Executing action %s' % action['uuid'])
        assert '(%s)' % action['action_type'] in begun
        assert len(_lines(applier_log, 'Action %s (%s) of plan %s SUCCEEDED'
                          % (action['uuid'], action['action_type'],
                             plan['uuid']))) == 1
    # The other daemon's lines name other requests' work only.
    assert not _lines(applier_log, created)
    assert not _lines(engine_log, started)
