"""Audits and action plans through a cluster's Watcher API, waited for
until they end (real daemons)."""

import requests

from tests.functional.fixtures import wait_for


# Audits show status_message from microversion 1.5.
LATEST = {'OpenStack-API-Version': 'infra-optim 1.7'}


def aggregate_template(cluster, goal, strategy, aggregate):
    """The uuid of a new audit template of ``goal`` and ``strategy``
    scoped to the host aggregate ``aggregate`` (and named after it)."""
    resp = requests.post(cluster.url + '/v1/audit_templates', json={
        'name': aggregate, 'goal': goal, 'strategy': strategy,
        'scope': [{'host_aggregates': [{'name': aggregate}]}]}, timeout=10)
    assert resp.status_code == 201, resp.text
    return resp.json()['uuid']


def audit(cluster, goal, strategy, parameters):
    """The finished audit (a dict) of a new ONESHOT audit."""
    return finished_audit(cluster, {
        'goal': goal, 'strategy': strategy, 'audit_type': 'ONESHOT',
        'parameters': parameters})


def finished_audit(cluster, body):
    """The finished audit (a dict) that POST /v1/audits ``body`` made."""
    resp = requests.post(cluster.url + '/v1/audits', json=body, timeout=10)
    assert resp.status_code == 201, resp.text

    def done():
        found = requests.get(cluster.url + '/v1/audits/'
                             + resp.json()['uuid'], headers=LATEST,
                             timeout=10).json()
        return found if found['state'] in ('SUCCEEDED', 'FAILED') else None
    return wait_for(done, 90, 'audit %s done' % resp.json()['uuid'])


def plan_of(cluster, audit_uuid):
    [plan] = requests.get(cluster.url + '/v1/action_plans?audit_uuid='
                          + audit_uuid, timeout=10).json()['action_plans']
    actions = requests.get(cluster.url + '/v1/actions/detail?'
                           'action_plan_uuid=' + plan['uuid'],
                           timeout=10).json()['actions']
    return plan['uuid'], actions


def check_applied(actions, state):
    """The simulator shows what every action of the plan asked for."""
    assert {a['state'] for a in actions} == {'SUCCEEDED'}, actions
    last = {}
    resized = {a['input_parameters']['resource_id'] for a in actions
               if a['action_type'] == 'resize'}
    for action in actions:
        kind, parameters = (action['action_type'],
                            action['input_parameters'])
        # A resize lets Nova's scheduler choose the host again.
        if (kind == 'migrate' and parameters.get('destination_node')
                and parameters['resource_id'] not in resized):
            server = state['servers'][parameters['resource_id']]
            assert server['host'] == parameters['destination_node'], action
        elif kind == 'change_nova_service_state':
            # The last change of each service is what stays.
            last[parameters['resource_name']] = (parameters['state'],
                                                 action)
        elif kind == 'resize':
            server = state['servers'][parameters['resource_id']]
            assert server['flavor'] == parameters['flavor'], action
    for host, (status, action) in last.items():
        assert state['hosts'][host]['status'] == status, action


def start_and_wait(cluster, plan, version='infra-optim 1.5'):
    """Start ``plan`` and wait for its end; ``version``: the API
    microversion asked (an audit pipeline's plan needs watcher-ha 1.4)."""
    headers = {'OpenStack-API-Version': version}
    resp = requests.post('%s/v1/action_plans/%s/start' % (cluster.url,
                                                           plan),
                         headers=headers, timeout=10)
    assert resp.status_code == 200, resp.text

    def ended():
        found = requests.get('%s/v1/action_plans/%s' % (cluster.url, plan),
                             headers=headers, timeout=10).json()
        return found if found['state'] in ('SUCCEEDED', 'FAILED',
                                           'CANCELLED') else None
    return wait_for(ended, 120, 'plan ended')


# What a what-if projects of each host, and how close the cloud must
# come to it.
PROJECTED = ('vcpus', 'memory_mb', 'disk_gb')


def within_one_percent(projected, actual):
    return abs(projected - actual) <= 0.01 * max(abs(actual), 1)


def off_projection(answer, before, after):
    """[(host, resource, side, projected, actual)] of every host of a
    what-if ``answer`` whose usage before or after the plan (the
    simulator's state's hosts ``before`` and ``after`` it ran) is off the
    projection by more than 1 %."""
    off = []
    for host in answer['hosts']:
        for resource in PROJECTED:
            for side, hosts in (('before', before), ('after', after)):
                projected = host[side][resource]['used']
                actual = hosts[host['name']]['used'][resource]
                if not within_one_percent(projected, actual):
                    off.append((host['name'], resource, side, projected,
                                actual))
    return off
