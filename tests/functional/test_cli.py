"""The unmodified ``watcher`` and ``openstack optimize`` CLIs work against
a real watcher-ha-api process (SQLite, keystone auth).

One API process serves the whole module; every test runs once per CLI
and uses names prefixed with the CLI's name, so tests do not depend on
each other's data. Each CLI call costs about a second of start-up, so the
tests batch their checks into few calls.
"""

import dataclasses
import json
import os
import subprocess
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy import orm

from tests.functional import fixtures
from tests.functional import identity
from tests.functional import services
from watcher_ha.db import models

pytestmark = pytest.mark.functional

CALL_TIMEOUT = 60
DUMMY_DEFAULTS = {'para1': 3.2, 'para2': 'hello'}
DUMMY_STRATEGIES = {'dummy', 'dummy_with_resize', 'dummy_with_scorer'}
# Watcher 17's strategies and their goals.
WATCHER_STRATEGIES = {
    'actuator': 'unclassified', 'basic': 'server_consolidation',
    'dummy': 'dummy', 'dummy_with_resize': 'dummy',
    'dummy_with_scorer': 'dummy', 'host_maintenance': 'cluster_maintaining',
    'node_resource_consolidation': 'server_consolidation',
    'noisy_neighbor': 'noisy_neighbor',
    'outlet_temperature': 'thermal_optimization',
    'uniform_airflow': 'airflow_optimization',
    'vm_workload_consolidation': 'server_consolidation',
    'workload_balance': 'workload_balancing',
    'workload_stabilization': 'workload_balancing',
    'saving_energy': 'saving_energy',
    'storage_capacity_balance': 'workload_balancing',
    'zone_migration': 'hardware_maintenance'}
DUMMY_SCORERS = {'dummy_scorer', 'dummy_min_scorer', 'dummy_max_scorer',
                 'dummy_avg_scorer'}


@dataclasses.dataclass(frozen=True)
class Server:
    url: str
    database_url: str
    home: str


@pytest.fixture(scope='module')
def cli_server(tmp_path_factory):
    """One watcher-ha-api process for the module (see ``api_server``)."""
    tmp_path = tmp_path_factory.mktemp('cli-api')
    home = tmp_path_factory.mktemp('cli-home')
    port = fixtures.free_port()
    sections = fixtures.base_config(tmp_path, port=port)
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf', sections)
    fixtures.prepare_database(config)
    with services.api_process(config, port) as url:
        yield Server(url, sections['database']['connection'], str(home))


class Cli:
    """Runs one of the two CLIs against the server with a clean env."""

    def __init__(self, name, server):
        self.name = name
        if name == 'watcher':
            self.argv = [os.path.join(fixtures.BIN, 'watcher'),
                         *identity.watcher_cli_auth(server.url)]
            self.command = []
        else:
            self.argv = [os.path.join(fixtures.BIN, 'openstack'),
                         *identity.openstack_cli_auth(server.url)]
            self.command = ['optimize']
        # Nothing from the caller's OS_* variables or clouds.yaml.
        self.env = {'PATH': os.environ['PATH'], 'HOME': server.home}

    def run(self, *args, version=None, check=True):
        argv = list(self.argv)
        if version:
            argv += ['--os-infra-optim-api-version', version]
        argv += self.command + list(args)
        result = subprocess.run(argv, env=self.env, capture_output=True,
                                text=True, timeout=CALL_TIMEOUT)
        if check and result.returncode:
            pytest.fail('%s failed (%s):\n%s%s' % (
                ' '.join(argv), result.returncode, result.stdout,
                result.stderr))
        return result

    def json(self, *args, version=None):
        return json.loads(self.run(*args, '-f', 'json',
                                   version=version).stdout)

    def fails(self, *args, version=None):
        """Run a command that must fail; return its error output."""
        result = self.run(*args, version=version, check=False)
        assert result.returncode != 0, result.stdout
        return result.stderr


@pytest.fixture(params=['watcher', 'openstack'])
def cli(request, cli_server):
    return Cli(request.param, cli_server)


@pytest.fixture(scope='module')
def database(cli_server):
    """The server's database, for rows only other services write."""
    engine = sa.create_engine(cli_server.database_url)
    yield engine
    engine.dispose()


def by_name(rows):
    return {row['Name']: row for row in rows}


def test_goals_and_strategies(cli):
    goals = by_name(cli.json('goal', 'list'))
    assert goals['dummy']['Display name'] == 'Dummy goal'

    goal = cli.json('goal', 'show', 'dummy')
    assert goal['UUID'] == goals['dummy']['UUID']
    assert goal['Efficacy specification'] == []

    strategies = cli.json('strategy', 'list', '--goal', 'dummy')
    assert {row['Name'] for row in strategies} == DUMMY_STRATEGIES
    assert {row['Goal'] for row in strategies} == {'dummy'}

    strategy = cli.json('strategy', 'show', 'dummy')
    assert strategy['Display name'] == 'Dummy strategy'
    assert strategy['Goal'] == 'dummy'
    spec = json.loads(strategy['Parameters spec'])
    assert {key: value['default'] for key, value in spec.items()} == \
        DUMMY_DEFAULTS

    listed = {row['Name']: row['Goal']
              for row in cli.json('strategy', 'list')}
    assert WATCHER_STRATEGIES.items() <= listed.items()
    shown = cli.json('strategy', 'show', 'workload_stabilization')
    assert json.loads(shown['Parameters spec'])['host_choice'][
        'default'] == 'retry'


def test_audit_template_lifecycle(cli):
    plain, with_defaults = cli.name + '-at', cli.name + '-at-defaults'
    created = cli.json('audittemplate', 'create', plain, 'dummy',
                       '-s', 'dummy', '-d', 'first description')
    assert (created['Name'], created['Goal'], created['Strategy'],
            created['Description'], created['Audit Scope']) == \
        (plain, 'dummy', 'dummy', 'first description', [])

    created = cli.json('audittemplate', 'create', with_defaults, 'dummy',
                       '-s', 'dummy', '-p', 'para1=5.0', '-p', 'para2=x',
                       version='1.7')
    assert created['Default Parameters'] == {'para1': 5.0, 'para2': 'x'}

    # 1.7 shows the (empty) defaults of a template created without them.
    shown = cli.json('audittemplate', 'show', plain, version='1.7')
    assert shown['Description'] == 'first description'
    assert shown['Default Parameters'] == {}

    updated = cli.json('audittemplate', 'update', plain,
                       'replace', 'description=second description')
    assert updated['Description'] == 'second description'
    assert updated['Updated At'] is not None

    listed = by_name(cli.json('audittemplate', 'list', '--goal', 'dummy'))
    assert listed[plain]['UUID'] == shown['UUID']
    assert listed[with_defaults]['Strategy'] == 'dummy'

    # An audit from the template gets its defaults under its parameters.
    audit = cli.json('audit', 'create', '-a', with_defaults, '-t', 'EVENT',
                     '-p', 'para2=from-audit')
    assert (audit['Goal'], audit['Strategy'], audit['Audit Type']) == \
        ('dummy', 'dummy', 'EVENT')
    assert audit['Parameters'] == {'para1': 5.0, 'para2': 'from-audit'}

    cli.run('audittemplate', 'delete', plain, with_defaults)
    error = cli.fails('audittemplate', 'show', with_defaults)
    assert ('AuditTemplate %s could not be found (HTTP 404)' % with_defaults
            in error)


def test_oneshot_audit_fills_strategy_defaults(cli):
    audit = cli.json('audit', 'create', '-g', 'dummy', '-s', 'dummy')
    assert (audit['Audit Type'], audit['State'], audit['Goal'],
            audit['Strategy'], audit['Interval']) == \
        ('ONESHOT', 'PENDING', 'dummy', 'dummy', None)
    assert audit['Parameters'] == DUMMY_DEFAULTS
    assert audit['Name'].startswith('dummy-')

    shown = cli.json('audit', 'show', audit['UUID'])
    assert shown['Name'] == audit['Name']
    assert shown['Parameters'] == DUMMY_DEFAULTS
    assert shown['Auto Trigger'] is False


def test_continuous_audits_at_1_7(cli):
    seconds, cron = cli.name + '-every-600s', cli.name + '-cron'
    audit = cli.json('audit', 'create', '-g', 'dummy', '-s', 'dummy',
                     '-t', 'CONTINUOUS', '-i', '600', '--name', seconds,
                     '-p', 'para1=4.5', version='1.7')
    assert (audit['Name'], audit['Audit Type'], audit['State'],
            audit['Interval']) == (seconds, 'CONTINUOUS', 'PENDING', '600')
    assert audit['Parameters'] == {'para1': 4.5, 'para2': 'hello'}

    audit = cli.json('audit', 'create', '-g', 'dummy', '-s', 'dummy',
                     '-t', 'CONTINUOUS', '-i', '*/5 * * * *',
                     '--name', cron, version='1.7')
    assert (audit['Name'], audit['Interval']) == (cron, '*/5 * * * *')
    assert audit['Parameters'] == DUMMY_DEFAULTS


def test_oneshot_and_event_audits_at_1_7(cli):
    for audit_type in ('ONESHOT', 'EVENT'):
        name = '%s-%s-1-7' % (cli.name, audit_type.lower())
        audit = cli.json('audit', 'create', '-g', 'dummy', '-s', 'dummy',
                         '-t', audit_type, '--name', name, '-p',
                         'para2=at-1.7', version='1.7')
        assert (audit['Name'], audit['Audit Type'], audit['State'],
                audit['Interval']) == (name, audit_type, 'PENDING', None)
        assert audit['Parameters'] == dict(DUMMY_DEFAULTS, para2='at-1.7')
        # The fields of the later microversions are there.
        assert audit['Force'] is False
        assert 'Status Message' in audit
        shown = cli.json('audit', 'show', name, version='1.7')
        assert (shown['UUID'], shown['Audit Type']) == (audit['UUID'],
                                                       audit_type)


def test_event_audit_without_strategy(cli):
    audit = cli.json('audit', 'create', '-g', 'dummy', '-t', 'EVENT',
                     '--name', cli.name + '-event')
    assert (audit['Name'], audit['Audit Type'], audit['State']) == \
        (cli.name + '-event', 'EVENT', 'PENDING')
    # The CLI shows a missing strategy as "auto".
    assert (audit['Goal'], audit['Strategy']) == ('dummy', 'auto')
    assert audit['Parameters'] == {}


def test_audit_update_cancel_delete(cli):
    name, renamed = cli.name + '-to-rename', cli.name + '-renamed'
    created = cli.json('audit', 'create', '-g', 'dummy', '-s', 'dummy',
                       '-t', 'CONTINUOUS', '-i', '600', '--name', name)

    error = cli.fails('audit', 'delete', name)
    assert "Couldn't delete when state is 'PENDING'. (HTTP 400)" in error

    audit = cli.json('audit', 'update', name, 'replace', 'name=' + renamed)
    assert (audit['UUID'], audit['Name']) == (created['UUID'], renamed)

    audit = cli.json('audit', 'update', renamed, 'replace',
                     'state=CANCELLED')
    assert (audit['Name'], audit['State']) == (renamed, 'CANCELLED')

    listed = by_name(cli.json('audit', 'list', '--detail', '--goal', 'dummy',
                              '--strategy', 'dummy'))
    assert (listed[renamed]['State'], listed[renamed]['Audit Type'],
            listed[renamed]['Interval']) == ('CANCELLED', 'CONTINUOUS', '600')
    assert listed[renamed]['Parameters'] == DUMMY_DEFAULTS
    assert name not in listed
    assert {row['Strategy'] for row in listed.values()} == {'dummy'}

    cli.run('audit', 'delete', renamed)
    error = cli.fails('audit', 'show', renamed)
    assert 'Audit %s could not be found (HTTP 404)' % renamed in error


def test_audit_errors(cli):
    missing = cli.name + '-no-such-audit'
    error = cli.fails('audit', 'show', missing)
    assert 'Audit %s could not be found (HTTP 404)' % missing in error

    error = cli.fails('audit', 'create', '-g', 'dummy', '-t', 'ONESHOT',
                      '-i', '600')
    assert ('Interval of audit must not be set for ONESHOT. (HTTP 400)'
            in error)


def _seed_action_plan(database, audit_uuid):
    """What the decision engine would write for an audit: a plan with two
    chained actions. Returns (plan uuid, [action uuids])."""
    with orm.Session(database) as session, session.begin():
        audit = session.scalars(sa.select(models.Audit).where(
            models.Audit.uuid == audit_uuid)).one()
        plan = models.ActionPlan(uuid=str(uuid.uuid4()), audit_id=audit.id,
                                 strategy_id=audit.strategy_id,
                                 state='RECOMMENDED', global_efficacy=[])
        session.add(plan)
        session.flush()
        first = models.Action(uuid=str(uuid.uuid4()), action_plan_id=plan.id,
                              action_type='nop', state='PENDING',
                              input_parameters={'message': 'hello'},
                              parents=[])
        second = models.Action(uuid=str(uuid.uuid4()),
                               action_plan_id=plan.id, action_type='sleep',
                               state='PENDING',
                               input_parameters={'duration': 1.0},
                               parents=[first.uuid])
        session.add_all([first, second])
        return plan.uuid, [first.uuid, second.uuid]


def test_action_plans_and_actions(cli, database):
    audit = cli.json('audit', 'create', '-g', 'dummy', '-s', 'dummy',
                     '-t', 'EVENT', '--name', cli.name + '-planned')
    plan_uuid, action_uuids = _seed_action_plan(database, audit['UUID'])

    plans = cli.json('actionplan', 'list', '--audit', audit['UUID'])
    assert [(plan['UUID'], plan['Audit'], plan['State'])
            for plan in plans] == [(plan_uuid, audit['UUID'], 'RECOMMENDED')]

    actions = {action['UUID']: action for action in cli.json(
        'action', 'list', '--action-plan', plan_uuid)}
    assert set(actions) == set(action_uuids)
    first, second = (actions[each] for each in action_uuids)
    assert (first['Action'], first['State'], first['Parents']) == \
        ('nop', 'PENDING', [])
    assert (second['Action'], second['Parents']) == \
        ('sleep', [action_uuids[0]])
    assert {action['Action Plan'] for action in actions.values()} == \
        {plan_uuid}


def test_services_and_scoring_engines(cli, database):
    host = cli.name + '-host'
    with orm.Session(database) as session, session.begin():
        session.add(models.Service(name='watcher-decision-engine',
                                   host=host,
                                   last_seen_up=models.utcnow()))
    services = [row for row in cli.json('service', 'list')
                if row['Host'] == host]
    assert [(row['Name'], row['Status']) for row in services] == \
        [('watcher-decision-engine', 'ACTIVE')]

    engines = by_name(cli.json('scoringengine', 'list'))
    assert set(engines) == DUMMY_SCORERS
    assert engines['dummy_scorer']['Description'] == \
        'Dummy workload classifier'
