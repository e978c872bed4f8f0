"""Input that only a real MariaDB or PostgreSQL refuses gets a 4xx, not a
500: NUL characters, values longer than their column, 4-byte unicode,
out-of-range numbers."""

import pytest
import requests
import sqlalchemy as sa

from tests import factories
from tests.functional import fixtures
from tests.functional import services

LONG = 'x' * 70000


@pytest.fixture(scope='module', params=['mysql', 'postgresql'])
def api_url(request, tmp_path_factory):
    url, drop = services.create_database(request.param)
    tmp = tmp_path_factory.mktemp(request.param)
    port = fixtures.free_port()
    config = fixtures.write_config(tmp / 'watcher-ha.conf',
                                   fixtures.base_config(tmp, url, port))
    try:
        fixtures.prepare_database(config)
        with services.api_process(config, port) as api:
            engine = sa.create_engine(url)
            yield api, engine, request.param
            engine.dispose()
    finally:
        drop()


HOSTILE = [
    ('GET', '/v1/audits/%00abc', None),
    ('GET', '/v1/audits?goal=%00', None),
    ('GET', '/v1/audit_templates?strategy=a%00b', None),
    ('POST', '/v1/audit_templates', {'name': 'a\u0000b', 'goal': 'dummy'}),
    ('POST', '/v1/audit_templates', {'name': 't', 'goal': 'dummy',
                                     'description': LONG}),
    ('POST', '/v1/audits', {'goal': 'dummy', 'audit_type': 'EVENT',
                            'name': 'n', 'parameters': {'a\u0000': 1}}),
    ('GET', '/v1/audits?marker=99999999999999999999', None),
    ('GET', '/v1/services/99999999999999999999', None),
    ('GET', '/v1/services/9223372036854775808', None),
    ('GET', '/v1/audits?sort_key=parameters', None),
    ('GET', '/v1/goals?sort_key=efficacy_specification', None),
]


@pytest.mark.parametrize('method,path,body', HOSTILE)
def test_database_sensitive_input_is_a_client_error(api_url, method, path,
                                                    body):
    resp = requests.request(method, api_url[0] + path, json=body, timeout=30)
    assert 400 <= resp.status_code < 500, (resp.status_code, resp.text)
    assert resp.json()['error_message']


def test_four_byte_unicode_names_round_trip(api_url):
    api, _, _ = api_url
    name = 'audit-\U0001F600'
    resp = requests.post(api + '/v1/audits', json={
        'goal': 'dummy', 'audit_type': 'EVENT', 'name': name}, timeout=30)
    assert resp.status_code == 201, resp.text
    assert requests.get(api + '/v1/audits/' + name,
                        timeout=30).json()['name'] == name


def test_a_value_too_long_for_its_column(api_url):
    """MariaDB's TEXT holds 64 KiB: a longer skip reason is refused by the
    database, and the API says so with a 400."""
    api, engine, kind = api_url
    _, actions = factories.action_plan(engine, factories.audit(engine))
    resp = requests.patch(
        api + '/v1/actions/' + actions[0]['uuid'], timeout=30,
        headers={'OpenStack-API-Version': 'infra-optim 1.5'}, json=[
            {'op': 'replace', 'path': '/state', 'value': 'SKIPPED'},
            {'op': 'replace', 'path': '/status_message', 'value': LONG}])
    if kind == 'mysql':
        assert resp.status_code == 400, resp.text
        assert 'too long or out of range' in resp.text
    else:
        assert resp.status_code == 200, resp.text
