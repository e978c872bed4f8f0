"""Hostile requests never make the API answer 5xx.

Property-based (hypothesis) fuzzing of every route of the in-process WSGI
app, middleware included: bodies that are not JSON or are the wrong JSON,
wrong types and unknown fields, huge and deeply nested values, bad
identifiers, paging and microversion headers, malformed JSON patches and
forbidden state transitions, with random methods.

Every answer must be below 500, except 503 from the routes that ask a
decision engine over RPC (none runs here), and every 4xx must carry a
Watcher error body: ``{"error_message": "<JSON string>"}`` whose inner
document has a non-empty ``faultstring`` or a ``code`` and ``title``.

The tests count their requests; the last test checks that one run sent at
least ``MIN_REQUESTS``.
"""

import collections
import json
import os
import string
import urllib.parse

import oslo_messaging
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from watcher_ha.db import models
from watcher_ha.service import rpc

MIN_REQUESTS = 1000
# WATCHER_HA_FUZZ_SCALE=10 runs ten times as many examples, to hunt.
SCALE = float(os.environ.get('WATCHER_HA_FUZZ_SCALE', '1'))
# Requests sent, per test function; answers, per test and status.
REQUESTS = collections.Counter()
STATUSES = collections.Counter()
FUZZ_TESTS = ('test_fuzz_reads', 'test_fuzz_create', 'test_fuzz_patch',
              'test_fuzz_delete_and_actions', 'test_fuzz_any_route',
              'test_fuzz_rpc_routes')

FUZZ = dict(deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture,
                                   HealthCheck.too_slow,
                                   HealthCheck.data_too_large])

# Parents before children: the order rows are inserted back in.
SEEDED_TABLES = ('services', 'audit_templates', 'audits', 'action_plans',
                 'actions', 'efficacy_indicators')

COLLECTIONS = ('goals', 'strategies', 'audit_templates', 'audits',
               'action_plans', 'actions', 'scoring_engines', 'services')
METHODS = ('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS',
           'TRACE', 'FOO', 'get')
VERSIONS = ('1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7')
AUDIT_STATES = ('PENDING', 'ONGOING', 'SUCCEEDED', 'FAILED', 'CANCELLED',
                'SUSPENDED', 'DELETED')
PLAN_STATES = ('RECOMMENDED', 'PENDING', 'ONGOING', 'SUCCEEDED', 'FAILED',
               'CANCELLING', 'CANCELLED', 'SUPERSEDED', 'DELETED')
ACTION_STATES = ('PENDING', 'ONGOING', 'SUCCEEDED', 'FAILED', 'CANCELLING',
                 'CANCELLED', 'SKIPPED', 'DELETED')
ALL_STATES = tuple(sorted(set(AUDIT_STATES + PLAN_STATES + ACTION_STATES)))

# Strings that have broken parsers before.
NASTY = (
    '', ' ', '\x00', 'a\x00b', '\n', '\t', 'null', 'None', 'true', '[]',
    '{}', '-1', '0', '-0', '1.5', '1e400', '-1e400', 'NaN', 'Infinity',
    '0x10', '9' * 19, '9' * 40, '-' + '9' * 40, '%', '%00', '%ff', '../..',
    "' OR 1=1 --", '"', '\\', '\u202e', '\ufeff', '\U0001f600' * 50,
    'x' * 300, 'é' * 100, '00000000-0000-0000-0000-000000000000',
    '00000000000000000000000000000000',
    '{00000000-0000-0000-0000-000000000000}',
    'urn:uuid:00000000-0000-0000-0000-000000000000',
    'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ', 'dummy', 'DUMMY', 'dummy ',
    'detail', 'start', 'state', 'asc', 'desc', 'id', 'uuid', 'name',
    'created_at', 'deleted_at', '*/5 * * * *', '2030-01-01T00:00:00Z',
    '0001-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00',
)

hostile_text = st.one_of(
    st.sampled_from(NASTY),
    st.text(max_size=20),
    st.text(alphabet=string.printable, min_size=200, max_size=3000),
    st.integers(min_value=-10 ** 40, max_value=10 ** 40).map(str),
)

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-10 ** 40, max_value=10 ** 40),
    st.floats(allow_nan=True, allow_infinity=True),
    hostile_text,
)
hostile_json = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(hostile_text, children, max_size=4)),
    max_leaves=12)


def nested(depth, opener='[', closer=']'):
    return (opener * depth + closer * depth).encode()


DEEP_BODIES = st.builds(
    lambda depth, kind: {
        'list': nested(depth),
        'dict': ('{"a":' * depth + '1' + '}' * depth).encode(),
        'field': ('{"name": "x", "goal": "dummy", "scope": '
                  + '[' * depth + ']' * depth + '}').encode(),
        'param': ('{"audit_type": "ONESHOT", "goal": "dummy", '
                  '"parameters": {"para2": ' + '[' * depth
                  + ']' * depth + '}}').encode(),
        'patch': ('[{"op": "replace", "path": "/name", "value": '
                  + '[' * depth + ']' * depth + '}]').encode(),
    }[kind],
    st.sampled_from((1, 50, 400, 900, 990, 1200, 10_000, 100_000)),
    st.sampled_from(('list', 'dict', 'field', 'param', 'patch')))

RAW_BODIES = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    st.sampled_from((
        b'', b' ', b'{', b'[', b'{"a": }', b"{'a': 1}", b'nul', b'NaN',
        b'\xff\xfe{}', b'\xef\xbb\xbf{}', b'{"a": 1}{"b": 2}', b'[1,]',
        b'{"a": 1,}', b'\x00', b'"\\ud800"', b'{"\\u0000": 1}',
        b'1' * 5000, b'-' + b'9' * 400, b'1e99999', b'[' * 5 + b']' * 4)),
    DEEP_BODIES,
)


def _json_bytes(value):
    return json.dumps(value).encode()


# Fields each writable resource knows, plus read-only and unknown ones.
TEMPLATE_FIELDS = ('name', 'description', 'goal', 'strategy', 'scope',
                   'default_parameters')
AUDIT_FIELDS = ('audit_type', 'name', 'audit_template_uuid', 'goal',
                'strategy', 'parameters', 'interval', 'auto_trigger',
                'start_time', 'end_time', 'force')
OTHER_FIELDS = ('uuid', 'id', 'state', 'created_at', 'links', 'hostname',
                'next_run_time', 'goal_uuid', 'status_message', 'type',
                'unknown', '')

INTERVALS = ('3600', '0', '-1', '1.5', ' 60 ', '*/5 * * * *',
             '* * * * * *', '* * * * * * *', '61 * * * *', '*/0 * * * *',
             '@daily', '@reboot', 'L * * * *', '0 0 31 2 *', '1-0 * * * *',
             '9' * 70, 0, -5, 10 ** 30, 10 ** 70, True, 1.5, [], {})
TIMES = ('2030-01-01T00:00:00Z', '2030-01-01T00:00:00', '2031-01-01',
         '0001-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00',
         '2030-02-30T00:00:00Z', '2030-01-01T25:00:00Z',
         '2030-01-01T00:00:00+25:00', '2030-01-01T00:00:00.999999999Z',
         '10000-01-01T00:00:00Z', 'now', '', 'T', '2030', 20300101, None)
REFERENCES = ('dummy', 'dummy_with_scorer', 'dummy_with_resize',
              'unclassified', 'server_consolidation', '', ' ',
              '00000000-0000-0000-0000-000000000000', '1', '0', '-1',
              '9' * 40, 'x' * 256)
PARAMETERS = ({}, {'para1': 5}, {'para1': '5'}, {'para1': 0.5},
              {'para1': 1e308}, {'para1': float('nan')},
              {'para1': float('inf')}, {'para1': 10 ** 40},
              {'para2': None}, {'para2': 'x' * 5000}, {'param1': 1},
              {'unknown': 1}, {'': 1}, {'para1': [5]}, [], 'x', 1)

field_values = {
    'audit_type': st.sampled_from(('ONESHOT', 'CONTINUOUS', 'EVENT',
                                   'oneshot', 'SOMETIMES', '', None, 1)),
    'interval': st.sampled_from(INTERVALS),
    'start_time': st.sampled_from(TIMES),
    'end_time': st.sampled_from(TIMES),
    'goal': st.sampled_from(REFERENCES),
    'strategy': st.sampled_from(REFERENCES + (None,)),
    'parameters': st.sampled_from(PARAMETERS),
    'default_parameters': st.sampled_from(PARAMETERS),
    'scope': st.sampled_from(([], [{}], [{'compute': []}], {}, [1], 'x',
                              [[]], None)),
}


def value_for(field):
    """A hostile value for ``field``: plausible-but-wrong or random."""
    if field in field_values:
        return st.one_of(field_values[field], hostile_json)
    return hostile_json


def mutated(base, fields):
    """Bodies close to the valid ``base``: fields changed, dropped or
    added."""
    def build(changes, dropped):
        body = dict(base)
        for name in dropped:
            body.pop(name, None)
        body.update(changes)
        return body
    field = st.sampled_from(fields + OTHER_FIELDS)
    changes = st.lists(field, max_size=3).flatmap(
        lambda names: st.fixed_dictionaries(
            {name: value_for(name) for name in names}))
    return st.builds(build, changes, st.lists(st.sampled_from(fields),
                                              max_size=2))


TEMPLATE_BASE = {'name': 'fuzzed', 'goal': 'dummy', 'strategy': 'dummy'}
AUDIT_BASE = {'audit_type': 'ONESHOT', 'goal': 'dummy',
              'strategy': 'dummy'}


def bodies(structured):
    """Any body: raw bytes, any JSON, or JSON close to ``structured``."""
    return st.one_of(
        RAW_BODIES,
        hostile_json.map(_json_bytes),
        structured.map(_json_bytes),
    )


# JSON patches -------------------------------------------------------------

PATCH_PATHS = (
    '/name', '/description', '/goal', '/strategy', '/scope', '/state',
    '/default_parameters', '/parameters', '/interval', '/auto_trigger',
    '/force', '/start_time', '/end_time', '/status_message', '/uuid', '/id',
    '/links', '/created_at', '/updated_at', '/deleted_at', '/goal_uuid',
    '/audit_type', '/audit_template_uuid', '/hostname', '/next_run_time',
    '/type', '/state/x', '/state/0', '/parameters/para1',
    '/parameters/para2', '/parameters/-', '/parameters/a/b', '/scope/0',
    '/scope/-', '/scope/99', '/scope/0/compute', '/default_parameters/para1',
    '/default_parameters/x/y', '/name/0', '/', '', 'state', '//', '/~0',
    '/~1', '/ä', '/a b', '/' + 'x' * 1000, None, 5, [], {})
PATCH_OPS = ('add', 'remove', 'replace', 'move', 'copy', 'test', '',
             'REPLACE', None, 5, [])


def patch_value(path):
    if path in ('/state', '/state/x'):
        return st.one_of(st.sampled_from(ALL_STATES + ('pending', '', None)),
                         hostile_json)
    name = path.strip('/').split('/')[0] if isinstance(path, str) else ''
    return value_for(name)


def patch_op():
    def build(op, path, value, has_value, source, has_from, extra):
        document = {'op': op, 'path': path}
        if has_value:
            document['value'] = value
        if has_from:
            document['from'] = source
        document.update(extra)
        return document
    path = st.sampled_from(PATCH_PATHS)
    return path.flatmap(lambda p: st.builds(
        build, st.sampled_from(PATCH_OPS), st.just(p), patch_value(p),
        st.booleans(), st.sampled_from(PATCH_PATHS), st.booleans(),
        st.dictionaries(st.sampled_from(('extra', 'op ', 'Path')),
                        hostile_json, max_size=1)))


def simple_patch(path, values):
    return st.builds(lambda v: [{'op': 'replace', 'path': path, 'value': v}],
                     st.sampled_from(values))


PATCHES = st.one_of(
    st.lists(patch_op(), max_size=4).map(_json_bytes),
    simple_patch('/state', ALL_STATES).map(_json_bytes),
    st.lists(st.one_of(hostile_json, st.dictionaries(
        st.sampled_from(('op', 'path', 'value')), hostile_json)),
        max_size=3).map(_json_bytes),
    RAW_BODIES,
    hostile_json.map(_json_bytes),
)

# Query strings, headers ---------------------------------------------------

PARAM_NAMES = ('limit', 'marker', 'sort_key', 'sort_dir', 'goal',
               'strategy', 'audit_uuid', 'action_plan_uuid',
               'data_model_type', 'detail', 'unknown', '')
LIMITS = ('1', '0', '-1', '-100', '2', '1000', '9' * 19, '9' * 40,
          '-' + '9' * 40, '1.5', 'ten', '', ' 1', '1e3', '0x10', '\u0661',
          '²', '٣')
SORT_KEYS = ('id', 'uuid', 'name', 'created_at', 'state', 'goal_uuid',
             'goal_name', 'strategy_name', 'audit_uuid', 'links',
             'parameters', 'scope', 'version', 'live_name', 'host',
             'last_seen_up', 'display_name', 'efficacy_specification',
             'unknown', '', 'id;drop table goals', 'ID', '__class__')

SORT_DIRS = ('asc', 'desc', 'ASC', 'up', '', 'asc,desc', 'desc ')
param_value = st.one_of(st.sampled_from(LIMITS + SORT_KEYS), hostile_text)
# Values that make sense for a parameter, then hostile ones; real markers
# come from ``world`` when given.
PARAM_VALUES = {
    'limit': st.sampled_from(LIMITS),
    'sort_key': st.sampled_from(SORT_KEYS),
    'sort_dir': st.sampled_from(SORT_DIRS),
    'goal': st.sampled_from(REFERENCES),
    'strategy': st.sampled_from(REFERENCES),
    'data_model_type': st.sampled_from(('compute', 'storage', 'baremetal',
                                       '', 'COMPUTE')),
}


def query_string(names=PARAM_NAMES, world=None):
    def value(name):
        if name in ('marker', 'audit_uuid', 'action_plan_uuid') and world:
            real = [i for ids in world.ids.values() for i in ids]
            return st.one_of(st.sampled_from(real), param_value)
        if name in PARAM_VALUES:
            return st.one_of(PARAM_VALUES[name], param_value)
        return param_value
    name = st.one_of(st.sampled_from(names), st.sampled_from(names),
                     st.sampled_from(names), hostile_text)
    pair = name.flatmap(lambda n: st.tuples(st.just(n), value(n)))
    encoded = st.lists(pair, max_size=5).map(
        lambda pairs: urllib.parse.urlencode(pairs,
                                             quote_via=urllib.parse.quote))
    raw = st.sampled_from(('limit=%ff', 'marker=%c0%af', 'limit',
                           'limit=1&limit=2', 'sort_key=id&sort_key=uuid',
                           '&&&', '=', '=1', '%', 'a=%', 'limit=1;x=2',
                           'sort_dir=ASC', 'sort_dir=desc&sort_key=name'))
    return st.one_of(encoded, raw)


VERSION_TEXTS = VERSIONS + (
    'latest', 'LATEST', '1.99', '2.0', '0.9', '1', '10', '1.7.1', '1.07',
    '1.0000000000000000000000000009', '', ' ', 'garbage', '-1.-1', '1.-1',
    '1.x', '١.٥')
version_header = st.one_of(
    st.just({}),
    st.sampled_from(VERSIONS).map(
        lambda v: {'OpenStack-API-Version': 'infra-optim %s' % v}),
    st.sampled_from(VERSION_TEXTS).map(
        lambda v: {'OpenStack-API-Version': 'infra-optim %s' % v}),
    st.sampled_from((
        'infra-optim', 'compute 2.1', 'infra-optim 1.5, infra-optim 1.6',
        'infra-optim 1.5,compute 2.1', ',', 'infra-optim  latest',
        'INFRA-OPTIM 1.5', '', 'infra-optim 1.7, watcher-ha 1.1',
        'watcher-ha latest', 'watcher-ha 1.9', 'watcher-ha x',
        'infra-optim 1.8, watcher-ha 1.1')).map(
            lambda v: {'OpenStack-API-Version': v}),
    st.text(alphabet=string.printable.strip('\n\r\x0b\x0c'),
            max_size=40).map(lambda v: {'OpenStack-API-Version': v}),
)
CONTENT_TYPES = ('application/json', 'application/json; charset=utf-8',
                 'application/json; charset=latin-1',
                 'application/json; charset=bogus', 'text/plain', '',
                 'application/x-www-form-urlencoded',
                 'multipart/form-data', 'multipart/form-data; boundary=x',
                 'application/xml', '*/*', 'garbage')
content_type = st.one_of(
    st.just({}),
    st.sampled_from(CONTENT_TYPES).map(lambda v: {'Content-Type': v}))
accept = st.one_of(st.just({}), st.sampled_from(
    ('text/html', 'application/xml', '*/*', 'garbage', '')).map(
        lambda v: {'Accept': v}))
header_text = st.one_of(
    st.sampled_from(('', ' ', 'garbage', 'http', 'https', '[::1', 'a:b:c',
                     'host:99999999', 'for=;proto=;host=', ';;;=,,,',
                     '../..', 'True', 'req-garbage', '\x7f', 'é')),
    st.text(alphabet=string.printable.strip('\n\r\x0b\x0c'),
            max_size=60))
# Proxy headers (parsed: see the proxy_headers fixture), CORS, identity.
other_header = st.one_of(st.just({}), st.builds(
    lambda name, value: {name: value},
    st.sampled_from(('Host', 'X-Forwarded-Proto', 'X-Forwarded-Host',
                     'X-Forwarded-For', 'Forwarded', 'X-Forwarded-Prefix',
                     'X-OpenStack-Request-ID', 'Origin', 'X-Show-Deleted',
                     'X-Roles', 'X-Auth-Token', 'Content-Encoding')),
    header_text))


def headers():
    return st.builds(lambda *parts: {k: v for p in parts
                                     for k, v in p.items()},
                     version_header, content_type, accept, other_header)


# The seeded world ---------------------------------------------------------

class World:
    """Real rows for PATCH and DELETE to hit, restorable between examples."""

    def __init__(self, api, engine):
        self.engine = engine
        self.ids = {}
        self._seed(api)
        with engine.connect() as conn:
            self.snapshot = {
                name: [dict(row) for row in conn.execute(
                    sa.select(*self._columns(name))).mappings()]
                for name in SEEDED_TABLES}

    @staticmethod
    def _table(name):
        return models.Base.metadata.tables[name]

    def _columns(self, name):
        # Computed columns are derived by the database, never inserted.
        return [c for c in self._table(name).columns if c.computed is None]

    def _post(self, api, path, body, version='1.7'):
        resp = api.post(path, body, version=version)
        assert resp.status == 201, resp
        return resp.json

    def _seed(self, api):
        goal = api.get('/v1/goals/dummy').json
        strategy = api.get('/v1/strategies/dummy').json
        self.ids['goals'] = [goal['uuid'], goal['name']]
        self.ids['strategies'] = [strategy['uuid'], strategy['name']]
        self.ids['scoring_engines'] = [
            row['uuid'] for row in api.get('/v1/scoring_engines').json[
                'scoring_engines']] or ['dummy_scorer']
        templates = [
            self._post(api, '/v1/audit_templates', {
                'name': 'fuzz-template', 'goal': 'dummy',
                'strategy': 'dummy',
                'default_parameters': {'para1': 2.0}}),
            self._post(api, '/v1/audit_templates', {
                'name': 'fuzz-template-bare', 'goal': 'dummy'}),
        ]
        self.ids['audit_templates'] = [t['uuid'] for t in templates] + [
            'fuzz-template']
        audits = [
            self._post(api, '/v1/audits', {
                'audit_type': 'ONESHOT', 'goal': 'dummy',
                'strategy': 'dummy', 'name': 'fuzz-oneshot'}),
            self._post(api, '/v1/audits', {
                'audit_type': 'CONTINUOUS', 'goal': 'dummy',
                'strategy': 'dummy', 'interval': '3600',
                'name': 'fuzz-continuous',
                'start_time': '2030-01-01T00:00:00Z'}),
            self._post(api, '/v1/audits', {
                'audit_type': 'EVENT', 'goal': 'dummy',
                'strategy': 'dummy', 'name': 'fuzz-event'}),
            self._post(api, '/v1/audits', {
                'audit_type': 'CONTINUOUS',
                'audit_template_uuid': templates[0]['uuid'],
                'interval': '*/5 * * * *', 'name': 'fuzz-suspended'}),
            self._post(api, '/v1/audits', {
                'audit_type': 'ONESHOT', 'goal': 'dummy',
                'name': 'fuzz-succeeded'}),
        ]
        audit_table = self._table('audits')
        plan_table = self._table('action_plans')
        action_table = self._table('actions')
        now = models.utcnow()
        with self.engine.begin() as conn:
            for audit, state in ((audits[1], 'ONGOING'),
                                 (audits[3], 'SUSPENDED'),
                                 (audits[4], 'SUCCEEDED')):
                conn.execute(sa.update(audit_table).where(
                    audit_table.c.uuid == audit['uuid']).values(
                        state=state))
            audit_id = conn.execute(sa.select(audit_table.c.id).where(
                audit_table.c.uuid == audits[0]['uuid'])).scalar()
            plans = []
            for index, state in enumerate(PLAN_STATES[:-1]):
                uuid = '11111111-1111-4111-8111-%012d' % index
                plan_id = conn.execute(sa.insert(plan_table).values(
                    uuid=uuid, audit_id=audit_id, state=state,
                    strategy_id=None, global_efficacy=[], created_at=now,
                    version=1)).inserted_primary_key[0]
                plans.append((uuid, plan_id, state))
                for a_index, a_state in enumerate(ACTION_STATES[:-1]):
                    conn.execute(sa.insert(action_table).values(
                        uuid='22222222-2222-4222-8222-%06d%06d'
                             % (index, a_index),
                        action_plan_id=plan_id, action_type='nop',
                        input_parameters={'message': 'hi'},
                        state=a_state, parents=[], created_at=now,
                        version=1))
            conn.execute(sa.insert(self._table('efficacy_indicators')).values(
                uuid='33333333-3333-4333-8333-000000000000',
                action_plan_id=plans[0][1], name='released_nodes_ratio',
                value=1.0, created_at=now))
            conn.execute(sa.insert(self._table('services')).values(
                name='watcher-ha-decision-engine', host='fuzz-host',
                created_at=now))
        self.ids['audits'] = [a['uuid'] for a in audits] + [
            'fuzz-oneshot', 'fuzz-event']
        self.ids['action_plans'] = [uuid for uuid, _, _ in plans]
        self.ids['actions'] = [
            '22222222-2222-4222-8222-%06d%06d' % (p, a)
            for p in (0, 1, 2) for a in range(len(ACTION_STATES) - 1)]
        self.ids['services'] = ['1', 'watcher-ha-decision-engine']
        self.ids['webhooks'] = [audits[2]['uuid'], audits[0]['uuid'],
                                'fuzz-event']

    def reset(self):
        """Put every seeded row back as it was after seeding."""
        with self.engine.begin() as conn:
            for name in reversed(SEEDED_TABLES):
                conn.execute(sa.delete(self._table(name)))
            for name in SEEDED_TABLES:
                if self.snapshot[name]:
                    conn.execute(sa.insert(self._table(name)),
                                 self.snapshot[name])


@pytest.fixture
def world(api, db, proxy_headers):
    return World(api, db)


@pytest.fixture
def proxy_headers(api, conf):
    """X-Forwarded-* and Forwarded are read, as behind a TLS proxy (the
    app registers the option)."""
    conf.set_override('enable_proxy_headers_parsing', True,
                      group='oslo_middleware')
    yield
    conf.clear_override('enable_proxy_headers_parsing',
                        group='oslo_middleware')


@pytest.fixture(autouse=True)
def fast_rpc(monkeypatch):
    """RPC calls to the (absent) decision engines time out in 20 ms, not
    rpc_response_timeout, so that RPC routes can be fuzzed quickly."""
    def get_client(topic, version='1.0'):
        target = oslo_messaging.Target(topic=topic, version=version)
        return oslo_messaging.get_rpc_client(rpc.get_transport(), target,
                                             timeout=0.02)
    monkeypatch.setattr(rpc, 'get_client', get_client)


def ident(world, collection):
    """A path segment naming a real row of ``collection``, or a bad one."""
    real = st.sampled_from(world.ids.get(collection) or ['none'])
    return st.one_of(real, real, hostile_text).map(
        lambda text: urllib.parse.quote(text, safe=''))


# Checking answers ---------------------------------------------------------

def send(api, test, method, path, raw=None, headers=None, rpc=False):
    """Send one request and check its answer; return the response."""
    headers = dict(headers or {})
    REQUESTS[test] += 1
    resp = api.request(method, path, raw=raw, headers=headers)
    STATUSES[test, resp.status] += 1
    what = '%s %s headers=%r body=%r -> %r' % (
        method, path[:500], headers, (raw or b'')[:300], resp)
    if rpc and resp.status == 503:
        inner = json.loads(resp.json['error_message'])
        assert 'decision engine' in inner['faultstring'], what
        return resp
    assert resp.status < 500, what
    if resp.status >= 400 and method != 'HEAD':
        check_error_body(resp, what)
    elif resp.body and method != 'HEAD':
        strict_json(resp.body, what)
    return resp


def _no_constant(name):
    raise ValueError('%s is not JSON' % name)


def strict_json(body, what):
    """``body`` parsed as RFC 8259 JSON: no NaN or Infinity."""
    try:
        return json.loads(body, parse_constant=_no_constant)
    except ValueError as err:
        raise AssertionError('answer is not JSON (%s): %s' % (err, what))


def check_error_body(resp, what):
    assert resp.headers.get('Content-Type', '').startswith(
        'application/json'), what
    try:
        outer = strict_json(resp.body, what)
        assert set(outer) == {'error_message'}, what
        inner = json.loads(outer['error_message'])
    except (ValueError, TypeError) as err:
        raise AssertionError('not a Watcher error body (%s): %s'
                             % (err, what))
    assert isinstance(inner, dict), what
    if 'faultstring' in inner:
        assert isinstance(inner['faultstring'], str), what
        assert inner['faultstring'].strip(), what
    else:
        assert inner.get('code') == resp.status, what
        assert inner.get('title'), what


def with_query(path, query):
    return path + ('?' + query if query else '')


# The fuzz tests -----------------------------------------------------------

def read_paths(world):
    collection = st.sampled_from(COLLECTIONS)
    return collection.flatmap(lambda name: st.one_of(
        st.just('/v1/%s' % name),
        st.just('/v1/%s/detail' % name),
        st.just('/%s' % name),
        ident(world, name).map(lambda i: '/v1/%s/%s' % (name, i)),
        ident(world, name).map(lambda i: '/v1/%s/%s/detail' % (name, i)),
        ident(world, name).map(lambda i: '/%s/%s' % (name, i)),
    ))


@settings(max_examples=int(350 * SCALE), **FUZZ)
@given(data=st.data())
def test_fuzz_reads(api, world, data):
    """GET lists, details and single resources with hostile paging,
    filters, identifiers and microversions."""
    path = data.draw(read_paths(world), 'path')
    query = data.draw(query_string(world=world), 'query')
    send(api, 'test_fuzz_reads', 'GET', with_query(path, query),
         headers=data.draw(headers(), 'headers'))


@settings(max_examples=int(250 * SCALE), **FUZZ)
@given(data=st.data())
def test_fuzz_create(api, world, data):
    """POST audit templates and audits whose bodies are anything but
    right."""
    world.reset()
    path, structured = data.draw(st.sampled_from((
        ('/v1/audit_templates', mutated(TEMPLATE_BASE, TEMPLATE_FIELDS)),
        ('/v1/audits', mutated(AUDIT_BASE, AUDIT_FIELDS)),
        ('/v1/audits', mutated(dict(AUDIT_BASE, audit_type='CONTINUOUS',
                                    interval='60'), AUDIT_FIELDS)),
        ('/v1/audits', mutated({'audit_type': 'ONESHOT',
                                'audit_template_uuid': 'fuzz-template'},
                               AUDIT_FIELDS)),
    )), 'target')
    body = data.draw(bodies(structured), 'body')
    send(api, 'test_fuzz_create', 'POST', path, raw=body,
         headers=data.draw(headers(), 'headers'))


@settings(max_examples=int(300 * SCALE), **FUZZ)
@given(data=st.data())
def test_fuzz_patch(api, world, data):
    """JSON patches, malformed or aimed at forbidden paths and states, on
    real and unknown resources."""
    world.reset()
    collection = data.draw(st.sampled_from(
        ('audit_templates', 'audits', 'action_plans', 'actions')),
        'collection')
    target = data.draw(ident(world, collection), 'ident')
    body = data.draw(PATCHES, 'patch')
    extra = data.draw(headers(), 'headers')
    if collection == 'actions' and 'OpenStack-API-Version' not in extra:
        extra['OpenStack-API-Version'] = 'infra-optim %s' % data.draw(
            st.sampled_from(('1.5', '1.7')))
    send(api, 'test_fuzz_patch', 'PATCH',
         '/v1/%s/%s' % (collection, target), raw=body, headers=extra)


@settings(max_examples=int(150 * SCALE), **FUZZ)
@given(data=st.data())
def test_fuzz_delete_and_actions(api, world, data):
    """DELETE, start and webhooks on rows in every state, and on bad
    identifiers."""
    world.reset()
    kind = data.draw(st.sampled_from(
        ('delete', 'start', 'webhook')), 'kind')
    if kind == 'delete':
        collection = data.draw(st.sampled_from(
            ('audit_templates', 'audits', 'action_plans')))
        method, path = 'DELETE', '/v1/%s/%s' % (
            collection, data.draw(ident(world, collection)))
    elif kind == 'start':
        method, path = 'POST', '/v1/action_plans/%s/start' % data.draw(
            ident(world, 'action_plans'))
    else:
        method, path = 'POST', '/v1/webhooks/%s' % data.draw(
            ident(world, 'webhooks'))
    body = data.draw(st.one_of(st.none(), bodies(st.just({}))), 'body')
    send(api, 'test_fuzz_delete_and_actions', method, path, raw=body,
         headers=data.draw(headers(), 'headers'))


def any_path(world):
    name = st.sampled_from(COLLECTIONS + ('webhooks', 'data_model'))
    segment = st.one_of(st.sampled_from(('detail', 'start', 'state', '',
                                         '.', '..', 'v1', 'v2'))
                        .map(urllib.parse.quote), hostile_text.map(
        lambda t: urllib.parse.quote(t, safe='')))
    return st.one_of(
        name.flatmap(lambda n: st.one_of(
            st.just('/v1/%s' % n),
            ident(world, n).map(lambda i: '/v1/%s/%s' % (n, i)),
            st.tuples(ident(world, n), segment).map(
                lambda p: '/v1/%s/%s/%s' % (n, p[0], p[1])),
            st.lists(segment, min_size=1, max_size=4).map(
                lambda s: '/v1/%s/%s' % (n, '/'.join(s))))),
        st.sampled_from(('/', '/v1', '/v1/', '/v2', '//', '/v1//audits',
                         '/v1/audits/', '/audits/detail', '/v1/detail',
                         '/v1/audits/detail/detail', '/%00',
                         '/v1/audits;x=1', '/v1/../v1/audits')),
        st.lists(segment, max_size=3).map(lambda s: '/' + '/'.join(s)),
    )


@settings(max_examples=int(300 * SCALE), **FUZZ)
@given(data=st.data())
def test_fuzz_any_route(api, world, data):
    """Any method on any path with any body, query and headers."""
    world.reset()
    method = data.draw(st.sampled_from(
        METHODS + ('GET', 'POST', 'PATCH', 'DELETE') * 3), 'method')
    path = data.draw(any_path(world), 'path')
    query = data.draw(query_string(world=world), 'query')
    body = data.draw(st.one_of(
        st.none(), bodies(mutated(AUDIT_BASE, AUDIT_FIELDS)), PATCHES),
        'body')
    rpc_route = '/data_model' in path or path.endswith('/state')
    send(api, 'test_fuzz_any_route', method, with_query(path, query),
         raw=body, headers=data.draw(headers(), 'headers'), rpc=rpc_route)


@settings(max_examples=int(80 * SCALE), **FUZZ)
@given(data=st.data())
def test_fuzz_rpc_routes(api, world, data):
    """The routes that ask a decision engine: 503 once the input is valid
    (no engine runs here), 4xx before."""
    if data.draw(st.booleans(), 'data_model'):
        path = with_query('/v1/data_model', data.draw(query_string(
            ('data_model_type', 'audit_uuid', 'audit', 'limit')), 'query'))
    else:
        path = '/v1/strategies/%s/state' % data.draw(
            ident(world, 'strategies'), 'ident')
        path = with_query(path, data.draw(st.sampled_from(
            ('', 'x=1', 'limit=1')), 'query'))
    extra = data.draw(headers(), 'headers')
    extra.setdefault('OpenStack-API-Version', 'infra-optim 1.%d' % data.draw(
        st.integers(min_value=0, max_value=7)))
    send(api, 'test_fuzz_rpc_routes', 'GET', path, headers=extra, rpc=True)


def test_zz_at_least_1000_requests_per_run():
    """The fuzz tests above sent at least MIN_REQUESTS requests."""
    missing = [name for name in FUZZ_TESTS if not REQUESTS[name]]
    if missing:
        pytest.skip('not every fuzz test ran (%s)' % ', '.join(missing))
    total = sum(REQUESTS.values())
    print('\nfuzz requests: %d' % total)
    for (test, status), count in sorted(STATUSES.items()):
        print('  %-30s %d: %d' % (test, status, count))
    assert total >= MIN_REQUESTS, dict(REQUESTS)
