"""The watcher-ha-api command serves the API from real processes."""

import requests


def test_api_process_serves_goals(api_server):
    resp = requests.get(api_server + '/v1/goals')
    assert resp.status_code == 200
    assert 'dummy' in [goal['name'] for goal in resp.json()['goals']]
    assert resp.headers['OpenStack-API-Version'] == 'infra-optim 1.0'
    assert resp.headers['X-OpenStack-Request-Id'].startswith('req-')
