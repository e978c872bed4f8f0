"""The real clients log in to the all-in-one's embedded Keystone with
password auth and find the API in its catalog: the ``watcher`` CLI
(python-watcherclient), ``openstack segment ...`` (python-masakariclient,
through openstacksdk) and keystoneauth. The API validates their tokens
there with keystonemiddleware (auth_strategy = keystone, as make demo
runs) and its policies see their roles."""

import json
import os
import subprocess

import pytest
import requests

from tests.functional import embedded_cloud
from tests.functional import fixtures
from tests.functional import identity
from tests.functional import services
from watcher_ha.simulator import scenario

pytestmark = pytest.mark.functional

CALL_TIMEOUT = 60
# A project member: Watcher's and Masakari's policies keep their APIs for
# admins.
MEMBER = {'name': 'kc-member', 'password': 'kc-secret',
          'project': 'kc-project', 'roles': ['member']}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    """(API URL, Keystone URL, home) of an all-in-one serving a small
    cloud, with keystone auth at its embedded Keystone."""
    tmp_path = tmp_path_factory.mktemp('keystone-clients')
    spec = scenario.generate(hosts=3, servers=3, seed=5)
    spec['users'] = [MEMBER]
    with services.embedded_all_in_one(tmp_path, spec) as (url, cloud_url):
        yield url, cloud_url + '/identity/v3', tmp_path


def run(cloud, *argv, user=identity.ADMIN):
    _, keystone_url, home = cloud
    result = subprocess.run(
        [os.path.join(fixtures.BIN, argv[0]), *argv[1:], '-f', 'json'],
        env=embedded_cloud.cli_environment(keystone_url, home, user),
        capture_output=True, text=True, timeout=CALL_TIMEOUT)
    return result


def as_json(cloud, *argv):
    result = run(cloud, *argv)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def session(cloud, user=identity.ADMIN):
    return embedded_cloud.session(cloud[1], user)


def test_the_catalog_lists_the_apis_of_the_all_in_one(cloud):
    url, _, _ = cloud
    logged_in = session(cloud)
    assert logged_in.get_endpoint(service_type='infra-optim') == url
    project_id = logged_in.get_project_id()
    assert logged_in.get_endpoint(service_type='instance-ha',
                                  interface='internal') == (
        '%s/instance-ha/v1/%s' % (url, project_id))


def test_the_watcher_cli_with_password_auth(cloud):
    goals = as_json(cloud, 'watcher', 'goal', 'list')
    assert 'dummy' in {goal['Name'] for goal in goals}
    made = as_json(cloud, 'watcher', 'audittemplate', 'create',
                   'kc-template', 'dummy')
    assert made['Name'] == 'kc-template'
    shown = as_json(cloud, 'openstack', 'optimize', 'audittemplate',
                    'show', 'kc-template')
    assert shown['UUID'] == made['UUID']


def test_the_masakari_cli_with_password_auth(cloud):
    made = as_json(cloud, 'openstack', 'segment', 'create', 'kc-segment',
                   'auto', 'COMPUTE')
    assert made['recovery_method'] == 'auto'
    host = as_json(cloud, 'openstack', 'segment', 'host', 'create',
                   'compute-0001', 'COMPUTE', 'SSH', 'kc-segment')
    assert host['name'] == 'compute-0001'
    assert made['uuid'] in {s['uuid'] for s in as_json(
        cloud, 'openstack', 'segment', 'list')}


def test_the_api_refuses_without_a_valid_token(cloud):
    url, keystone_url, _ = cloud
    for token in (None, 'forged'):
        refused = requests.get(url + '/v1/goals', timeout=30,
                               headers={'X-Auth-Token': token})
        assert refused.status_code == 401, refused.text
        assert refused.headers['WWW-Authenticate'] == (
            'Keystone uri="%s"' % keystone_url)


def test_policies_see_the_tokens_roles(cloud):
    url, _, _ = cloud
    admin = session(cloud).get(url + '/v1/goals', raise_exc=False)
    assert admin.status_code == 200, admin.text
    member = session(cloud, MEMBER)
    assert member.get(url + '/v1/goals', raise_exc=False).status_code == 403
    segments = member.get('/segments', raise_exc=False, endpoint_filter={
        'service_type': 'instance-ha'})
    assert segments.status_code == 403, segments.text
    refused = run(cloud, 'watcher', 'goal', 'list', user=MEMBER)
    assert refused.returncode != 0
    assert 'goal:get_all' in refused.stdout + refused.stderr
