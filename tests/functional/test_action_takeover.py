"""shelve, delete, change_node_power_state, stop, resize and
change_nova_service_state outlive their applier (migrate: test_ha.py;
volume_migrate: test_action_volume_migrate.py): two appliers as
processes of their own on RabbitMQ, MariaDB and Redis (test_ha's
cluster), [watcher_applier] recovery = resume, the simulator as the
cloud. The applier running the action is SIGKILLed while the cloud is
doing what it asked (a shelve's upload, a BMC powering the node off, a
request the simulator holds back); the other adopts the plan,
its recover() finds the work done once the cloud has finished it, and
the action SUCCEEDS without being executed a second time (one
action.execution.start, the killed applier's)."""

import time

import pytest
import requests

from tests import factories
from tests.functional import identity
from tests.functional import services
from tests.functional.fixtures import MARIADB_ONLY
from tests.functional.fixtures import wait_for
from tests.functional.ha_checks import APPLIERS
from tests.functional.ha_checks import events
from tests.functional.ha_checks import action_starts
from tests.functional.ha_checks import adopter
from tests.functional.ha_checks import check_recovered
from watcher_ha.simulator import scenario

# Longer than a take-over: the cloud is still at it when the plan is
# adopted.
SLOW = 20
HOST, EMPTY = 'compute-0000', 'compute-0001'


def _auth(sim_url):
    return identity.cloud_sections(sim_url, 'nova', 'placement', 'ironic')


def _state(sim_url):
    return requests.get(sim_url + '/simulator/state', timeout=10).json()


def _node(sim_url, name):
    return requests.get(sim_url + '/baremetal/v1/nodes/%s' % name,
                        headers={'X-Auth-Token': 'any',
                                 'X-OpenStack-Ironic-API-Version': '1.50'},
                        timeout=10).json()


def _shelve(sim_url, server):
    return ('shelve', {'resource_id': server},
            lambda: _state(sim_url)['servers'][server]['task_state']
            == 'shelving_image_uploading',
            lambda: _state(sim_url)['servers'][server]['vm_state']
            == 'shelved_offloaded')


def _held_back(sim_url, method, path):
    """Nova holds the action's first ``method`` on ``path`` (a regular
    expression) back 3 s, so that the applier dies with it under way:
    whether it is, for wait_for."""
    requests.put(sim_url + '/simulator/faults', timeout=10, json={
        'api_failures': [{'method': method, 'path': path, 'delay': 3,
                          'count': 1}]}).raise_for_status()
    first_look = []

    def under_way():
        # Its GET (pre-condition), then its request, held back 3 s: a
        # second after the action began, the request is at Nova.
        first_look.append(time.monotonic())
        return time.monotonic() - first_look[0] > 1
    return under_way


def _delete(sim_url, server):
    return ('delete', {'resource_id': server},
            _held_back(sim_url, 'DELETE', '/servers/%s$' % server),
            lambda: server not in _state(sim_url)['servers'])


def _stop(sim_url, server):
    return ('stop', {'resource_id': server},
            _held_back(sim_url, 'POST', '/servers/%s/action$' % server),
            lambda: _state(sim_url)['servers'][server]['vm_state']
            == 'stopped')


def _resize(sim_url, server):
    def done():
        found = _state(sim_url)['servers'][server]
        # Resized and confirmed.
        return (found['flavor'], found['vm_state']) == ('m1.large',
                                                        'active')
    return ('resize', {'resource_id': server, 'flavor': 'm1.large'},
            _held_back(sim_url, 'POST', '/servers/%s/action$' % server),
            done)


def _disable_service(sim_url, server):
    return ('change_nova_service_state',
            {'resource_name': HOST, 'state': 'disabled',
             'disabled_reason': 'watcher_maintaining'},
            _held_back(sim_url, 'PUT', '/os-services/'),
            lambda: _state(sim_url)['hosts'][HOST]['status'] == 'disabled')


def _power_off(sim_url, server):
    node = _node(sim_url, EMPTY)
    return ('change_node_power_state',
            {'resource_id': node['uuid'], 'resource_name': EMPTY,
             'state': 'off'},
            lambda: _node(sim_url, EMPTY)['target_power_state']
            == 'power off',
            lambda: not _state(sim_url)['hosts'][EMPTY]['powered_on'])


@MARIADB_ONLY
@pytest.mark.parametrize('make', [_shelve, _delete, _power_off, _stop,
                                  _resize, _disable_service],
                         ids=['shelve', 'delete', 'change_node_power_state',
                              'stop', 'resize', 'change_nova_service_state'])
def test_an_action_whose_applier_was_killed_is_recovered_not_redone(
        ha_cluster, tmp_path, make):
    spec = scenario.generate(hosts=2, servers=1, seed=7)
    spec['servers'][0].update(host=HOST, state='active')
    spec.update(shelve_seconds=SLOW, power_seconds=SLOW, boot_seconds=1)
    with services.simulator(tmp_path / 'sim', spec) as sim_url:
        cluster = ha_cluster(
            watcher_applier={'recovery': 'resume', 'poll_interval': 0.1,
                             'shelve_timeout': 60, 'delete_timeout': 60,
                             'change_node_power_state_timeout': 60},
            **_auth(sim_url))
        cluster.start_daemons(appliers=APPLIERS[:2])
        [server] = _state(sim_url)['servers']
        kind, parameters, under_way, done = make(sim_url, server)
        plan, [action] = factories.action_plan(
            cluster.engine, factories.audit(cluster.engine),
            kinds=[(kind, parameters)])
        resp = requests.post('%s/v1/action_plans/%s/start' % (
            cluster.url, plan['uuid']), timeout=10)
        assert resp.status_code == 200, resp.text
        runner = wait_for(
            lambda: (action_starts(cluster, action) or [None])[0],
            20, 'the %s action begun' % kind)
        wait_for(under_way, 10, 'the cloud at work for %s' % kind)
        cluster.kill(runner)
        survivor = adopter(cluster, plan, runner)
        check_recovered(cluster, plan, action, runner, survivor, SLOW + 30)
        assert [host for event, host, data in events(
            cluster.notes, action['uuid']) if event == 'action.update'
            and data['state'] == 'SUCCEEDED'] == [survivor]
        assert done()
