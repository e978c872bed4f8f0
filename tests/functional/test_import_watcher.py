"""watcher-ha-db-manage import-watcher, from a database that the real
python-watcher 17.0.0 created (its own migrations, on MariaDB) and filled
(its own objects: tests/functional/watcher17_fill.py), into a freshly
migrated database of ours on SQLite, MariaDB and PostgreSQL; what was
copied is read back through our API, as the watcher CLI would.

The virtualenv with python-watcher 17.0.0 is made on first use (a few
minutes; tests/benchmarks/watcher17.py) and reused after.
"""

import json
import pathlib
import subprocess

import pytest
import requests
import sqlalchemy as sa

from tests import venvs
from tests.benchmarks import watcher17
from tests.functional import db_imports
from tests.functional import fixtures
from tests.functional import services
from tests.functional.db_imports import Ours

FILL = pathlib.Path(__file__).with_name('watcher17_fill.py')
TABLES = ('audit_templates', 'audits', 'action_plans', 'actions',
          'efficacy_indicators')
JSON_COLUMNS = ('scope', 'default_parameters', 'parameters',
                'global_efficacy', 'input_parameters', 'parents')
# Watcher 17 and our API at the same version: every field shown.
VERSION = {'OpenStack-API-Version': 'infra-optim 1.7'}


def _watcher_python():
    """The python of the Watcher 17 virtualenv (with PyMySQL)."""
    return venvs.required(watcher17.python(), 'python-watcher 17.0.0')


@pytest.fixture(scope='module')
def watcher_db(tmp_path_factory):
    """A Watcher 17 database on MariaDB, filled by Watcher: its URL."""
    python = _watcher_python()
    url, drop = services.create_database('mysql')
    tmp = tmp_path_factory.mktemp('watcher17')
    conf = fixtures.write_config(tmp / 'watcher.conf', {
        'DEFAULT': {'transport_url': 'fake://',
                    'log_file': str(tmp / 'watcher.log')},
        'oslo_messaging_notifications': {'driver': 'noop'},
        'database': {'connection': url},
    })
    try:
        for command in ([str(python.parent / 'watcher-db-manage'),
                         '--config-file', str(conf), 'upgrade'],
                        [str(python), str(FILL), str(conf)]):
            done = subprocess.run(command, capture_output=True, text=True,
                                  timeout=300)
            assert done.returncode == 0, '%s failed:\n%s\n%s' % (
                command, done.stderr[-3000:],
                (tmp / 'watcher.log').read_text()[-3000:])
        yield url
    finally:
        drop()


def _watcher_rows(url):
    """{table: {uuid: row}} of the Watcher database, JSON decoded, with
    the names and UUIDs of their goals, strategies, audits and plans."""
    engine = sa.create_engine(url)
    found = {}
    try:
        with engine.connect() as conn:
            catalog = {table: {r.id: r for r in conn.execute(sa.text(
                'SELECT id, name, uuid FROM %s' % table))}
                for table in ('goals', 'strategies')}
            uuids = {table: dict(conn.execute(sa.text(
                'SELECT id, uuid FROM %s' % table)).all())
                for table in ('audits', 'action_plans')}
            for table in TABLES:
                rows = [dict(r._mapping) for r in conn.execute(sa.text(
                    'SELECT * FROM %s ORDER BY id' % table))]
                for row in rows:
                    for column in JSON_COLUMNS:
                        if row.get(column) is not None:
                            row[column] = json.loads(row[column])
                    for kind, table_of in (('goal', 'goals'),
                                           ('strategy', 'strategies')):
                        if '%s_id' % kind not in row:
                            continue
                        ref = catalog[table_of].get(row['%s_id' % kind])
                        row['%s_name' % kind] = ref and ref.name
                        row['%s_uuid' % kind] = ref and ref.uuid
                    if 'audit_id' in row:
                        row['audit_uuid'] = uuids['audits'][row['audit_id']]
                    if 'action_plan_id' in row:
                        row['action_plan_uuid'] = uuids['action_plans'][
                            row['action_plan_id']]
                found[table] = {row['uuid']: row for row in rows}
    finally:
        engine.dispose()
    return found


def _summary_of(output):
    return db_imports.summary(output, TABLES)


def _list(api, collection):
    resp = requests.get('%s/v1/%s/detail?limit=1000' % (api, collection),
                        headers=VERSION, timeout=30)
    assert resp.status_code == 200, resp.text
    return {item['uuid']: item for item in resp.json()[collection]}


def _skipped(watcher):
    """The UUIDs the import must leave out, by table, and why (see
    watcher17_fill.py)."""
    templates = watcher['audit_templates'].values()
    audits = watcher['audits'].values()
    plans = watcher['action_plans'].values()
    zone_audit = {a['uuid'] for a in audits if a['name'] == 'zone-migration'}
    overlapping = {p['uuid'] for p in plans if p['state'] == 'PENDING'
                   and any(a['action_plan_uuid'] == p['uuid']
                           and a['input_parameters'].get('source_node')
                           == 'compute-8'
                           for a in watcher['actions'].values())}
    plans_out = overlapping | {p['uuid'] for p in plans
                               if p['audit_uuid'] in zone_audit}
    return {
        'audit_templates': {t['uuid'] for t in templates
                            if t['deleted'] or t['name'] == 'at-zone'},
        'audits': zone_audit,
        'action_plans': plans_out,
        'actions': {a['uuid'] for a in watcher['actions'].values()
                    if a['action_plan_uuid'] in plans_out},
        'efficacy_indicators': set(),
    }


def _handed_over(state):
    """What a Watcher state becomes here for work its stopped daemons
    held."""
    return 'PENDING' if state == 'ONGOING' else state


def _check_api(api, watcher, skipped):
    """Every row copied is served with Watcher's UUID and values."""
    templates = _list(api, 'audit_templates')
    expected = set(watcher['audit_templates']) - skipped['audit_templates']
    assert set(templates) == expected
    for uuid in expected:
        row, got = watcher['audit_templates'][uuid], templates[uuid]
        assert (got['name'], got['description'], got['goal_name'],
                got['goal_uuid'], got['strategy_name'],
                got['strategy_uuid'], got['scope'],
                got['default_parameters']) == (
            row['name'], row['description'], row['goal_name'],
            row['goal_uuid'], row['strategy_name'], row['strategy_uuid'],
            row['scope'] or [], row['default_parameters'] or {})

    audits = _list(api, 'audits')
    live = {u for u, a in watcher['audits'].items() if not a['deleted']}
    assert set(audits) == live - skipped['audits']
    for uuid, got in audits.items():
        row = watcher['audits'][uuid]
        assert got['name'] == row['name']
        assert got['audit_type'] == row['audit_type']
        assert got['state'] == _handed_over(row['state'])
        assert got['hostname'] == (None if row['state'] == 'ONGOING'
                                   else row['hostname'])
        assert got['parameters'] == (row['parameters'] or {})
        assert got['scope'] == (row['scope'] or [])
        assert got['interval'] == row['interval']
        assert got['auto_trigger'] == bool(row['auto_trigger'])
        assert (got['goal_name'], got['goal_uuid'], got['strategy_name'],
                got['strategy_uuid']) == (
            row['goal_name'], row['goal_uuid'], row['strategy_name'],
            row['strategy_uuid'])
        assert got['status_message'] == row['status_message']

    plans = _list(api, 'action_plans')
    live = {u for u, p in watcher['action_plans'].items()
            if not p['deleted']}
    assert set(plans) == live - skipped['action_plans']
    indicators = {}
    for indicator in watcher['efficacy_indicators'].values():
        indicators.setdefault(indicator['action_plan_uuid'], []).append(
            {'name': indicator['name'], 'description':
             indicator['description'], 'unit': indicator['unit'],
             'value': indicator['data']})
    for uuid, got in plans.items():
        row = watcher['action_plans'][uuid]
        assert got['state'] == _handed_over(row['state'])
        assert got['audit_uuid'] == row['audit_uuid']
        assert (got['strategy_name'], got['strategy_uuid']) == (
            row['strategy_name'], row['strategy_uuid'])
        assert got['global_efficacy'] == row['global_efficacy']
        assert got['efficacy_indicators'] == indicators.get(uuid, [])
        assert got['status_message'] == row['status_message']

    actions = _list(api, 'actions')
    live = {u for u, a in watcher['actions'].items() if not a['deleted']}
    assert set(actions) == live - skipped['actions']
    for uuid, got in actions.items():
        row = watcher['actions'][uuid]
        assert (got['action_plan_uuid'], got['action_type'],
                got['input_parameters'], got['state'], got['parents'],
                got['status_message']) == (
            row['action_plan_uuid'], row['action_type'],
            row['input_parameters'], row['state'], row['parents'],
            row['status_message'])


def _check_archived(url, watcher):
    """What an operator deleted in Watcher is archived here (DELETED,
    deleted_at set), for purge."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            for table in ('audits', 'action_plans', 'actions'):
                deleted = {u for u, r in watcher[table].items()
                           if r['deleted']}
                assert deleted
                rows = conn.execute(sa.text(
                    'SELECT uuid, state, deleted_at FROM %s WHERE state = '
                    "'DELETED'" % table)).all()
                assert {r.uuid for r in rows} == deleted
                assert all(r.deleted_at is not None for r in rows)
            # The started plans hold what their actions touch.
            claims = conn.execute(sa.text(
                'SELECT resource_type, resource_id FROM '
                'action_plan_claims')).all()
            assert ('server', 'd63a5c2e-5b8a-4d43-9a2b-6c3e1a3f0c11') in \
                {tuple(c) for c in claims}
    finally:
        engine.dispose()


@pytest.mark.parametrize('kind', ['sqlite', 'mysql', 'postgresql'])
def test_import_brings_everything_over_once(watcher_db, tmp_path, kind):
    watcher = _watcher_rows(watcher_db)
    skipped = _skipped(watcher)
    ours = Ours(tmp_path, kind, 'import-watcher')
    try:
        first = ours.import_(watcher_db).stdout
        counts = _summary_of(first)
        for table in TABLES:
            left_out = len(skipped[table])
            assert counts[table] == (len(watcher[table]) - left_out, 0,
                                     left_out), (table, first)
        assert 'strategy vendor_zone_drain is not provided' in first
        assert 'held by another started action plan here' in first
        assert 'deleted in Watcher' in first

        again = _summary_of(ours.import_(watcher_db).stdout)
        for table in TABLES:
            assert again[table] == (0, counts[table][0], counts[table][2]), (
                table, again)

        _check_archived(ours.url, watcher)
        with services.api_process(ours.config, ours.port) as api:
            _check_api(api, watcher, skipped)
    finally:
        ours.drop()


def test_not_a_watcher_database_writes_nothing(tmp_path):
    """Our own database given as the source: refused, with why, and the
    target is left as it was (not even the catalog synced)."""
    ours = Ours(tmp_path, 'sqlite', 'import-watcher')
    db_imports.check_refuses_other_databases(ours, tmp_path,
                                             'not a Watcher 17 database')
    for table in ('goals',) + TABLES:
        assert ours.count(table) == 0


def test_refused_while_watcher_daemons_run(watcher_db, tmp_path):
    """A decision engine that beat a moment ago would go on with the
    audits the import hands to ours: refused unless --force; --dry-run
    tells what would be copied and writes nothing."""
    ours = Ours(tmp_path, 'sqlite', 'import-watcher')
    watcher = sa.create_engine(watcher_db)
    with watcher.begin() as conn:
        conn.execute(sa.text(
            "UPDATE services SET last_seen_up = UTC_TIMESTAMP() "
            "WHERE name = 'watcher-decision-engine'"))
    try:
        refused = ours.import_(watcher_db, check=False)
        assert refused.returncode != 0
        assert ('watcher-decision-engine on controller-1'
                in refused.stderr), refused.stderr
        dry = ours.import_(watcher_db, '--dry-run').stdout
        assert 'Dry run: nothing was written.' in dry
        would = _summary_of(dry)['audits'][0]
        assert would > 0
        assert ours.count('audits') == 0
        forced = _summary_of(ours.import_(watcher_db, '--force').stdout)
        assert forced['audits'][0] == would == ours.count('audits')
    finally:
        with watcher.begin() as conn:
            conn.execute(sa.text(
                'UPDATE services SET last_seen_up = UTC_TIMESTAMP() - '
                "INTERVAL 10 MINUTE WHERE name = 'watcher-decision-engine'"))
        watcher.dispose()


def test_a_failure_midway_copies_nothing(watcher_db, tmp_path):
    """The last table's insert fails (the database refuses it): the
    templates, audits, plans and actions written before it are rolled
    back with it."""
    ours = Ours(tmp_path, 'sqlite', 'import-watcher')
    engine = sa.create_engine(ours.url)
    with engine.begin() as conn:
        conn.execute(sa.text(
            'CREATE TRIGGER refuse BEFORE INSERT ON efficacy_indicators '
            "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"))
    engine.dispose()
    failed = ours.import_(watcher_db, check=False)
    assert failed.returncode != 0
    assert 'The import failed, and copied nothing' in failed.stderr
    assert 'refused by the test' in failed.stderr
    for table in TABLES:
        assert ours.count(table) == 0, table
