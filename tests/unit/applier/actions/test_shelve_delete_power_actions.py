"""shelve, delete and change_node_power_state without a cloud: their
input (Watcher's names and schemas), their pre-conditions on stub Nova
and Ironic clients (SKIPPED when nothing is left to do, failed when Nova
or Watcher would refuse), what they hold, and their place in the weight
planner."""

import json
import types

import pytest
import requests
from novaclient import exceptions as nova_exc

from watcher_ha.applier.actions import base
from watcher_ha.common import holds
from watcher_ha.applier.actions import change_node_power_state as cnps
from watcher_ha.applier.actions import delete
from watcher_ha.applier.actions import shelve
from watcher_ha.common import plugins
from watcher_ha.conf import planner

UUID = '9d5e3c55-0000-4000-8000-000000000000'


class StubServers:
    """novaclient's ``servers`` over one server (None: 404); the
    requests made of it are recorded in ``asked``."""

    def __init__(self, status=None, task=None, held=()):
        self.found = None if status is None else types.SimpleNamespace(
            id=UUID, status=status, **{'OS-EXT-STS:task_state': task})
        self.held = list(held)
        self.asked = []

    def get(self, uuid):
        if self.found is None:
            raise nova_exc.NotFound(404)
        return self.found

    def list(self, search_opts=None):
        return self.held


def with_nova(action, servers):
    action._nova = types.SimpleNamespace(servers=servers)
    return action


@pytest.mark.parametrize('plugin', [shelve.Shelve, delete.Delete])
@pytest.mark.parametrize('parameters', [
    {}, {'resource_id': 'vm-1'}, {'resource_id': UUID, 'force': True}])
def test_server_actions_take_a_server_uuid_only(plugin, parameters):
    with pytest.raises(ValueError, match='invalid input_parameters'):
        plugin.validate(parameters)


@pytest.mark.parametrize('plugin', [shelve.Shelve, delete.Delete])
def test_server_actions_hold_their_server(plugin):
    plugin.validate({'resource_id': UUID})
    plugin.validate({'resource_id': UUID, 'resource_name': 'vm-1'})
    assert plugin.resources({'resource_id': UUID}) == {(holds.SERVER, UUID)}


@pytest.mark.parametrize('status, task, outcome', [
    (None, None, 'does not exist any more'),
    # Kept on its host: to be offloaded.
    ('SHELVED', None, None),
    ('SHELVED_OFFLOADED', None, 'SHELVED_OFFLOADED already'),
    ('VERIFY_RESIZE', None, 'Nova shelves only ACTIVE, SHUTOFF'),
    ('ACTIVE', None, None), ('SHUTOFF', None, None),
    ('PAUSED', None, None), ('SUSPENDED', None, None),
])
def test_shelve_pre_condition(status, task, outcome):
    action = with_nova(shelve.Shelve({'resource_id': UUID}),
                       StubServers(status, task))
    if outcome is None:
        action.pre_condition()
        return
    error = (base.ActionError if 'only' in outcome
             else base.ActionSkipped)
    with pytest.raises(error, match=outcome):
        action.pre_condition()


@pytest.mark.parametrize('status, outcome', [
    (None, base.ActionSkipped), ('SOFT_DELETED', None),
    ('ACTIVE', None), ('ERROR', None), ('SHELVED_OFFLOADED', None)])
def test_delete_pre_condition(status, outcome):
    action = with_nova(delete.Delete({'resource_id': UUID}),
                       StubServers(status))
    if outcome is None:
        action.pre_condition()
    else:
        with pytest.raises(outcome):
            action.pre_condition()


def test_delete_cannot_be_reverted():
    with pytest.raises(base.ActionError, match='irreversible'):
        delete.Delete({'resource_id': UUID}).revert()


@pytest.mark.parametrize('status, task, expected', [
    (None, None, base.DONE), ('SOFT_DELETED', None, base.NOT_DONE),
    ('ACTIVE', None, base.NOT_DONE)])
def test_delete_recovers_from_what_nova_shows(status, task, expected):
    action = with_nova(delete.Delete({'resource_id': UUID}),
                       StubServers(status, task))
    assert action.recover(None) == expected


@pytest.mark.parametrize('parameters', [
    {}, {'resource_id': 'n-1'}, {'resource_id': 'n-1', 'state': 'reboot'},
    {'resource_id': '', 'state': 'on'},
    {'resource_id': 'n-1', 'state': 'on', 'node': 'x'}])
def test_power_state_refuses_bad_input(parameters):
    with pytest.raises(ValueError, match='change_node_power_state'):
        cnps.ChangeNodePowerState.validate(parameters)


def test_power_state_takes_watchers_input_and_holds_the_host():
    parameters = {'resource_id': UUID, 'resource_name': 'compute-1',
                  'state': 'off'}
    cnps.ChangeNodePowerState.validate(parameters)
    assert cnps.ChangeNodePowerState.resources(parameters) == {
        (holds.ANY, UUID), (holds.COMPUTE_NODE, 'compute-1')}
    assert cnps.ChangeNodePowerState.resources(
        {'resource_id': UUID, 'state': 'on'}) == {(holds.ANY, UUID)}


class StubIronic:
    """A Bare Metal API adapter answering GET of one node."""

    def __init__(self, node):
        self.node = node
        self.requests = []

    def request(self, path, method, raise_exc=False, **kwargs):
        self.requests.append((method, path))
        found = requests.Response()
        found.status_code = 200 if self.node else 404
        found._content = json.dumps(self.node or {}).encode()
        return found


def power(state, node, held=(), name='compute-1'):
    parameters = {'resource_id': UUID, 'state': state}
    if name:
        parameters['resource_name'] = name
    action = with_nova(cnps.ChangeNodePowerState(parameters),
                       StubServers(held=held))
    action._ironic = StubIronic(node)
    return action


def node(power_state, target=None):
    return {'uuid': UUID, 'name': 'compute-1', 'power_state': power_state,
            'target_power_state': target}


@pytest.mark.parametrize('state, found, held, outcome', [
    ('on', node('power on'), (), 'is power on already'),
    ('off', node('power off'), (), 'is power off already'),
    # A power action under way: not skipped, waited for by execute.
    ('off', node('power off', 'power on'), (), None),
    ('on', node('power off'), (), None),
    ('off', node('power on'), (), None),
    ('off', node('power on'), [types.SimpleNamespace(id='s-1')],
     'holds 1 server'),
    ('on', None, (), 'Ironic has no node'),
])
def test_power_state_pre_condition(state, found, held, outcome):
    action = power(state, found, held)
    if outcome is None:
        action.pre_condition()
    else:
        error = (base.ActionSkipped if 'already' in outcome
                 else base.ActionError)
        with pytest.raises(error, match=outcome):
            action.pre_condition()
    # A pre-condition only reads.
    assert {method for method, _ in action._ironic.requests} <= {'GET'}


def test_the_host_defaults_to_the_nodes_name():
    action = power('off', node('power on'),
                   [types.SimpleNamespace(id='s-1')], name=None)
    with pytest.raises(base.ActionError, match='compute host compute-1'):
        action.pre_condition()


def test_the_actions_are_installed_and_weighed():
    installed = plugins.load_classes(plugins.ACTIONS)
    for name, plugin in (('shelve', shelve.Shelve),
                         ('delete', delete.Delete),
                         ('change_node_power_state',
                          cnps.ChangeNodePowerState)):
        assert installed[name] is plugin
        assert name in planner.WEIGHT_WEIGHTS
        assert name in planner.WEIGHT_PARALLELIZATION
    assert planner.WEIGHT_WEIGHTS['change_node_power_state'] == 9
    weights = list(planner.WEIGHT_WEIGHTS.values())
    assert len(weights) == len(set(weights))


@pytest.mark.parametrize('status, expected', [
    (None, base.NOT_DONE), ('SHELVED', base.NOT_DONE),
    ('SHELVED_OFFLOADED', base.DONE), ('ACTIVE', base.NOT_DONE)])
def test_shelve_recovers_from_what_nova_shows(status, expected):
    action = with_nova(shelve.Shelve({'resource_id': UUID}),
                       StubServers(status))
    assert action.recover(None) == expected


class NovaSteps(StubServers):
    """A server that goes through ``steps`` (statuses): each request the
    action makes moves it to the next one; ``gone`` after the last."""

    def __init__(self, *steps):
        super().__init__(steps[0])
        self.steps = list(steps[1:])

    def _next(self, request):
        self.asked.append(request)
        if not self.steps:
            self.found = None
            return
        following = self.steps.pop(0)
        if following is None:
            self.found = None
        else:
            self.found.status = following

    def delete(self, uuid):
        self._next('delete')

    def force_delete(self, uuid):
        self._next('force_delete')

    def shelve(self, uuid):
        self._next('shelve')

    def shelve_offload(self, uuid):
        self._next('shelve_offload')


def run_action(action):
    action.pre_condition()
    action.execute()
    action.post_condition()


@pytest.mark.parametrize('steps, asked', [
    (['ACTIVE', None], ['delete']),
    # Nova's reclaim_instance_interval: soft-deleted, it still holds its
    # allocation until deleted for good.
    (['ACTIVE', 'SOFT_DELETED', None], ['delete', 'force_delete']),
    (['SOFT_DELETED', None], ['force_delete'])])
def test_delete_ends_with_the_server_gone(steps, asked):
    nova = NovaSteps(*steps)
    run_action(with_nova(delete.Delete({'resource_id': UUID}), nova))
    assert nova.asked == asked
    assert nova.found is None


def test_a_server_still_there_fails_deletes_post_condition():
    with pytest.raises(base.ActionError, match='still exists'):
        with_nova(delete.Delete({'resource_id': UUID}),
                  StubServers('SOFT_DELETED')).post_condition()


@pytest.mark.parametrize('steps, asked', [
    (['ACTIVE', 'SHELVED_OFFLOADED'], ['shelve']),
    # Nova's shelved_offload_time other than 0: kept on its host.
    (['ACTIVE', 'SHELVED', 'SHELVED_OFFLOADED'],
     ['shelve', 'shelve_offload']),
    (['SHELVED', 'SHELVED_OFFLOADED'], ['shelve_offload'])])
def test_shelve_ends_offloaded(steps, asked):
    nova = NovaSteps(*steps)
    run_action(with_nova(shelve.Shelve({'resource_id': UUID}), nova))
    assert nova.asked == asked
    assert nova.found.status == 'SHELVED_OFFLOADED'


def test_a_server_kept_on_its_host_fails_shelves_post_condition():
    with pytest.raises(base.ActionError, match='not shelved and offloaded'):
        with_nova(shelve.Shelve({'resource_id': UUID}),
                  StubServers('SHELVED')).post_condition()
