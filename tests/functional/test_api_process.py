"""The watcher-ha-api command serves the API from real processes."""

import requests


def test_api_process_serves_goals(api_server):
    resp = requests.get(api_server + '/v1/goals')
    assert resp.status_code == 200
    assert 'dummy' in [goal['name'] for goal in resp.json()['goals']]
    assert resp.headers['OpenStack-API-Version'] == 'infra-optim 1.0'
    assert resp.headers['X-OpenStack-Request-Id'].startswith('req-')


def test_a_down_message_bus_does_not_block_writes(tmp_path):
    """The audit is committed before the cast; with the broker down the
    cast gives up after a few retries and the request still succeeds."""
    import time

    from tests.functional import fixtures
    port = fixtures.free_port()
    config = fixtures.write_config(
        tmp_path / 'watcher-ha.conf', fixtures.base_config(
            tmp_path, port=port,
            DEFAULT={'transport_url': 'rabbit://guest:guest@127.0.0.1:1/'}))
    fixtures.prepare_database(config)
    with fixtures.api_process(config, port) as url:
        started = time.monotonic()
        resp = requests.post(url + '/v1/audits', json={
            'goal': 'dummy', 'audit_type': 'ONESHOT', 'name': 'lonely'},
            timeout=60)
        assert resp.status_code == 201, resp.text
        assert time.monotonic() - started < 30
        assert requests.get(url + '/v1/audits/lonely').json()[
            'state'] == 'PENDING'
