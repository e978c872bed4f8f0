"""api/routing.py: the route table both APIs declare."""

from watcher_ha.api import routing


def handler(name):
    def serve():
        return name
    return serve


LIST, SHOW, DELETE = handler('list'), handler('show'), handler('delete')
TABLE = routing.Table((
    ('GET', '/things', LIST),
    ('GET', '/things/{ident}', SHOW),
    ('DELETE', '/things/{ident}', DELETE),
), prefixes=('/v1', '/v1/{project}'), requirements={'project': '[0-9]+'})


def test_match_under_every_prefix():
    assert TABLE.match('GET', '/v1/things') == (LIST, {})
    assert TABLE.match('DELETE', '/v1/42/things/a.json') == (
        DELETE, {'project': '42', 'ident': 'a.json'})


def test_no_match():
    assert TABLE.match('POST', '/v1/things') is None
    assert TABLE.match('GET', '/v1/x/things') is None
    assert TABLE.match('GET', '/things') is None


def test_rows_by_their_written_path():
    assert TABLE.handler('GET', '/things/{ident}') is SHOW
    assert TABLE.handler('PATCH', '/things/{ident}') is None


def test_words_are_the_fixed_segments():
    assert TABLE.words() == {'things'}


def test_refusals():
    assert routing.not_found().status_int == 404
    refusal = routing.method_not_allowed(['POST', 'GET'])
    assert refusal.status_int == 405
    assert refusal.headers['Allow'] == 'GET, POST'
    assert 'Allow' not in routing.method_not_allowed().headers
