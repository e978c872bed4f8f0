"""The actions of an application's failover against the simulator's Nova,
Cinder and Ironic (auth_type none, in this process): evict_member deletes
a failed member only once it is proven fenced (a partitioned host,
forced down but still on, is refused, and its volumes stay); with the
host powered off it is deleted locally and its volumes freed;
move_volume_attachment attaches them to the standby, and refuses while
their holder is still in Nova; activate marks the standby active and
delivers one signed webhook id however often it runs; replace_member
creates one standby in the group on another host than every member,
found again rather than made twice; quiesce_server stops a member on a
live host and leaves a down host's to fencing. The strategy plans each
case (a failed host's active fenced and failed over, a reported failure
stopped on its live host, a failed standby replaced), or says why it
does nothing (a healthy application, a failover under way, volumes it
cannot move, the cloud-wide breaker open)."""

import contextlib
import datetime

import pytest
import requests

from tests import factories
from tests.functional import app_failover
from tests.functional import app_stacks
from tests.functional import cloud as cloud_mod
from tests import served
from tests.helpers.fence import Fence
from watcher_ha.applier.actions import activate
from watcher_ha.applier.actions import activation_webhook
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import evict_member
from watcher_ha.applier.actions import force_host_down
from watcher_ha.applier.actions import move_volume_attachment
from watcher_ha.applier.actions import power_off_host
from watcher_ha.applier.actions import quiesce_server
from watcher_ha.applier.actions import replace_member
from watcher_ha.cloud import clients
from watcher_ha.common import plugins
from watcher_ha.common import context as watcher_context
from watcher_ha.common import parameters as params
from watcher_ha.common import state_machines
from watcher_ha.common.app_failover import members
from watcher_ha.db import action_plans
from watcher_ha.db import models as db_models
from watcher_ha.decision_engine.goal import application_availability
from watcher_ha.decision_engine.strategy import active_standby
from watcher_ha.decision_engine.strategy import base as strategy_base
from watcher_ha.simulator.nova import networks

ACTIVE_HOST, STANDBY_HOST = app_failover.HOSTS[:2]
ACTIONS = plugins.load_classes(plugins.ACTIONS)


@pytest.fixture
def cloud():
    """(simulator URL, admin novaclient, the application), with [nova],
    [ironic] and [cinder] of this process on the simulator (served in
    this process: a test makes one of its own)."""
    with _app_cloud(app_failover.spec(
            activation_secret=app_failover.SECRET)) as found:
        yield found


@contextlib.contextmanager
def _app_cloud(spec):
    with served.simulator_serving(spec) as (_sim, url), \
            cloud_mod.overridden(_simulated_clients(url)):
        nova = cloud_mod.nova(url)
        yield url, nova, app_failover.make(nova)


def _simulated_clients(url):
    """The options of this process that point [nova], [ironic] and
    [cinder] at the simulator at ``url``, its waits short."""
    return (('auth_type', 'none', 'nova'),
            ('endpoint_override', url + '/compute/v2.1', 'nova'),
            ('auth_type', 'none', 'ironic'),
            ('endpoint_override', url + '/baremetal', 'ironic'),
            ('power_timeout', 10, 'ironic'),
            ('auth_type', 'none', 'cinder'),
            ('endpoint_override', url + '/volume/v3', 'cinder'),
            ('poll_interval', 0.1, 'watcher_applier'),
            ('migration_timeout', 10, 'watcher_applier'),
            ('webhook_secret', app_failover.SECRET, 'app_failover'),
            ('webhook_timeout', 10, 'app_failover'))


def host_event(url, host, what):
    requests.post('%s/simulator/hosts/%s/%s' % (url, host, what),
                  timeout=10).raise_for_status()


def state(url):
    return requests.get(url + '/simulator/state', timeout=10).json()


def fence_host(host):
    for action in (power_off_host.PowerOffHost, force_host_down.ForceHostDown):
        action({'resource_name': host, 'hold_host': False}).execute()


def evict(app, **more):
    return evict_member.EvictMember(dict({
        'resource_id': app.active, 'fenced': True, 'host': ACTIVE_HOST,
        'volumes': list(app_failover.DATA_VOLUMES)}, **more), fence=Fence())


def move(app, volume):
    return move_volume_attachment.MoveVolumeAttachment({
        'resource_id': app.standby, 'volume_id': volume,
        'source_server': app.active})


def test_a_partitioned_member_is_not_evicted_and_keeps_its_volumes(cloud):
    url, nova, app = cloud
    host_event(url, ACTIVE_HOST, 'partition')
    force_host_down.ForceHostDown({'resource_name': ACTIVE_HOST}).execute()
    action = evict(app)
    action.pre_condition()
    with pytest.raises(base.ActionError, match='was not evicted, and none '
                       'of its volumes moves: node compute-0 of compute-0 '
                       'is power on'):
        action.execute()
    assert nova.servers.get(app.active).id == app.active
    volumes = state(url)['volumes']
    for volume in app_failover.DATA_VOLUMES:
        assert volumes[volume]['attached_to'] == [app.active]
    assert action.recover(None) == base.NOT_DONE
    with pytest.raises(base.ActionError, match='is still in Nova'):
        move(app, app_failover.DATA_VOLUMES[0]).pre_condition()


def test_a_fenced_member_is_evicted_and_its_volumes_move(cloud):
    url, nova, app = cloud
    host_event(url, ACTIVE_HOST, 'partition')
    fence_host(ACTIVE_HOST)
    action = evict(app)
    action.pre_condition()
    action.execute()
    assert 'compute-0 is forced down in Nova and powered off' in \
        action.outcome
    assert action.recover(None) == base.DONE
    for volume in app_failover.DATA_VOLUMES:
        assert state(url)['volumes'][volume]['status'] == 'available'
        moving = move(app, volume)
        assert moving.recover(None) == base.NOT_DONE
        moving.pre_condition()
        moving.execute()
        moving.post_condition()
        assert moving.recover(None) == base.DONE
        with pytest.raises(base.ActionSkipped):
            moving.pre_condition()
    found = state(url)
    for volume in app_failover.DATA_VOLUMES:
        assert found['volumes'][volume]['attached_to'] == [app.standby]
        assert found['volumes'][volume]['writers'] == [app.standby]
    assert found['shared_writes'] == []
    assert move_volume_attachment.MoveVolumeAttachment.resources({
        'resource_id': app.standby, 'volume_id': 'v',
        'source_server': app.active}) == {('server', app.standby),
                                          ('volume', 'v')}


def test_attachments_nova_left_in_cinder_are_deleted_before_the_move():
    """Without Nova's service token, Cinder refused the attachment
    deletes of the evicted member's local delete, and Nova ignored that:
    the volumes stay in-use by a server that is gone, until deleted
    through Cinder (which it allows once Nova no longer maps them)."""
    with _app_cloud(app_failover.spec(nova_service_token=False)) as (
            url, nova, app):
        host_event(url, ACTIVE_HOST, 'fail')
        fence_host(ACTIVE_HOST)
        run('evict_member', evict(app).input_parameters)
        for volume in app_failover.DATA_VOLUMES:
            left = state(url)['volumes'][volume]
            assert (left['status'], left['attached_to']) == (
                'in-use', [app.active])
            run('move_volume_attachment', move(app, volume).input_parameters)
        found = state(url)
        for volume in app_failover.DATA_VOLUMES:
            assert found['volumes'][volume]['attached_to'] == [app.standby]
            assert found['volumes'][volume]['writers'] == [app.standby]
        assert found['shared_writes'] == []


def test_a_member_deleted_by_somebody_else_is_fenced_before_moving(cloud):
    """Deleted locally on a partitioned host, its guest still writes:
    the eviction fails until the host is forced down and off."""
    url, nova, app = cloud
    host_event(url, ACTIVE_HOST, 'partition')
    nova.servers.delete(app.active)
    action = evict(app)
    with pytest.raises(base.ActionError, match='deleted by somebody else '
                       'and perhaps still running on compute-0'):
        action.pre_condition()
    fence_host(ACTIVE_HOST)
    with pytest.raises(base.ActionSkipped, match='gone from Nova already'):
        action.pre_condition()


def test_a_member_somebody_deleted_locally_is_not_recovered_as_done(cloud):
    """The applier died mid-eviction; meanwhile the member was deleted on
    its partitioned host: nobody can tell its guest stopped."""
    url, nova, app = cloud
    host_event(url, ACTIVE_HOST, 'partition')
    nova.servers.delete(app.active)
    assert evict(app).recover(None) == base.UNKNOWN
    fence_host(ACTIVE_HOST)
    assert evict(app).recover(None) == base.DONE


def test_no_eviction_past_which_the_failover_cannot_finish(cloud):
    url, nova, app = cloud
    fence_host(ACTIVE_HOST)
    nova.servers.stop(app.standby)
    action = evict(app, successor=app.standby)
    with pytest.raises(base.ActionError, match='its successor %s cannot '
                       'take its volumes now \\(SHUTOFF\\)' % app.standby):
        action.execute()
    assert nova.servers.get(app.active).id == app.active


def test_no_eviction_before_an_activation_that_could_not_be_signed(cloud):
    url, nova, app = cloud
    fence_host(ACTIVE_HOST)
    with cloud_mod.overridden((('webhook_secret', None, 'app_failover'),)):
        with pytest.raises(base.ActionError, match='no \\[app_failover\\] '
                           'webhook_secret'):
            evict(app, activation='webhook').pre_condition()
    evict(app, activation='webhook').pre_condition()


def test_no_eviction_of_a_member_nova_would_delete_a_volume_with(cloud):
    """delete_on_termination changed after the plan was made."""
    url, nova, app = cloud
    volume = app_failover.DATA_VOLUMES[0]
    nova.volumes.delete_server_volume(app.active, volume)
    nova.volumes.create_server_volume(app.active, volume,
                                      delete_on_termination=True)
    nova.servers.stop(app.active)
    action = evict(app)
    with pytest.raises(base.ActionError, match='Nova would delete '
                       'volume\\(s\\) %s with it' % volume):
        action.execute()
    assert nova.servers.get(app.active).id == app.active


def test_a_member_stopped_on_its_live_host_is_evicted(cloud):
    url, nova, app = cloud
    quiesce = quiesce_server.QuiesceServer({'resource_id': app.active,
                                            'timeout': 10})
    quiesce.execute()
    assert quiesce.outcome == 'server %s stopped on %s' % (app.active,
                                                           ACTIVE_HOST)
    assert quiesce.recover(None) == base.DONE
    action = evict(app)
    action.execute()
    assert 'stopped on compute-0, whose compute reports' in action.outcome
    # Its compute detached the volumes: nothing still reaches them.
    for volume in app_failover.DATA_VOLUMES:
        assert state(url)['volumes'][volume]['writers'] == []


def test_quiesce_leaves_a_down_host_s_member_to_fencing(cloud):
    url, nova, app = cloud
    host_event(url, ACTIVE_HOST, 'fail')
    quiesce = quiesce_server.QuiesceServer({'resource_id': app.active})
    quiesce.execute()
    assert quiesce.outcome == ('not stopped: Nova counts its host %s down; '
                               'fencing decides' % ACTIVE_HOST)
    assert quiesce.recover(None) == base.NOT_DONE


def test_activation_marks_the_standby_and_delivers_once(cloud):
    """To the guests' activation endpoint of the simulator, restarting
    for two deliveries."""
    url, nova, app = cloud
    requests.put(url + '/simulator/faults', json={
        'activation_failures': 2}, timeout=10).raise_for_status()

    def run():
        action = activate.Activate({
            'resource_id': app.standby, 'server_group': app.group,
            'role_key': 'role', 'replaces': app.active,
            'method': 'webhook', 'url': url + '/simulator/activations'},
            fence=Fence())
        action.pre_condition()
        action.execute()
        return action
    action = run()
    metadata = nova.servers.get(app.standby).metadata
    assert metadata['role'] == 'active'
    assert members.activated_at(metadata) is not None
    assert action.recover(None) == base.DONE
    with pytest.raises(base.ActionSkipped):
        action.pre_condition()
    # The same failover activated again (another plan, a takeover): the
    # same delivery id.
    nova.servers.set_meta_item(app.standby, 'role', 'standby')
    run()
    deliveries = state(url)['activations']
    # Two refused, then two acknowledged, one acted on.
    assert [(d['status'], d['acted']) for d in deliveries] == [
        (503, False), (503, False), (200, True), (200, False)]
    assert all(d['signed'] for d in deliveries)
    assert {d['delivery'] for d in deliveries} == {
        activation_webhook.delivery_id(app.active, app.standby)}
    assert {(d['server_group'], d['server'], d['replaces'])
            for d in deliveries} == {(app.group, app.standby, app.active)}


def test_a_reboot_activation_reboots_the_member_once_after_marking_it(
        cloud):
    """With ``reboot``: marked, then rebooted once; cut short between the
    two (the mark shows, no reboot since), it is rebooted when it runs
    again."""
    url, nova, app = cloud
    parameters = {'resource_id': app.standby, 'server_group': app.group,
                  'role_key': 'role', 'replaces': app.active,
                  'method': 'reboot'}

    def reboots():
        return [a for a in nova.instance_action.list(app.standby)
                if a.action == 'reboot']

    # Cut short: marked, not rebooted.
    nova.servers.set_meta(app.standby, {
        'role': 'active', members.ACTIVATED_KEY: db_models.utcnow(
        ).isoformat(timespec='seconds')})
    action = activate.Activate(dict(parameters), fence=Fence())
    assert action.recover(None) == base.NOT_DONE
    action.pre_condition()
    action.execute()
    assert len(reboots()) == 1
    server = nova.servers.get(app.standby)
    assert (server.status, server.metadata['role']) == ('ACTIVE', 'active')
    assert action.recover(None) == base.DONE
    with pytest.raises(base.ActionSkipped, match='active already'):
        activate.Activate(dict(parameters)).pre_condition()
    assert len(reboots()) == 1


def test_an_activation_the_endpoint_refuses_fails(cloud):
    url, nova, app = cloud
    action = activate.Activate({
        'resource_id': app.standby, 'server_group': app.group,
        'role_key': 'role', 'replaces': app.active, 'method': 'webhook',
        'url': url + '/nowhere'})
    with pytest.raises(base.ActionError, match='refused the activation'):
        action.execute()
    assert nova.servers.get(app.standby).metadata['role'] == 'standby'


def test_a_replacement_joins_the_group_on_another_host_once(cloud):
    url, nova, app = cloud
    parameters = {
        'replaces': app.active, 'server_group': app.group,
        'role_key': 'role', 'resource_name': 'app-active',
        'flavor': 'm1.small', 'image': 'any-image', 'key_name': None,
        'metadata': {'role': members.STANDBY, 'app': 'db',
                     members.REPLACES_KEY: app.active},
        'networks': [networks.DEFAULT[0]['id']]}
    action = replace_member.ReplaceMember(dict(parameters), fence=Fence())
    assert action.recover(None) == base.NOT_DONE
    action.pre_condition()
    action.execute()
    replacement = action.replacement()
    assert replacement.metadata['role'] == 'standby'
    assert replacement.image['id'] == 'any-image'
    assert list(replacement.addresses) == ['private']
    group = nova.server_groups.get(app.group)
    assert replacement.id in group.members
    hosts = {getattr(nova.servers.get(uuid), 'OS-EXT-SRV-ATTR:host')
             for uuid in group.members}
    assert len(hosts) == len(group.members) == 3
    assert action.recover(None) == base.DONE
    again = replace_member.ReplaceMember(dict(parameters))
    with pytest.raises(base.ActionSkipped, match='replaced already'):
        again.pre_condition()
    again.execute()     # a run past its pre-condition finds it too
    assert len(nova.server_groups.get(app.group).members) == 3
    assert replace_member.ReplaceMember.resources(parameters) == {
        ('server', app.active)}


# The strategy, on the same cloud.

def plan_for(app, **parameters):
    """The solution's [(action type, input parameters)]; NothingToDo or
    StrategyError raised."""
    checked = params.check(active_standby.ActiveStandby.parameters_spec,
                           dict(server_group=app.group, **parameters))
    strategy = active_standby.ActiveStandby(
        application_availability.ApplicationAvailability)
    solution = strategy.execute({}, checked)
    return [(a.action_type, a.input_parameters) for a in solution.actions], \
        solution.indicator_values


def kinds(actions):
    return [kind for kind, _parameters in actions]


def test_a_healthy_application_is_left_alone(db, cloud):
    _url, _nova, app = cloud
    with pytest.raises(strategy_base.NothingToDo,
                       match='every member is healthy'):
        plan_for(app)


def test_a_failed_host_s_active_is_fenced_then_failed_over(db, cloud):
    url, _nova, app = cloud
    host_event(url, ACTIVE_HOST, 'fail')
    actions, indicators = plan_for(app)
    assert kinds(actions) == [
        'power_off_host', 'force_host_down', 'evict_member',
        'move_volume_attachment', 'move_volume_attachment', 'activate',
        'replace_member']
    fence = dict(actions[0][1])
    assert fence == {'resource_name': ACTIVE_HOST, 'hold_host': False}
    evict = actions[2][1]
    assert (evict['resource_id'], evict['fenced']) == (app.active, True)
    assert sorted(p['volume_id'] for _k, p in actions[3:5]) == sorted(
        app_failover.DATA_VOLUMES)
    assert {p['resource_id'] for _k, p in actions[3:6]} == {app.standby}
    replace = actions[6][1]
    assert (replace['replaces'], replace['flavor'], replace['metadata']) == (
        app.active, 'm1.small', {'role': 'standby', 'app': 'db',
                                 members.REPLACES_KEY: app.active})
    # Its networks: the failed member's ports'.
    assert replace['networks'] == [networks.DEFAULT[0]['id']]
    assert indicators == {'volumes_moved_count': 2,
                          'members_replaced_count': 1}


def test_a_reported_failure_stops_the_active_on_its_live_host(db, cloud):
    _url, _nova, app = cloud
    actions, _ = plan_for(app, trigger='failed', replacement='none',
                          volumes=[app_failover.DATA_VOLUMES[1]])
    assert kinds(actions) == ['quiesce_server', 'evict_member',
                              'move_volume_attachment', 'activate']
    assert actions[0][1]['timeout'] == 30
    assert actions[2][1]['volume_id'] == app_failover.DATA_VOLUMES[1]


def test_an_unhealthy_standby_is_replaced_and_nothing_moves(db, cloud):
    url, _nova, app = cloud
    host_event(url, STANDBY_HOST, 'crash')
    actions, indicators = plan_for(app)
    assert kinds(actions) == ['evict_member', 'replace_member']
    assert (actions[0][1]['resource_id'], actions[0][1]['fenced']) == (
        app.standby, False)
    assert actions[1][1]['replaces'] == app.standby
    assert indicators['volumes_moved_count'] == 0


def test_a_failover_under_way_is_not_planned_twice(db, cloud):
    url, _nova, app = cloud
    host_event(url, ACTIVE_HOST, 'fail')
    audit = factories.audit(db)
    row, _ = factories.action_plan(db, audit, kinds=[
        ('evict_member', {'resource_id': app.active, 'fenced': True})])
    context = watcher_context.admin_context()
    action_plans.transition(context, action_plans.get_plan(
        context, row['uuid']), 'PENDING', actor=state_machines.SERVICE)
    with pytest.raises(strategy_base.NothingToDo,
                       match='a plan under way holds members of this '
                             'application \\(%s by %s\\)'
                       % (app.active, row['uuid'])):
        plan_for(app)


def test_what_the_strategy_will_not_move_it_says(db, cloud):
    url, nova, app = cloud
    host_event(url, ACTIVE_HOST, 'fail')
    with pytest.raises(strategy_base.NothingToDo,
                       match='are not attached to the failed active'):
        plan_for(app, volumes=['0e000000-0000-4000-8000-00000000000f'])
    with pytest.raises(strategy_base.StrategyError,
                       match='needs an activation_url'):
        plan_for(app, activation='webhook')
    with pytest.raises(strategy_base.StrategyError,
                       match='Nova has no server group nope'):
        plan_for(app_failover.Application('nope', app.active,
                                          app.standby))


def test_two_replacements_made_at_once_become_one(cloud):
    """An applier paused with its create on the way, another taking the
    plan over and creating too: whichever looks again keeps the
    oldest."""
    url, nova, app = cloud
    metadata = {'role': members.STANDBY, members.REPLACES_KEY: app.active}
    made = [nova.servers.create(
        'app-active', 'image', nova.flavors.find(name='m1.small'),
        meta=metadata, nics='auto',
        scheduler_hints={'group': app.group}).id for _ in range(2)]
    action = replace_member.ReplaceMember({
        'replaces': app.active, 'server_group': app.group,
        'role_key': 'role', 'resource_name': 'app-active',
        'flavor': 'm1.small', 'image': 'any-image', 'metadata': metadata},
        fence=Fence())
    kept = action.replacement().id
    assert action.recover(None) == base.DONE
    assert [s.id for s in action.replacements()] == [kept]
    gone = set(made) - {kept}
    assert len(gone) == 1 and not set(
        nova.server_groups.get(app.group).members) & gone


def test_a_failover_cut_short_past_the_eviction_is_finished(db, cloud):
    """The last plan evicted the active, then failed (the attach refused,
    say): the next run plans what it left undone, not a new failover
    (no member is active any more, and the evicted one is gone)."""
    _url, _nova, app = cloud
    move = {'volume_id': app_failover.DATA_VOLUMES[0],
            'source_server': app.active, 'resource_id': app.standby}
    activation = {'resource_id': app.standby, 'server_group': app.group,
                  'role_key': 'role', 'replaces': app.active,
                  'method': 'metadata'}
    audit = factories.audit(db, audit_type='EVENT')
    factories.action_plan(db, audit, state='FAILED', kinds=[
        ('power_off_host', {'resource_name': ACTIVE_HOST,
                            'hold_host': False}),
        ('evict_member', {'resource_id': app.active, 'fenced': True}),
        ('move_volume_attachment', move), ('activate', activation)],
        action_states=['SUCCEEDED', 'SUCCEEDED', 'FAILED', 'CANCELLED'])
    checked = params.check(active_standby.ActiveStandby.parameters_spec,
                           {'server_group': app.group})
    strategy = active_standby.ActiveStandby(
        application_availability.ApplicationAvailability)
    solution = strategy.execute(audit, checked)
    assert [(a.action_type, a.input_parameters)
            for a in solution.actions] == [
        ('move_volume_attachment', move), ('activate', activation)]
    # Before the eviction, nothing is past return: a new run decides.
    other = factories.audit(db, audit_type='EVENT')
    factories.action_plan(db, other, state='FAILED', kinds=[
        ('power_off_host', {'resource_name': ACTIVE_HOST}),
        ('evict_member', {'resource_id': app.active, 'fenced': True})],
        action_states=['FAILED', 'CANCELLED'])
    with pytest.raises(strategy_base.NothingToDo,
                       match='every member is healthy'):
        strategy.execute(other, checked)


def test_the_cloud_wide_breaker_stops_failovers_past_its_cap(db, cloud):
    """[app_failover] max_failovers failovers begun (plans evicting a
    member, of any application) within failovers_window: a run that
    would begin another moves nothing, saying why."""
    url, _nova, app = cloud
    host_event(url, ACTIVE_HOST, 'fail')

    def failover_begun(ago=0):
        audit = factories.audit(db, audit_type='EVENT',
                                goal='application_availability',
                                strategy='active_standby')
        factories.action_plan(db, audit, state='SUCCEEDED', kinds=[
            ('evict_member', {'resource_id': app.active, 'fenced': True})],
            action_states=['SUCCEEDED'], created_at=(
                db_models.utcnow() - datetime.timedelta(seconds=ago)))

    failover_begun()
    # Older than the window, and of another goal: not counted.
    failover_begun(ago=700)
    factories.action_plan(db, factories.audit(db), kinds=[
        ('evict_member', {'resource_id': app.active})])
    with cloud_mod.overridden((('max_failovers', 2, 'app_failover'),
                               ('failovers_window', 600, 'app_failover'))):
        assert kinds(plan_for(app)[0])[2] == 'evict_member'
        failover_begun()
        with pytest.raises(strategy_base.NothingToDo,
                           match='its host compute-0 is down, but 2 '
                                 'application failovers began across the '
                                 'cloud within the last 600 s, as many as '
                                 '\\[app_failover\\] max_failovers \\(2\\)'):
            plan_for(app)
    # No cap by default.
    assert kinds(plan_for(app)[0])[2] == 'evict_member'


# Through Heat: the application of doc/source/app_failover.rst's template.

@pytest.fixture
def heat_cloud():
    """(simulator URL, novaclient, heatclient, app_stacks.Application),
    [nova], [ironic], [cinder] and [heat] of this process on the
    simulator."""
    spec = app_failover.spec(heat_poll_seconds=0.1)
    spec['storage'] = dict(spec['storage'], default_volume_type='fast',
                           volume_types=[{'name': 'fast'}])
    with served.simulator_serving(spec) as (_sim, url), \
            cloud_mod.overridden(
                _simulated_clients(url) + (
                    ('auth_type', 'none', 'heat'),
                    ('endpoint_override', url + '/heat-api/v1/admin',
                     'heat'))):
        nova = cloud_mod.nova(url)
        heat = clients.heat()
        yield url, nova, heat, app_stacks.make(heat, nova)


def run(kind, parameters):
    """Run the action ``kind`` as the applier does, fenced."""
    action = ACTIONS[kind](dict(parameters), fence=Fence())
    try:
        action.pre_condition()
    except base.ActionSkipped:
        return action
    action.execute()
    action.post_condition()
    return action


def test_a_stack_s_member_is_failed_over_and_heat_replaces_it(db,
                                                              heat_cloud):
    url, nova, heat, app = heat_cloud
    before = app_stacks.member_ids(heat)
    failed_host = getattr(nova.servers.get(app.active),
                          'OS-EXT-SRV-ATTR:host')
    host_event(url, failed_host, 'fail')
    # replacement auto: through Heat, the member being the stack's.
    actions, indicators = plan_for(
        app, stack=app_stacks.STACK, activation='heat_signal',
        signal_resource=app_stacks.SIGNAL_RESOURCE)
    assert kinds(actions) == [
        'power_off_host', 'force_host_down', 'evict_member',
        'move_volume_attachment', 'move_volume_attachment', 'activate',
        'replace_member']
    top = heat.stacks.get(app_stacks.STACK)
    replace = actions[-1][1]
    [resource] = [name for name, server in before.items()
                  if server == app.active]
    assert (replace['method'], replace['stack'], replace['resource']) == (
        'heat', '%s/%s' % (top.stack_name, top.id), resource)
    assert indicators['members_replaced_count'] == 1
    for kind, parameters in actions:
        run(kind, parameters)
    # Heat's own view: updated, the member's resource on a new server.
    top = heat.stacks.get(app_stacks.STACK)
    assert top.stack_status == 'UPDATE_COMPLETE', top.stack_status_reason
    after = app_stacks.member_ids(heat)
    new = after[resource]
    assert new not in (app.active, app.standby)
    assert after == dict(before, **{resource: new})
    server = nova.servers.get(new)
    assert server.status == 'ACTIVE'
    assert server.metadata['role'] == members.STANDBY
    assert server.metadata[members.REPLACES_KEY] == app.active
    assert new in nova.server_groups.get(app.group).members
    assert getattr(server, 'OS-EXT-SRV-ATTR:host') not in (
        failed_host, getattr(nova.servers.get(app.standby),
                             'OS-EXT-SRV-ATTR:host'))
    # The standby took over, signalled once, whoever runs it again.
    assert nova.servers.get(app.standby).metadata['role'] == 'active'
    delivery = activation_webhook.delivery_id(app.active, app.standby)
    signals = heat.resources.metadata(app_stacks.STACK,
                                      app_stacks.SIGNAL_RESOURCE)
    assert list(signals) == [delivery]
    activation = dict(actions[5][1])
    nova.servers.set_meta_item(app.standby, 'role', 'standby')
    run('activate', activation)
    assert list(heat.resources.metadata(
        app_stacks.STACK, app_stacks.SIGNAL_RESOURCE)) == [delivery]
    # Run again, replace_member finds the replacement and updates nothing.
    again = ACTIONS['replace_member'](dict(replace), fence=Fence())
    with pytest.raises(base.ActionSkipped, match='replaced already by %s'
                       % new):
        again.pre_condition()
    assert again.recover(None) == base.DONE
    assert heat.stacks.get(app_stacks.STACK).stack_status == \
        'UPDATE_COMPLETE'
    assert len([e for e in heat.events.list(app_stacks.STACK)
                if e.resource_name == app_stacks.STACK
                and e.resource_status == 'UPDATE_IN_PROGRESS']) == 1


def test_a_member_no_stack_holds_is_replaced_through_nova(db, heat_cloud):
    """replacement auto, with a stack that does not hold the member:
    through Nova; heat: not at all, the failover going on."""
    url, nova, _heat, _stacked = heat_cloud
    app = app_failover.make(nova)
    host_event(url, getattr(nova.servers.get(app.active),
                            'OS-EXT-SRV-ATTR:host'), 'fail')
    actions, _ = plan_for(app, stack=app_stacks.STACK)
    [(kind, replace)] = [a for a in actions if a[0] == 'replace_member']
    assert replace.get('method', 'nova') == 'nova'
    assert replace['flavor'] == 'm1.small'
    actions, indicators = plan_for(app, stack=app_stacks.STACK,
                                   replacement='heat')
    assert 'replace_member' not in kinds(actions)
    assert 'activate' in kinds(actions)
    assert indicators['members_replaced_count'] == 0
