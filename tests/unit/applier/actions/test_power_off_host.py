"""power_off_host without a cloud: its input, what it makes of Ironic's
error bodies, and an Ironic it cannot use (not configured, not there)."""

import json
import socket

import pytest
import requests

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import power_off_host
from watcher_ha.cloud import ironic


@pytest.fixture
def ironic_conf(config):
    """Set [ironic] options of this process for the test."""
    def override(**options):
        config.config(group='ironic', **options)
    return override


@pytest.mark.parametrize('parameters', [
    {}, {'resource_name': ''}, {'resource_name': 'compute-0', 'node': ''},
    {'resource_name': 'compute-0', 'node': 7}])
def test_bad_input_is_refused(parameters):
    with pytest.raises(ValueError, match='power_off_host'):
        power_off_host.PowerOffHost.validate(parameters)


@pytest.mark.parametrize('parameters', [
    {'resource_name': 'compute-0'},
    {'resource_name': 'compute-0', 'node': None},
    {'resource_name': 'compute-0', 'node': 'bm-17'}])
def test_good_input_is_taken(parameters):
    power_off_host.PowerOffHost.validate(parameters)


def test_the_node_defaults_to_the_host():
    action = power_off_host.PowerOffHost({'resource_name': 'compute-0'})
    assert action.node == 'compute-0'
    assert action.path('states', 'power') == (
        '/v1/nodes/compute-0/states/power')
    named = power_off_host.PowerOffHost({'resource_name': 'compute-0',
                                         'node': 'rack 1/7'})
    assert named.path() == '/v1/nodes/rack%201%2F7'


def response(status, body, reason='Whatever'):
    found = requests.Response()
    found.status_code = status
    found.reason = reason
    found._content = body if isinstance(body, bytes) else json.dumps(
        body).encode()
    return found


@pytest.mark.parametrize('body, expected', [
    # Ironic's: a JSON document inside a JSON string.
    ({'error_message': json.dumps({
        'faultcode': 'Client', 'debuginfo': None,
        'faultstring': 'Node 1be2 is locked by host ctl-1, please retry '
                       'after the current operation is completed.'})},
     'Node 1be2 is locked by host ctl-1, please retry after the current '
     'operation is completed. (HTTP 409)'),
    ({'error_message': {'faultstring': 'Locked.'}}, 'Locked. (HTTP 409)'),
    ({'error_message': 'Locked, plainly.'}, 'Locked, plainly. (HTTP 409)'),
    (b'<html>Bad gateway</html>', '<html>Bad gateway</html> (HTTP 409)'),
    (b'', 'Conflict (HTTP 409)'),
])
def test_what_ironic_said_is_its_faultstring(body, expected):
    assert ironic.said(response(409, body, 'Conflict')) == expected


def test_an_unconfigured_ironic_says_what_to_set(ironic_conf):
    ironic_conf(auth_type=None)
    with pytest.raises(base.ActionError,
                       match=r'cannot power compute-0 off through Ironic: '
                             r'\[ironic\] auth_type is not set'):
        power_off_host.PowerOffHost({'resource_name': 'compute-0'}).execute()


def test_an_ironic_not_there_is_an_action_error(ironic_conf):
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        closed = sock.getsockname()[1]
    ironic_conf(auth_type='none',
                endpoint_override='http://127.0.0.1:%d' % closed)
    action = power_off_host.PowerOffHost({'resource_name': 'compute-0'})
    with pytest.raises(base.ActionError,
                       match='could not ask Ironic to power compute-0 off'):
        action.execute()
    with pytest.raises(base.ActionError, match='could not ask Ironic'):
        action.recover(None)
