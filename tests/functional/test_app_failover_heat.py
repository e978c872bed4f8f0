"""Application failover through Heat, end to end: the real daemons
(separate processes on RabbitMQ and MariaDB) and the simulated cloud with
its Heat, whose Nova counts a silent host up for 60 s as Nova does. The
application is the stack of doc/source/app_failover.rst's template (an
AutoScalingGroup of two members in an anti-affinity server group, a
WaitConditionHandle, two data volumes), made with python-heatclient,
one member marked active with the volumes attached, declared with the
unmodified ``watcher`` CLI (replacement auto, activation heat_signal).

The active's host powers off and is reported to instance HA: within
30 s the standby holds both volumes and is active, signalled once
through the stack, and Heat has replaced the failed member in the
server group on a host of its own; the ``openstack stack`` CLI
(python-heatclient's) shows the stack UPDATE_COMPLETE with the new
member; sampled ten times a second, no volume was ever writable by two
running guests.
"""

import json
import os
import sys
import time

import pytest
from heatclient import client as heat_client
from keystoneauth1.identity import v3
from keystoneauth1 import session as ks_session

from tests.functional import app_failover
from tests.functional import app_stacks
from tests.functional import services
from tests.functional.app_failover import Sampler
from tests.functional.app_failover import declare
from tests.functional.app_failover import host_event
from tests.functional.app_failover import state
from tests.functional.cloud import nova as nova_client
from tests.functional.cloud import scenario_host
from tests.functional.fixtures import wait_for
from tests.helpers import failed_host
from tools import children

HOSTS = ['compute-%d' % i for i in range(4)]
SPEC = {
    'power_seconds': 0.2, 'boot_seconds': 1, 'heat_poll_seconds': 0.2,
    # Nova's: a host reported at once is still up for it.
    'service_down_time': 60, 'rpc_response_timeout': 60,
    'hosts': [scenario_host(name) for name in HOSTS],
    'servers': [],
    # The stack makes its volumes, of the default type.
    'storage': dict(app_failover.storage([]), default_volume_type='fast',
                    volume_types=[{'name': 'fast'}])}
# Seconds from the report to the application whole again.
WITHIN = 30
ADMIN = {'OS_USERNAME': 'admin', 'OS_PASSWORD': 'admin',
         'OS_PROJECT_NAME': 'admin', 'OS_USER_DOMAIN_NAME': 'Default',
         'OS_PROJECT_DOMAIN_NAME': 'Default'}


def sections(sim_url):
    """app_failover.sections(), and [heat] with [nova]'s credentials."""
    found = app_failover.sections(sim_url)
    found['heat'] = dict(found['nova'])
    return found


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    """(cluster, simulator URL, novaclient, heatclient), every host in one
    failover segment."""
    with services.cloud_cluster(tmp_path_factory.mktemp('heat'), SPEC,
                                sections) as (cluster, sim_url):
        app_failover.one_segment(cluster, HOSTS)
        auth = v3.Password(auth_url=sim_url + '/identity/v3',
                           username='admin', password='admin',
                           project_name='admin', user_domain_name='Default',
                           project_domain_name='Default')
        yield cluster, sim_url, nova_client(sim_url), heat_client.Client(
            '1', session=ks_session.Session(auth=auth))


def openstack_stack(sim_url, *args):
    """``openstack stack ...`` (python-heatclient's commands) logged in
    at the simulator's Keystone, as JSON."""
    env = dict(ADMIN, PATH=os.environ.get('PATH', ''),
               OS_AUTH_URL=sim_url + '/identity/v3',
               OS_IDENTITY_API_VERSION='3')
    found = children.run(
        [os.path.join(os.path.dirname(sys.executable), 'openstack'),
         'stack', *args, '-f', 'json'], env=env, capture_output=True,
        text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    return json.loads(found.stdout)


def host_of(nova, server):
    return getattr(nova.servers.get(server), 'OS-EXT-SRV-ATTR:host')


def test_heat_replaces_the_failed_member_of_a_stack_s_application(cloud):
    cluster, sim_url, nova, heat = cloud
    app = app_stacks.make(heat, nova)
    before = app_stacks.member_ids(heat)
    [resource] = [name for name, server in before.items()
                  if server == app.active]
    declare(cluster, 'stacked', app.group, stack=app_stacks.STACK,
            activation='heat_signal',
            signal_resource=app_stacks.SIGNAL_RESOURCE)
    failed = host_of(nova, app.active)
    sampler = Sampler(sim_url, app.volumes)
    sampler.start()
    reported = time.monotonic()
    host_event(sim_url, failed, 'fail')
    failed_host.report(cluster, failed)

    def whole():
        found = state(sim_url)
        if not all(found['volumes'][v]['attached_to'] == [app.standby]
                   for v in app.volumes) or found['servers'][app.standby][
                'metadata'].get('role') != 'active':
            return None
        shown = heat.stacks.get(app_stacks.STACK)
        new = app_stacks.member_ids(heat).get(resource)
        return shown.stack_status == 'UPDATE_COMPLETE' and new not in (
            None, app.active) and found['servers'].get(new, {}).get(
            'vm_state') == 'active' and new
    new = wait_for(whole, WITHIN, 'the application whole, through Heat')
    took = time.monotonic() - reported
    sampler.stop()
    assert took < WITHIN
    found = state(sim_url)
    assert app.active not in found['servers']
    assert found['servers'][new]['metadata']['role'] == 'standby'
    assert found['servers'][new]['host'] not in (
        failed, found['servers'][app.standby]['host'])
    assert new in nova.server_groups.get(app.group).members
    assert sampler.shared == [] and found['shared_writes'] == []
    # Signalled once, through the stack.
    assert len(heat.resources.metadata(app_stacks.STACK,
                                       app_stacks.SIGNAL_RESOURCE)) == 1
    # What Heat's own CLI shows.
    shown = openstack_stack(sim_url, 'show', app_stacks.STACK)
    assert shown['stack_status'] == 'UPDATE_COMPLETE', shown
    members = {r['physical_resource_id'] for r in openstack_stack(
        sim_url, 'resource', 'list', '--nested-depth', '2',
        app_stacks.STACK) if r['resource_type'] == 'OS::Nova::Server'}
    assert members == {app.standby, new}
