"""The guests' activation endpoint (POST /simulator/activations): a
signed delivery is acted on once per delivery id and every delivery
acknowledged; a bad signature refused; while activation_failures lasts,
503; each delivery recorded in the state."""

import hashlib
import hmac
import json

import webob

from tests.helpers.simulator_calls import request

SECRET = 'guest-key'
SPEC = {'hosts': [], 'servers': [], 'activation_secret': SECRET}


def deliver(sim, delivery, key=SECRET, server='s-1'):
    body = json.dumps({'event': 'activate', 'delivery_id': delivery,
                       'server': server, 'replaces': 'a-1',
                       'server_group': 'g-1'}).encode()
    req_headers = {
        'X-Watcher-HA-Delivery': delivery,
        'X-Watcher-HA-Signature': 'sha256=' + hmac.new(
            key.encode(), body, hashlib.sha256).hexdigest(),
        'Content-Type': 'application/json'}
    req = webob.Request.blank('/simulator/activations', method='POST',
                              headers=req_headers)
    req.body = body
    return req.get_response(sim).status_int


def recorded(sim):
    return [(d['delivery'], d['status'], d['acted'], d['signed'])
            for d in request(sim, 'GET', '/simulator/state').json[
                'activations']]


def test_a_delivery_is_acted_on_once_and_always_acknowledged(sim):
    assert deliver(sim, 'd-1') == 200
    assert deliver(sim, 'd-1') == 200
    assert deliver(sim, 'd-2', server='s-2') == 200
    assert recorded(sim) == [('d-1', 200, True, True),
                             ('d-1', 200, False, True),
                             ('d-2', 200, True, True)]
    [first] = request(sim, 'GET', '/simulator/state').json[
        'activations'][:1]
    assert (first['server'], first['replaces'], first['server_group']) == (
        's-1', 'a-1', 'g-1')


def test_a_bad_signature_is_refused_and_not_acted_on(sim):
    assert deliver(sim, 'd-1', key='guess') == 401
    assert recorded(sim) == [('d-1', 401, False, False)]
    assert deliver(sim, 'd-1') == 200
    assert recorded(sim)[-1] == ('d-1', 200, True, True)


def test_a_restarting_agent_answers_503_as_long_as_the_fault_says(sim):
    faults = request(sim, 'PUT', '/simulator/faults',
                     {'activation_failures': 2})
    assert faults.json['activation_failures'] == 2
    assert [deliver(sim, 'd-1') for _ in range(3)] == [503, 503, 200]
    assert [r[2] for r in recorded(sim)] == [False, False, True]
    assert request(sim, 'PUT', '/simulator/faults', {
        'activation_failures': -1}).status_int == 400
