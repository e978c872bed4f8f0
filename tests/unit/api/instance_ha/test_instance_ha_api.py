"""The instance-ha API beyond what Masakari's captured exchanges show:
its rules where Masakari's answers were not captured or where we differ
on purpose, and odd input."""

import json
import os

import jsonschema
import microversion_parse
import pytest

from tests.helpers.in_process import Client
from watcher_ha.api.instance_ha import views
from watcher_ha.cloud import compute_hosts
from watcher_ha.conf import CONF

COMPUTE_HOST_DOWN = {'event': 'STOPPED', 'host_status': 'NORMAL',
                     'cluster_status': 'OFFLINE'}


class MasakariClient(Client):

    def request(self, method, path, body=None, version='1.3', headers=None,
                raw=None):
        headers = dict(headers or {})
        if version:
            headers['OpenStack-API-Version'] = 'instance-ha %s' % version
        return super().request(method, '/instance-ha/v1' + path, body=body,
                               headers=headers, raw=raw)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, body=body, **kwargs)


@pytest.fixture
def ha_api(db, masakari_nova):
    from watcher_ha.api import app
    return MasakariClient(app.setup_app(CONF))


@pytest.fixture
def segment(ha_api):
    resp = ha_api.post('/segments', {'segment': {
        'name': 'seg', 'recovery_method': 'reserved_host',
        'service_type': 'COMPUTE'}})
    assert resp.status == 201, resp
    return resp.json['segment']


def add_host(ha_api, segment, name, **fields):
    resp = ha_api.post('/segments/%s/hosts' % segment['uuid'], {'host': dict(
        {'name': name, 'type': 'COMPUTE', 'control_attributes': 'SSH'},
        **fields)})
    assert resp.status == 201, resp
    return resp.json['host']


def notify(ha_api, hostname, generated_time='2026-11-24T10:00:00',
           payload=None, kind='COMPUTE_HOST'):
    return ha_api.post('/notifications', {'notification': {
        'type': kind, 'hostname': hostname,
        'generated_time': generated_time,
        'payload': payload or COMPUTE_HOST_DOWN}})


def test_a_host_on_maintenance_is_heard_and_left_alone(ha_api, segment):
    add_host(ha_api, segment, 'fake-compute-1', on_maintenance=True)
    resp = notify(ha_api, 'fake-compute-1')
    assert resp.status == 202, resp
    notification = resp.json['notification']
    assert notification['status'] == 'ignored'
    assert 'on maintenance' in notification['message']
    # Recorded, and no recovery holds the segment.
    listed = ha_api.get('/notifications?status=ignored').json
    assert [n['notification_uuid'] for n in listed['notifications']] == [
        notification['notification_uuid']]
    resp = ha_api.put('/segments/%s' % segment['uuid'],
                      {'segment': {'description': 'still editable'}})
    assert resp.status == 200, resp


def test_a_duplicate_is_caught_either_side_of_the_window(ha_api, segment):
    add_host(ha_api, segment, 'fake-compute-1')
    assert notify(ha_api, 'fake-compute-1',
                  '2026-11-24T10:00:00').status == 202
    # A retry that arrives after a later report: earlier generated_time.
    resp = notify(ha_api, 'fake-compute-1', '2026-11-24T09:58:00')
    assert resp.status == 409, resp
    assert 'is duplicate' in resp.json['conflictingRequest']['message']
    # Another payload, or outside the window, is a report of its own.
    assert notify(ha_api, 'fake-compute-1', '2026-11-24T10:00:30', payload={
        'event': 'STARTED', 'host_status': 'NORMAL',
        'cluster_status': 'ONLINE'}).status == 202
    assert notify(ha_api, 'fake-compute-1',
                  '2026-11-24T10:03:01').status == 202
    # A time zone is read as such: 12:00+02:00 is 10:00 UTC.
    assert notify(ha_api, 'fake-compute-1',
                  '2026-11-24T12:01:00+02:00').status == 409


def test_the_window_is_an_option(ha_api, segment):
    add_host(ha_api, segment, 'fake-compute-1')
    CONF.set_override('duplicate_notification_detection_interval', 0,
                      group='instance_ha')
    try:
        assert notify(ha_api, 'fake-compute-1').status == 202
        assert notify(ha_api, 'fake-compute-1',
                      '2026-11-24T10:00:01').status == 202
    finally:
        CONF.clear_override('duplicate_notification_detection_interval',
                            group='instance_ha')


def test_a_segment_under_recovery_keeps_its_hosts(ha_api, segment):
    first = add_host(ha_api, segment, 'fake-compute-1')
    other = add_host(ha_api, segment, 'fake-compute-2', reserved=True)
    assert notify(ha_api, 'fake-compute-1').status == 202
    for method, path, body in (
            ('PUT', '/segments/%s' % segment['uuid'],
             {'segment': {'recovery_method': 'auto'}}),
            ('DELETE', '/segments/%s' % segment['uuid'], None),
            ('PUT', '/segments/%s/hosts/%s' % (segment['uuid'],
                                               other['uuid']),
             {'host': {'reserved': False}}),
            ('DELETE', '/segments/%s/hosts/%s' % (segment['uuid'],
                                                  first['uuid']), None)):
        resp = ha_api.request(method, path, body=body)
        assert resp.status == 409, (method, path, resp)
    # Another segment is not held.
    resp = ha_api.post('/segments', {'segment': {
        'name': 'other', 'recovery_method': 'auto',
        'service_type': 'COMPUTE'}})
    assert ha_api.request('DELETE', '/segments/%s' % resp.json['segment'][
        'uuid']).status == 204


def test_notifications_outlive_their_host(ha_api, segment):
    host = add_host(ha_api, segment, 'fake-compute-1', on_maintenance=True)
    notification = notify(ha_api, 'fake-compute-1').json['notification']
    assert ha_api.request('DELETE', '/segments/%s' % segment['uuid']
                          ).status == 204
    shown = ha_api.get('/notifications/%s' % notification[
        'notification_uuid']).json['notification']
    assert shown['source_host_uuid'] == host['uuid']
    assert shown['failover_segment_uuid'] == segment['uuid']


def test_a_string_false_is_false_on_update(ha_api, segment):
    resp = ha_api.put('/segments/%s' % segment['uuid'],
                      {'segment': {'enabled': 'false'}})
    assert resp.json['segment']['enabled'] is False
    host = add_host(ha_api, segment, 'fake-compute-1', reserved='yes')
    assert host['reserved'] is True
    resp = ha_api.put('/segments/%s/hosts/%s' % (segment['uuid'],
                                                 host['uuid']),
                      {'host': {'reserved': 'off'}})
    assert resp.json['host']['reserved'] is False


@pytest.mark.parametrize('path', [
    '/segments/a%00b', '/segments?recovery_method=a%00b',
    '/notifications?status=%00'])
def test_nul_characters_are_refused(ha_api, path):
    resp = ha_api.get(path)
    assert resp.status == 400, resp
    assert 'NUL' in resp.json['badRequest']['message']


@pytest.mark.parametrize('body', [
    b'{"segment": {"name": NaN}}', b'[' * 100 + b']' * 100,
    b'{"segment": {"name": "a\\u0000"}}'])
def test_odd_json_is_a_clear_400(ha_api, body):
    resp = ha_api.request('POST', '/segments', raw=body)
    assert resp.status == 400, resp
    assert set(resp.json) == {'badRequest'}


def test_an_empty_body_says_what_is_missing(ha_api):
    resp = ha_api.request('POST', '/segments')
    assert resp.status == 400, resp
    assert 'object' in resp.json['badRequest']['message']


def test_a_list_is_capped_at_max_limit(ha_api):
    for index in range(3):
        ha_api.post('/segments', {'segment': {
            'name': 's%d' % index, 'recovery_method': 'auto',
            'service_type': 'COMPUTE'}})
    CONF.set_override('max_limit', 2, group='api')
    try:
        assert len(ha_api.get('/segments?limit=50').json['segments']) == 2
        assert len(ha_api.get('/segments').json['segments']) == 2
    finally:
        CONF.clear_override('max_limit', group='api')


def test_pages_follow_each_other_by_integer_marker(ha_api):
    # openstacksdk pages with the last item's integer id as marker.
    for index in range(5):
        ha_api.post('/segments', {'segment': {
            'name': 's%d' % index, 'recovery_method': 'auto',
            'service_type': 'COMPUTE'}})
    seen, marker = [], None
    while True:
        query = '?limit=2&sort_key=name&sort_dir=asc'
        if marker is not None:
            query += '&marker=%d' % marker
        page = ha_api.get('/segments' + query).json['segments']
        if not page:
            break
        seen += [s['name'] for s in page]
        marker = page[-1]['id']
    assert seen == ['s0', 's1', 's2', 's3', 's4']


@pytest.mark.parametrize('key', ['payload', 'metadata', 'registry'])
def test_only_scalar_columns_sort(ha_api, key):
    resp = ha_api.get('/notifications?sort_key=%s' % key)
    assert resp.status == 400, resp
    assert 'Sort key supplied is invalid' in json.dumps(resp.json)


def add_host_with_nova(ha_api, segment, option, value):
    """Try to add a host with [nova] ``option`` set to ``value``."""
    working = CONF.nova[option]
    CONF.set_override(option, value, group='nova')
    compute_hosts.reset()
    try:
        return ha_api.post('/segments/%s/hosts' % segment['uuid'], {
            'host': {'name': 'fake-compute-1', 'type': 'COMPUTE',
                     'control_attributes': 'SSH'}})
    finally:
        CONF.set_override(option, working, group='nova')
        compute_hosts.reset()


def test_without_nova_a_host_cannot_be_checked_and_is_not_added(ha_api,
                                                                 segment):
    resp = add_host_with_nova(ha_api, segment, 'endpoint_override',
                              'http://127.0.0.1:9/compute')
    assert resp.status == 503, resp
    message = resp.json['serviceUnavailable']['message']
    assert 'fake-compute-1' in message and 'retry' in message
    assert ha_api.get('/segments/%s/hosts' % segment['uuid']).json == {
        'hosts': []}


def test_an_unconfigured_nova_is_named(ha_api, segment):
    resp = add_host_with_nova(ha_api, segment, 'auth_type', None)
    assert resp.status == 503, resp
    assert '[nova] auth_type' in resp.json['serviceUnavailable']['message']


def test_a_file_takes_the_api_out_of_rotation(ha_api):
    disabled = os.path.join(CONF.state_path, 'instance-ha-api-disabled')
    def health():
        return Client.request(ha_api, 'GET', '/instance-ha/healthcheck')

    assert health().status == 200
    open(disabled, 'w').close()
    try:
        resp = health()
    finally:
        os.remove(disabled)
    assert resp.status == 503, resp
    assert resp.json['reasons'] == ['DISABLED BY FILE']


@pytest.mark.parametrize('version', ['1.0', '1.3'])
def test_answers_are_the_declared_fields(ha_api, segment, version):
    host = add_host(ha_api, segment, 'fake-compute-1')
    notification = notify(ha_api, 'fake-compute-1').json['notification']
    asked = views.Asked(microversion_parse.parse_version_string(version))
    hosts = '/segments/%s/hosts' % segment['uuid']

    def get(path, key):
        resp = ha_api.get(path, version=version)
        assert resp.status == 200, resp
        return resp.json[key]
    answers = [
        (views.SEGMENT, False, get('/segments', 'segments')),
        (views.SEGMENT, True,
         [get('/segments/%s' % segment['uuid'], 'segment')]),
        (views.HOST, False, get(hosts, 'hosts')),
        (views.HOST, True,
         [get('%s/%s' % (hosts, host['uuid']), 'host')]),
        (views.NOTIFICATION, False, get('/notifications', 'notifications')),
        (views.NOTIFICATION, True,
         [get('/notifications/' + notification['notification_uuid'],
              'notification')]),
    ]
    for fields, alone, objects in answers:
        assert objects, fields.resource
        for shown in objects:
            jsonschema.validate(shown, fields.schema(asked, alone))
