"""Replay the 48 exchanges captured from OpenStack Watcher 17 against our
API, in order, and compare status codes, headers and bodies key by key.

UUIDs are mapped from theirs to ours as responses reveal them; timestamps
are compared by format. The catalog holds our own goals, which must match
Watcher's, and the strategies the captured deployment had, as test plugins.
"""

import json
import re

import pytest

from tests import golden
from tests.helpers import tables
from watcher_ha.api import microversion
from watcher_ha.common import plugins
from watcher_ha.db import installed_plugins
from watcher_ha.decision_engine.strategy import base as strategy_base

UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                  r'[0-9a-f]{12}')
TIMESTAMP = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?'
                       r'(\+00:00)?$')
HOST = '127.0.0.1:9322'

# Watcher 17's newest microversion, and ours: our additions have a
# family of their own (watcher-ha).
WATCHER17_MAX = '1.7'

# Deliberate differences from Watcher 17, each documented in
# doc/source/watcher_differences.rst.
DEVIATIONS = {
    # Without a decision engine Watcher answers 500 after the RPC timeout;
    # we answer 503 Service Unavailable with advice.
    '48_err_data_model_no_decision_engine_500': 503,
}


BASIC_SPEC = {'properties': {
    'migration_attempts': {'type': 'number', 'default': 0,
                           'description': 'Maximum number of combinations'},
    'period': {'type': 'number', 'default': 7200, 'description': 'period'},
    'granularity': {'type': 'number', 'default': 300,
                    'description': 'granularity'},
    'aggregation_method': {
        'type': 'object', 'description': 'aggregation',
        'properties': {'instance': {'type': 'string', 'default': 'mean'},
                       'compute_node': {'type': 'string',
                                        'default': 'mean'},
                       'node': {'type': 'string', 'default': ''}},
        'default': {'instance': 'mean', 'compute_node': 'mean',
                    'node': ''}}}}


def _strategy_plugins(listing, shown):
    specs = {shown['name']: shown['parameters_spec'], 'basic': BASIC_SPEC}
    found = {}
    for strategy in listing['strategies']:
        found[strategy['name']] = type(
            strategy['name'], (strategy_base.Strategy,), {
                'name': strategy['name'],
                'display_name': strategy['display_name'],
                'goal': strategy['goal_name'],
                'parameters_spec': specs.get(strategy['name'],
                                             {'properties': {}})})
    return found


@pytest.fixture
def watcher17_catalog(api, db, admin_context):
    by_name = {e.name: e for e in golden.exchanges()}
    goals = watcher17_goals()
    strategies = _strategy_plugins(
        by_name['08_strategies_filter_goal'].response_body,
        by_name['09_strategy_by_name'].response_body)
    with db.begin() as conn:
        tables.empty(conn, tables.CATALOG)
    installed_plugins.sync(admin_context, goals=dict(sorted(goals.items())),
                 strategies=strategies,
                 scoring_engines=_scorers_in_watcher_order())
    yield
    with db.begin() as conn:
        tables.empty(conn, tables.WRITTEN)
    installed_plugins.sync(admin_context, prune=True)


def test_our_goals_are_watcher17s():
    listed = {e.name: e for e in golden.exchanges()}['04_goals']
    theirs = {goal['name']: (goal['display_name'],
                             goal['efficacy_specification'])
              for goal in listed.response_body['goals']}
    ours = {name: (goal.display_name, [
        {'name': spec.name, 'description': spec.description,
         'unit': spec.unit, 'schema': json.dumps(spec.schema)}
        for spec in goal.efficacy_specification])
        for name, goal in watcher17_goals().items()}
    assert ours == theirs


def watcher17_goals():
    """Our goals that Watcher 17 has: all but our own."""
    return {name: goal
            for name, goal in plugins.load_classes(plugins.GOALS).items()
            if not (goal.watcher_ha_only or goal.watcher_spec)}


def _scorers_in_watcher_order():
    found = plugins.load_classes(plugins.SCORING_ENGINES)
    order = ['dummy_scorer', 'dummy_min_scorer', 'dummy_max_scorer',
             'dummy_avg_scorer']
    return {name: found[name] for name in order}


class Mapper:
    """Learns which of our UUIDs stands for which of theirs."""

    def __init__(self):
        self.ours = {}

    def to_ours(self, text):
        return UUID.sub(lambda m: self.ours.get(m.group(0), m.group(0)),
                        text)

    def compare(self, theirs, ours, where='body'):
        if isinstance(theirs, dict):
            assert isinstance(ours, dict), where
            assert list(ours) == list(theirs), (
                '%s: keys differ\n ours:   %s\n theirs: %s'
                % (where, list(ours), list(theirs)))
            for key in theirs:
                self.compare(theirs[key], ours[key], '%s.%s' % (where, key))
        elif isinstance(theirs, list):
            assert isinstance(ours, list), where
            assert len(ours) == len(theirs), (
                '%s: %d items, Watcher had %d' % (where, len(ours),
                                                  len(theirs)))
            for index, (t, o) in enumerate(zip(theirs, ours)):
                self.compare(t, o, '%s[%d]' % (where, index))
        elif isinstance(theirs, str) and 'version range is: [' in theirs:
            newest = '%s].' % microversion.MAX_VERSION_STRING
            assert ours == theirs.replace('%s].' % WATCHER17_MAX, newest), \
                where
        elif where.endswith('max_version'):
            assert theirs == WATCHER17_MAX, where
            assert ours == microversion.MAX_VERSION_STRING, where
        elif where in FREE_TEXT:
            assert isinstance(ours, str) and ours, where
        elif isinstance(theirs, str) and where.endswith('error_message'):
            self.compare(json.loads(theirs), json.loads(ours), where + '>')
        elif isinstance(theirs, str) and TIMESTAMP.match(theirs):
            assert isinstance(ours, str) and TIMESTAMP.match(ours), where
        elif isinstance(theirs, str) and UUID.search(theirs):
            for their_uuid, our_uuid in zip(UUID.findall(theirs),
                                            UUID.findall(ours)):
                known = self.ours.setdefault(their_uuid, our_uuid)
                assert known == our_uuid, '%s: uuid mismatch' % where
            assert UUID.sub('U', ours) == UUID.sub('U', theirs), where
        else:
            assert ours == theirs, '%s: ours %r, Watcher %r' % (
                where, ours, theirs)


# Free text where our own wording is fine (the field is not machine-read).
FREE_TEXT = {'01_root.description'}

VERSION_HEADERS = ('vary', 'openstack-api-minimum-version',
                   'openstack-api-maximum-version', 'openstack-api-version',
                   'allow')


def _newest_is_ours(exchange, header):
    """Watcher's header value, naming our newest version where it named
    its own."""
    value = exchange.response_headers.get(header)
    asked = exchange.request_headers.get('openstack-api-version', '')
    names_newest = (header == 'openstack-api-maximum-version'
                    or (header == 'openstack-api-version'
                        and asked.lower().endswith('latest')))
    if value and names_newest:
        assert value.endswith(WATCHER17_MAX), (exchange.name, header)
        return value[:-len(WATCHER17_MAX)] + microversion.MAX_VERSION_STRING
    return value


def test_replay_watcher17_golden_exchanges(api, watcher17_catalog):
    mapper = Mapper()
    for exchange in golden.exchanges():
        headers = {'Host': HOST}
        if 'openstack-api-version' in exchange.request_headers:
            headers['OpenStack-API-Version'] = exchange.request_headers[
                'openstack-api-version']
        resp = api.request(
            exchange.method, mapper.to_ours(exchange.path),
            raw=mapper.to_ours(exchange.request_body)
            if exchange.request_body else None, headers=headers)
        expected = DEVIATIONS.get(exchange.name, exchange.status)
        assert resp.status == expected, '%s: %s' % (exchange.name, resp)
        if exchange.name in DEVIATIONS:
            continue
        ours = {k.lower(): v for k, v in resp.headers.items()}
        for header in VERSION_HEADERS:
            assert ours.get(header) == _newest_is_ours(
                exchange, header), '%s: header %s' % (exchange.name, header)
        if 'location' in exchange.response_headers:
            mapper.compare(exchange.response_headers['location'],
                           ours['location'], exchange.name + ':Location')
        if exchange.response_body is None:
            assert resp.body == b'', exchange.name
        else:
            assert ours['content-type'].startswith('application/json')
            mapper.compare(exchange.response_body, resp.json, exchange.name)
