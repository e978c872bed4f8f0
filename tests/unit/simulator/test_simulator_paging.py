"""The simulator's lists page as Nova's do: servers newest first, limit
and marker, a next link on every full page (the last one too, as Nova
cannot tell it is the last), filters applied before the page is cut, a
marker that may name a deleted server, and pages no longer than the
scenario's max_limit."""

import urllib.parse

import pytest
import webob

from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator


@pytest.fixture
def sim():
    return simulator.Simulator(scenario.generate(hosts=3, servers=25,
                                                 seed=11))


def get(sim, path, **query):
    url = '/compute/v2.1' + path
    if query:
        url += '?' + urllib.parse.urlencode(query)
    resp = webob.Request.blank(url, headers={
        'X-Auth-Token': 'any', 'X-OpenStack-Nova-API-Version': '2.96',
    }).get_response(sim)
    return resp.status_int, resp.json


def ids(body):
    return [server['id'] for server in body['servers']]


def test_pages_follow_each_other_newest_first(sim):
    newest_first = list(reversed(sim.cloud.order))
    status, first = get(sim, '/servers/detail', all_tenants=1, limit=10)
    assert status == 200
    assert ids(first) == newest_first[:10]
    [link] = first['servers_links']
    assert link['rel'] == 'next'
    assert 'marker=%s' % newest_first[9] in link['href']
    _, second = get(sim, '/servers/detail', all_tenants=1, limit=10,
                    marker=newest_first[9])
    _, last = get(sim, '/servers/detail', all_tenants=1, limit=10,
                  marker=newest_first[19])
    assert ids(second) == newest_first[10:20]
    assert ids(last) == newest_first[20:]
    assert 'servers_links' not in last


def test_a_full_last_page_links_to_an_empty_one(sim):
    newest_first = list(reversed(sim.cloud.order))
    _, last = get(sim, '/servers', limit=5, marker=newest_first[19])
    assert ids(last) == newest_first[20:]
    [link] = last['servers_links']
    assert 'marker=%s' % newest_first[24] in link['href']
    _, empty = get(sim, '/servers', limit=5, marker=newest_first[24])
    assert empty == {'servers': []}


def test_pages_hold_at_most_the_scenarios_max_limit():
    spec = scenario.generate(hosts=5, servers=12, seed=3)
    spec['max_limit'] = 4
    sim = simulator.Simulator(spec)
    newest_first = list(reversed(sim.cloud.order))
    _, first = get(sim, '/servers', all_tenants=1, limit=100)
    assert ids(first) == newest_first[:4]
    assert 'limit=4' in first['servers_links'][0]['href']
    _, hypervisors = get(sim, '/os-hypervisors/detail')
    assert len(hypervisors['hypervisors']) == 4
    last = hypervisors['hypervisors'][-1]['id']
    _, rest = get(sim, '/os-hypervisors/detail', marker=last)
    assert len(rest['hypervisors']) == 1
    assert 'hypervisors_links' not in rest


def test_filters_apply_before_the_page_is_cut(sim):
    host = sim.cloud.servers[sim.cloud.order[0]].host
    on_host = [uuid for uuid in reversed(sim.cloud.order)
               if sim.cloud.servers[uuid].host == host]
    assert len(on_host) > 2
    _, first = get(sim, '/servers/detail', host=host, limit=2)
    _, rest = get(sim, '/servers/detail', host=host, limit=1000,
                  marker=on_host[1])
    assert ids(first) + ids(rest) == on_host
    assert 'servers_links' in first and 'servers_links' not in rest


def test_a_deleted_server_still_marks_the_place(sim):
    newest_first = list(reversed(sim.cloud.order))
    gone = newest_first[4]
    deleted = webob.Request.blank(
        '/compute/v2.1/servers/%s' % gone, method='DELETE',
        headers={'X-Auth-Token': 'any'}).get_response(sim)
    assert deleted.status_int == 204
    _, after = get(sim, '/servers', limit=3, marker=gone)
    assert ids(after) == newest_first[5:8]


def test_an_unknown_marker_or_a_bad_limit_is_a_400(sim):
    status, body = get(sim, '/servers', marker='no-such-server')
    assert status == 400
    assert 'marker [no-such-server] not found' in body['badRequest'][
        'message']
    assert get(sim, '/servers', limit=-1)[0] == 400
    assert get(sim, '/servers', limit='ten')[0] == 400
