"""The simulator's Heat (Orchestration API v1) as python-heatclient
drives it, logged in at the simulated Keystone and finding Heat there by
type: stacks of a server group with an AutoScalingGroup or a
ResourceGroup of servers made in the simulated Nova, a member replaced
after a mark-unhealthy and an update of the top stack (the way
application failover replaces a failed member), signals, events,
notifications and Heat's refusals. The shapes are checked against
tests/data/reference/heat/ (facts read from Heat 26.0.0's source).
Time moves on a fake clock."""

import json
import time

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from tests import reference_data
from tests import served
from tests.helpers.simulator_calls import notifications_heard
from tests.helpers.simulator_calls import request
from tests.helpers.simulator_calls import until
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import simulator
from watcher_ha.simulator.heat import notifications as heat_notes
from watcher_ha.simulator.nova import hosts

SHAPES = json.loads(
    (reference_data.ROOT / 'heat' / 'shapes.json').read_text())
SPEC = {'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8, 'memory_mb': 32768,
                   'disk_gb': 500} for i in range(4)],
        'heat_poll_seconds': 1,
        'storage': {'default_volume_type': 'fast',
                    'volume_create_seconds': 2,
                    'backends': [{'host': 'stor1', 'backend': 'fast',
                                  'zone': 'nova', 'pools': [{
                                      'name': 'p1',
                                      'total_capacity_gb': 100}]}],
                    'volume_types': [{'name': 'fast'}]}}
GROUP = {'type': 'OS::Nova::ServerGroup',
         'properties': {'policies': ['anti-affinity']}}
MEMBER = {'type': 'OS::Nova::Server', 'properties': {
    'image': 'cirros', 'flavor': {'get_param': 'flavor'},
    'metadata': {'app': 'db'},
    'scheduler_hints': {'group': {'get_resource': 'group'}}}}
ASG_TEMPLATE = {
    'heat_template_version': '2018-08-31',
    'description': 'An active/standby pair',
    'parameters': {'flavor': {'type': 'string', 'default': 'm1.small'}},
    'resources': {
        'group': GROUP,
        'asg': {'type': 'OS::Heat::AutoScalingGroup', 'properties': {
            'min_size': 2, 'max_size': 3, 'desired_capacity': 2,
            'resource': MEMBER}},
        'activate': {'type': 'OS::Heat::WaitConditionHandle'}},
    'outputs': {'members': {'value': {'get_attr': ['asg', 'refs']}}},
}
RG_TEMPLATE = {
    'heat_template_version': 'wallaby',
    'resources': {
        'group': GROUP,
        'data': {'type': 'OS::Cinder::Volume', 'properties': {'size': 1}},
        'rg': {'type': 'OS::Heat::ResourceGroup', 'properties': {
            'count': 2, 'resource_def': {
                'type': 'OS::Nova::Server', 'properties': {
                    'name': 'db-%index%', 'image': 'cirros',
                    'flavor': 'm1.small',
                    'scheduler_hints': {'group': {'get_resource': 'group'}}}}
        }}}}


@pytest.fixture
def cloud():
    """(the simulator, a heatclient logged in at its Keystone)."""
    with served.simulator_serving(SPEC, clock=clock_mod.FakeClock()) as (
            sim, url):
        auth = v3.Password(auth_url=url + '/identity/v3', username='admin',
                           password='admin', project_name='admin',
                           user_domain_name='Default',
                           project_domain_name='Default')
        session = ks_session.Session(auth=auth)
        yield sim, heat_client.Client('1', session=session)


def later(sim):
    """What moves the simulator's time on, half a second a step (until()
    makes up to 100 steps a second of its timeout)."""
    return lambda _step: sim.clock.advance(0.5)


def wait_for(sim, heat, stack, status):
    """The stack shown once its action is over, which must be
    ``status``."""
    until(lambda: not heat.stacks.get(stack).stack_status.endswith(
        'IN_PROGRESS'), later(sim), timeout=1)
    shown = heat.stacks.get(stack)
    assert shown.stack_status == status, shown.stack_status_reason
    return shown


def created(sim, heat, name='app', template=ASG_TEMPLATE):
    heat.stacks.create(stack_name=name, template=template)
    return wait_for(sim, heat, name, 'CREATE_COMPLETE')


def servers(heat, stack):
    return [r for r in heat.resources.list(stack, nested_depth=2)
            if r.resource_type == 'OS::Nova::Server']


def stack_of(resource):
    """``name/id`` of the stack holding ``resource`` (its link rel
    ``stack``)."""
    [href] = [link['href'] for link in resource.links
              if link['rel'] == 'stack']
    return '/'.join(href.split('/')[-2:])


def states(events):
    return [(e.resource_name, e.resource_status, e.resource_status_reason)
            for e in events]


# Finding Heat, and creating a stack.

def test_heatclient_finds_heat_in_the_catalog_by_type(cloud):
    sim, heat = cloud
    endpoint = heat.http_client.get_endpoint()
    project = heat.http_client.get_project_id()
    assert endpoint.endswith('/heat-api/v1/%s' % project)


def test_a_stack_of_a_group_and_an_autoscaling_group_comes_up(cloud):
    sim, heat = cloud
    answer = heat.stacks.create(stack_name='app', template=ASG_TEMPLATE)
    assert set(answer['stack']) == set(SHAPES['stack_create_keys'])
    assert heat.stacks.get('app').stack_status == 'CREATE_IN_PROGRESS'
    shown = wait_for(sim, heat, 'app', 'CREATE_COMPLETE')
    assert set(shown.to_dict()) == set(SHAPES['stack_summary_keys']) | set(
        SHAPES['stack_detail_extra_keys'])
    members = servers(heat, 'app')
    ids = [m.physical_resource_id for m in members]
    in_nova = [sim.cloud.servers[i] for i in ids]
    assert [s.status for s in in_nova] == ['ACTIVE', 'ACTIVE']
    assert len({s.host for s in in_nova}) == 2
    group = heat.resources.get('app', 'group').physical_resource_id
    assert set(sim.cloud.server_groups[group].members) == set(ids)
    assert in_nova[0].metadata == {'app': 'db'}
    [output] = shown.outputs
    assert sorted(output['output_value']) == sorted(ids)
    # Heat's names: the nested stack <stack>-<group>-<short id>, an
    # AutoScalingGroup's members a short id each.
    nested = stack_of(members[0])
    assert nested.split('/')[0].startswith('app-asg-')
    assert all(len(m.resource_name) == 12 and m.resource_name.isalnum()
               for m in members)
    assert set(members[0].to_dict()) == set(SHAPES['resource_keys']) | set(
        SHAPES['nested_resource_extra_keys'])


def test_a_member_is_found_by_its_server_id_with_nested_depth(cloud):
    sim, heat = cloud
    created(sim, heat)
    server_id = servers(heat, 'app')[1].physical_resource_id
    [found] = heat.resources.list('app', nested_depth=2, filters={
        'physical_resource_id': server_id})
    assert found.parent_resource == 'asg'
    assert found.stack_name.startswith('app-asg-')
    rels = [link['rel'] for link in found.links]
    assert rels == SHAPES['resource_link_rels']
    asg = heat.resources.get('app', 'asg')
    assert [link['rel'] for link in asg.links] == SHAPES['group_link_rels']
    # The group's link 'nested' and its member's link 'stack' name the
    # same nested stack, whose id is the group's physical id.
    [nested] = [link['href'] for link in asg.links if link['rel'] == 'nested']
    assert nested.endswith(stack_of(found))
    assert stack_of(found).endswith(asg.physical_resource_id)
    # Shown in the nested stack, by name or by the server's id.
    shown = heat.resources.get(stack_of(found), found.resource_name)
    assert shown.physical_resource_id == server_id
    assert set(shown.to_dict()) >= set(SHAPES['resource_detail_extra_keys'])
    assert shown.attributes['show']['OS-EXT-SRV-ATTR:host'] == \
        sim.cloud.servers[server_id].host


def test_a_member_marked_unhealthy_is_replaced_by_updating_the_top(cloud):
    sim, heat = cloud
    created(sim, heat)
    members = servers(heat, 'app')
    failed, survivor = members[0], members[1]
    old_host = sim.cloud.servers[failed.physical_resource_id].host
    # Its host loses power and somebody deletes the server from Nova.
    hosts.lose_power(sim.cloud, old_host)
    sim.cloud.delete_server(failed.physical_resource_id)
    nested = stack_of(failed)
    assert heat.resources.mark_unhealthy(
        nested, failed.resource_name, True, 'host %s failed' % old_host
    ) is None
    assert heat.resources.get(nested, failed.resource_name
                              ).resource_status == 'CHECK_FAILED'
    heat.stacks.update('app', existing=True)
    assert heat.stacks.get('app').stack_status == 'UPDATE_IN_PROGRESS'
    wait_for(sim, heat, 'app', 'UPDATE_COMPLETE')

    now = {m.resource_name: m.physical_resource_id
           for m in servers(heat, 'app')}
    new_id = now[failed.resource_name]
    assert new_id != failed.physical_resource_id
    assert now[survivor.resource_name] == survivor.physical_resource_id
    assert failed.physical_resource_id not in sim.cloud.servers
    new = sim.cloud.servers[new_id]
    assert new.status == 'ACTIVE'
    assert new.host not in (old_host, sim.cloud.servers[
        survivor.physical_resource_id].host)
    group = heat.resources.get('app', 'group').physical_resource_id
    assert set(sim.cloud.server_groups[group].members) == set(now.values())
    # The nested stack's events, oldest first: the replacement is made
    # before the old one is deleted.
    events = heat.events.list(nested, sort_dir='asc')
    stack_name = nested.split('/')[0]
    assert states(events)[-7:] == [
        (failed.resource_name, 'CHECK_FAILED', 'host %s failed' % old_host),
        (stack_name, 'UPDATE_IN_PROGRESS', 'Stack UPDATE started'),
        (failed.resource_name, 'CREATE_IN_PROGRESS', 'state changed'),
        (failed.resource_name, 'CREATE_COMPLETE', 'state changed'),
        (failed.resource_name, 'DELETE_IN_PROGRESS', 'state changed'),
        (failed.resource_name, 'DELETE_COMPLETE', 'state changed'),
        (stack_name, 'UPDATE_COMPLETE',
         'Stack UPDATE completed successfully')]
    assert [e.physical_resource_id for e in events[-4:-1]] == [
        new_id, failed.physical_resource_id, failed.physical_resource_id]
    # Listed newest first by default.
    assert [e.id for e in heat.events.list(nested)] == [
        e.id for e in reversed(events)]
    assert set(events[0].to_dict()) == set(SHAPES['event_summary_keys'])
    assert [link['rel'] for link in events[0].links] == \
        SHAPES['event_link_rels']
    # The top stack: its group updated (its nested stack), the rest not.
    assert states(heat.events.list('app', sort_dir='asc'))[-4:] == [
        ('app', 'UPDATE_IN_PROGRESS', 'Stack UPDATE started'),
        ('asg', 'UPDATE_IN_PROGRESS', 'state changed'),
        ('asg', 'UPDATE_COMPLETE', 'state changed'),
        ('app', 'UPDATE_COMPLETE', 'Stack UPDATE completed successfully')]
    state = request(sim, 'GET', '/simulator/state').json['stacks']
    top = heat.stacks.get('app').id
    assert state[top]['updates'] == 1


def test_a_resource_group_member_keeps_its_name_when_replaced(cloud):
    sim, heat = cloud
    created(sim, heat, 'rg', RG_TEMPLATE)
    volume = heat.resources.get('rg', 'data').physical_resource_id
    assert sim.cloud.storage.volumes[volume].status == 'available'
    members = {m.resource_name: m for m in servers(heat, 'rg')}
    assert sorted(members) == ['0', '1']
    assert sim.cloud.servers[members['1'].physical_resource_id].name == \
        'db-1'
    heat.resources.mark_unhealthy(stack_of(members['1']), '1', True, 'bad')
    heat.stacks.update('rg', existing=True)
    wait_for(sim, heat, 'rg', 'UPDATE_COMPLETE')
    now = {m.resource_name: m.physical_resource_id
           for m in servers(heat, 'rg')}
    assert now['0'] == members['0'].physical_resource_id
    assert now['1'] != members['1'].physical_resource_id
    assert sim.cloud.servers[now['1']].name == 'db-1'


def test_mark_unhealthy_targets_the_stack_holding_the_member(cloud):
    sim, heat = cloud
    created(sim, heat)
    member = servers(heat, 'app')[0]
    # Not found in the top stack, by name or by server id.
    for name in (member.resource_name, member.physical_resource_id):
        with pytest.raises(heat_exc.HTTPNotFound) as raised:
            heat.resources.mark_unhealthy('app', name, True, 'x')
        assert raised.value.error['error']['type'] == 'ResourceNotFound'
    # The nested stack takes the server's id in place of the name.
    heat.resources.mark_unhealthy(stack_of(member),
                                  member.physical_resource_id, True, '')
    shown = heat.resources.get(stack_of(member), member.resource_name)
    assert (shown.resource_status, shown.resource_status_reason) == (
        'CHECK_FAILED', SHAPES['mark_unhealthy_default_reason'])
    # And back.
    heat.resources.mark_unhealthy(stack_of(member), member.resource_name,
                                  False, 'fine')
    assert heat.resources.get(stack_of(member), member.resource_name
                              ).resource_status == 'CHECK_COMPLETE'


def test_an_update_while_one_runs_supersedes_it_and_a_busy_resource_is_409(
        cloud):
    sim, heat = cloud
    created(sim, heat)
    member = servers(heat, 'app')[0]
    heat.resources.mark_unhealthy(stack_of(member), member.resource_name,
                                  True, 'gone')
    heat.stacks.update('app', existing=True)
    # Convergence takes a second update while the first runs (no 409).
    heat.stacks.update('app', existing=True)
    # The replacement under way holds the member: marking it is refused.
    until(lambda: heat.resources.get(stack_of(member), member.resource_name
                                     ).resource_status ==
          'CREATE_IN_PROGRESS', later(sim), timeout=1)
    with pytest.raises(heat_exc.HTTPConflict) as raised:
        heat.resources.mark_unhealthy(stack_of(member), member.resource_name,
                                      True, 'again')
    assert raised.value.error['error']['type'] == 'ActionInProgress'
    assert raised.value.error['error']['message'] == (
        SHAPES['error']['resource_locked']['message'] % (
            stack_of(member).split('/')[0], 'UPDATE'))
    wait_for(sim, heat, 'app', 'UPDATE_COMPLETE')
    started = [e for e in heat.events.list('app')
               if e.resource_status_reason == 'Stack UPDATE started']
    assert len(started) == 2
    assert len(servers(heat, 'app')) == 2
    top = heat.stacks.get('app').id
    assert request(sim, 'GET', '/simulator/state').json['stacks'][top][
        'updates'] == 2


def test_converge_replaces_a_server_gone_from_nova_unmarked(cloud):
    sim, heat = cloud
    created(sim, heat)
    gone = servers(heat, 'app')[0]
    sim.cloud.delete_server(gone.physical_resource_id)
    # Without converge, nothing is done: no resource is FAILED.
    heat.stacks.update('app', existing=True)
    wait_for(sim, heat, 'app', 'UPDATE_COMPLETE')
    assert gone.physical_resource_id in [
        m.physical_resource_id for m in servers(heat, 'app')]
    heat.stacks.update('app', existing=True, converge=True)
    wait_for(sim, heat, 'app', 'UPDATE_COMPLETE')
    now = {m.resource_name: m.physical_resource_id
           for m in servers(heat, 'app')}
    assert now[gone.resource_name] in sim.cloud.servers


def test_a_group_marked_unhealthy_on_its_parent_is_replaced_whole(cloud):
    sim, heat = cloud
    created(sim, heat)
    before = {m.physical_resource_id for m in servers(heat, 'app')}
    old_nested = heat.resources.get('app', 'asg').physical_resource_id
    heat.resources.mark_unhealthy('app', 'asg', True, 'all of it')
    heat.stacks.update('app', existing=True)
    wait_for(sim, heat, 'app', 'UPDATE_COMPLETE')
    after = {m.physical_resource_id for m in servers(heat, 'app')}
    assert len(after) == 2 and not after & before
    assert not before & set(sim.cloud.servers)
    assert heat.resources.get('app', 'asg').physical_resource_id != \
        old_nested
    assert states(heat.events.list('app', sort_dir='asc'))[-6:-1] == [
        ('app', 'UPDATE_IN_PROGRESS', 'Stack UPDATE started'),
        ('asg', 'CREATE_IN_PROGRESS', 'state changed'),
        ('asg', 'CREATE_COMPLETE', 'state changed'),
        ('asg', 'DELETE_IN_PROGRESS', 'state changed'),
        ('asg', 'DELETE_COMPLETE', 'state changed')]


def test_an_update_the_simulator_cannot_do_as_heat_is_refused(cloud):
    sim, heat = cloud
    created(sim, heat)
    with pytest.raises(heat_exc.HTTPBadRequest) as raised:
        heat.stacks.update('app', existing=True,
                           parameters={'flavor': 'm1.large'})
    assert raised.value.error['error']['message'] == (
        'Updating resource of asg (OS::Heat::AutoScalingGroup) is not '
        'supported by the simulated Heat.')
    assert heat.stacks.get('app').stack_status == 'CREATE_COMPLETE'


# Signals.

def test_a_signal_is_recorded_in_the_resource_s_events(cloud):
    sim, heat = cloud
    created(sim, heat)
    assert heat.resources.signal('app', 'activate', data={
        'status': 'SUCCESS', 'reason': 'activate delivery-7',
        'id': 'delivery-7', 'data': {'member': 'db-1'}}) is None
    sim.clock.advance(0.1)
    [event] = [e for e in heat.events.list('app', resource_name='activate')
               if e.resource_status.startswith('SIGNAL')]
    assert (event.resource_status, event.resource_status_reason) == (
        'SIGNAL_COMPLETE', SHAPES['wait_condition_signal_reason'] % (
            'SUCCESS', 'activate delivery-7'))
    assert heat.resources.get('app', 'activate').resource_status == \
        'CREATE_COMPLETE'
    assert heat.resources.metadata('app', 'activate') == {'delivery-7': {
        'status': 'SUCCESS', 'reason': 'activate delivery-7',
        'data': {'member': 'db-1'}}}
    # An event keeps 255 characters of its reason, as Heat's table.
    heat.resources.signal('app', 'activate', data={'reason': 'x' * 300})
    sim.clock.advance(0.1)
    [latest] = heat.events.list('app', resource_name='activate', limit=1)
    assert latest.resource_status_reason == (
        'Signal: status:SUCCESS reason:' + 'x' * 300)[:255]
    # A signal Heat's engine drops (a key it does not know) is answered
    # all the same, and leaves no event.
    heat.resources.signal('app', 'activate', data={'colour': 'red'})
    sim.clock.advance(0.1)
    assert len([e for e in heat.events.list('app', resource_name='activate')
                if e.resource_status.startswith('SIGNAL')]) == 2
    top = heat.stacks.get('app').id
    signals = request(sim, 'GET', '/simulator/state').json['stacks'][top][
        'resources']['activate']['signals']
    assert [s['accepted'] for s in signals] == [True, True, False]


def test_a_resource_that_takes_no_signal_refuses_one(cloud):
    sim, heat = cloud
    created(sim, heat)
    with pytest.raises(heat_exc.HTTPBadRequest) as raised:
        heat.resources.signal('app', 'group', data={'x': 1})
    refused = SHAPES['error']['signal_refused']
    assert raised.value.code == refused['status']
    assert raised.value.error['error'] == {
        'type': refused['type'], 'message': refused['message'],
        'traceback': None}


# Deleting, failing, refusing.

def test_a_deleted_stack_takes_its_servers_and_nested_stack(cloud):
    sim, heat = cloud
    shown = created(sim, heat)
    ids = [m.physical_resource_id for m in servers(heat, 'app')]
    heat.stacks.delete('app')
    until(lambda: heat.stacks.get('app/%s' % shown.id).stack_status ==
          'DELETE_COMPLETE', later(sim), timeout=1)
    assert not set(ids) & set(sim.cloud.servers)
    assert not sim.cloud.server_groups
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.get('app')
    assert [s.stack_name for s in heat.stacks.list()] == []


def test_a_server_nova_cannot_place_fails_the_stack_as_heat_says(cloud):
    sim, heat = cloud
    template = json.loads(json.dumps(ASG_TEMPLATE))
    template['resources']['asg']['properties'].update(
        min_size=5, max_size=5, desired_capacity=5)
    heat.stacks.create(stack_name='big', template=template)
    shown = wait_for(sim, heat, 'big', 'CREATE_FAILED')
    assert shown.stack_status_reason.startswith(
        'Resource CREATE failed: ResourceInError: resources.asg.resources.')
    assert shown.stack_status_reason.endswith(
        'Went to status ERROR due to "Message: No valid host was found. '
        'There are not enough hosts available., Code: 500"')


@pytest.mark.parametrize('resources, message', [
    ({'x': {'type': 'OS::Nova::Nope'}},
     'The Resource Type (OS::Nova::Nope) could not be found.'),
    ({'asg': {'type': 'OS::Heat::AutoScalingGroup', 'properties': {
        'min_size': 1, 'max_size': 1, 'resource': {'type': 'OS::No'}}}},
     'resources.asg<nested_stack>: The Resource Type (OS::No) could not '
     'be found.'),
    ({'group': {'type': 'OS::Nova::ServerGroup',
                'properties': {'policy': 'anti-affinity'}}},
     'Property error: resources.group.properties: Unknown Property policy'),
    ({'x': {'type': 'OS::Nova::Server', 'properties': {
        'image': 'cirros', 'flavor': {'repeat': {'for_each': {}}}}}},
     'resources.x.properties: The function repeat is not supported by the '
     'simulated Heat.'),
])
def test_what_heat_or_the_simulator_does_not_serve_is_refused(
        cloud, resources, message):
    sim, heat = cloud
    with pytest.raises(heat_exc.HTTPBadRequest) as raised:
        heat.stacks.create(stack_name='bad', template={
            'heat_template_version': '2018-08-31', 'resources': resources})
    error = raised.value.error
    assert set(error) == set(SHAPES['error']['keys'])
    assert (error['error']['type'], error['error']['message']) == (
        'StackValidationFailed', message)
    assert not list(heat.stacks.list())


def test_not_found_is_heat_s_error_document(cloud):
    sim, heat = cloud
    created(sim, heat)
    resp = request(sim, 'GET', '/heat-api/v1/admin/stacks/nope')
    assert resp.status_int == 404
    assert resp.json == SHAPES['error']['stack_not_found']
    top = heat.stacks.get('app')
    for path in ('/stacks/app/%s/resources/nope' % top.id,
                 '/stacks/app/%s/resources/group/events/nope' % top.id,
                 '/stacks/app/not-the-id'):
        resp = request(sim, 'GET', '/heat-api/v1/%s%s' % (
            top.links[0]['href'].split('/v1/')[1].split('/')[0], path))
        assert resp.status_int == 404, path
        assert set(resp.json) == set(SHAPES['error']['keys'])
        assert set(resp.json['error']) == set(SHAPES['error']['error_keys'])


def test_a_lookup_by_name_redirects_to_the_stack_s_url(cloud):
    sim, heat = cloud
    shown = created(sim, heat)
    resp = request(sim, 'GET', '/heat-api/v1/p/stacks/app/resources')
    assert resp.status_int == 404        # another project's
    project = shown.links[0]['href'].split('/v1/')[1].split('/')[0]
    resp = request(sim, 'GET', '/heat-api/v1/%s/stacks/app/resources'
                   '?nested_depth=1' % project)
    assert resp.status_int == 302
    assert resp.headers['Location'] == (
        'http://localhost/heat-api/v1/%s/stacks/app/%s/resources'
        '?nested_depth=1' % (project, shown.id))


# Notifications.

def test_stack_state_changes_are_notified_as_heat_sends_them():
    transport = heat_notes.heat_transport('fake://')
    notes = SHAPES['notification']
    with notifications_heard(transport, notes['exchange']) as got:
        sim = simulator.Simulator(SPEC, clock=clock_mod.FakeClock(),
                                  heat_transport=transport)
        try:
            resp = request(sim, 'POST', '/heat-api/v1/p1/stacks', {
                'stack_name': 'app', 'template': ASG_TEMPLATE})
            assert resp.status_int == 201
            until(lambda: not sim.heat.traversals, later(sim), timeout=1)
            # Two for each stack, the nested one's too.
            until(lambda: len(got) == 4, time.sleep)
            # (The listener's threads may hand them over in any order.)
            publisher = notes['publisher_id'] % 'controller'
            assert sorted((p, e, d['stack_name'] == 'app', d['state'], level)
                          for p, e, d, level in got) == [
                (publisher, 'orchestration.stack.create.end', app,
                 'CREATE_COMPLETE', 'info') for app in (False, True)] + [
                (publisher, 'orchestration.stack.create.start', app,
                 'CREATE_IN_PROGRESS', 'info') for app in (False, True)]
            [end] = [d for _p, e, d, _l in got if d['stack_name'] == 'app'
                     and e.endswith('end')]
            assert set(end) == set(notes['payload_keys'])
            assert end['description'] == 'An active/standby pair'
            # A failure is an error.
            request(sim, 'POST', '/heat-api/v1/p1/stacks', {
                'stack_name': 'big', 'template': dict(ASG_TEMPLATE, resources={
                    'group': GROUP, 'asg': {
                        'type': 'OS::Heat::ResourceGroup', 'properties': {
                            'count': 5, 'resource_def': MEMBER}}})})
            until(lambda: not sim.heat.traversals, later(sim), timeout=1)
            # Both, whichever the listener's threads hand over first (an
            # error and an info come on queues of their own).
            until(lambda: len([d for _p, _e, d, _l in got
                               if d['stack_name'] == 'big']) == 2, time.sleep)
            assert sorted((e, level) for _p, e, d, level in got
                          if d['stack_name'] == 'big') == [
                ('orchestration.stack.create.error', 'error'),
                ('orchestration.stack.create.start', 'info')]
        finally:
            sim.stop()
