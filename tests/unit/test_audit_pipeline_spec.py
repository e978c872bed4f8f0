"""Audit pipelines against the facts of Watcher's approved spec
(tests/data/reference/watcher-specs/audit-pipeline.json, written down
from watcher-specs specs/2026.2/approved/audit-pipeline.rst): every
assertion names the section of the spec it follows."""

import json

import pytest
import sqlalchemy as sa

from tests import reference_data
from watcher_ha.common import state_machines
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.common.states import ExecutionMode
from watcher_ha.db import models
from watcher_ha.db import transitions

FACTS = json.loads(reference_data.files(
    reference_data.ROOT / 'watcher-specs', 'audit-pipeline.json')[0]
    .read_text())
MACHINE = state_machines.AUDIT_PIPELINE

# The spec's column types, as our models declare them. The spec stores
# scope and parameters as JSON-encoded Text; every JSON column of ours is
# a JSON column (JSON on the databases that have one, text elsewhere).
TYPES = {'String': sa.String, 'Integer': sa.Integer, 'Boolean': sa.Boolean,
         'Text': (sa.Text, sa.JSON)}


def section(part):
    return 'spec section "%s"' % FACTS[part]['section']


def test_the_facts_name_the_spec_they_come_from():
    assert FACTS['source'] == {
        'repository': 'openstack/watcher-specs',
        'path': 'specs/2026.2/approved/audit-pipeline.rst',
        'commit': '815ed72b57fe68802e665740ea547999fdeabb80',
        'committed': '2026-07-20'}


# States and transitions.

def test_the_pipeline_machine_has_the_specs_states():
    facts = FACTS['states']
    where = section('states')
    spec_states = set(facts['transitions']) | {
        target for targets in facts['transitions'].values()
        for target in targets}
    assert MACHINE.states == spec_states, where
    # The spec reuses the audit's states.
    assert MACHINE.states <= state_machines.AUDIT.states, where
    for state in facts['not_pipeline_states']:
        assert state not in MACHINE.states, where


def test_the_pipeline_machine_has_exactly_the_specs_transitions():
    where = section('states')
    ours = {}
    for source, target, _ in MACHINE.edges():
        ours.setdefault(source, set()).add(target)
    assert ours == {source: set(targets) for source, targets
                    in FACTS['states']['transitions'].items()}, where


def test_pipelines_start_pending_and_end_deleted():
    where = section('states')
    assert FACTS['states']['initial'] == AuditState.PENDING, where
    assert MACHINE.sources_of(AuditState.PENDING, state_machines.USER) \
        == frozenset(), where
    assert MACHINE.sources_of(AuditState.PENDING, state_machines.SERVICE) \
        == frozenset(), where
    assert FACTS['states']['final'] == AuditState.DELETED, where
    assert AuditState.DELETED not in MACHINE.transitions, where


def test_the_machine_is_the_one_transitions_writes_pipelines_with():
    assert transitions.MACHINE_OF[models.AuditPipeline] is MACHINE, \
        section('states')


def test_pipelines_are_oneshot_cascades_of_two_to_ten_stages():
    facts = FACTS['stages']
    where = section('stages')
    assert facts['audit_types'] == [AuditType.ONESHOT], where
    assert list(ExecutionMode.ALL) == facts['execution_modes'], where
    assert (facts['min'], facts['max']) == (2, 10), where


# Tables.

def _column(table, name):
    return models.Base.metadata.tables[table].c[name]


@pytest.mark.parametrize('table', ['audit_pipelines', 'audit_pipeline_stages',
                                   'action_plans', 'actions'])
def test_the_tables_have_the_specs_columns(table):
    where = section('tables') + ', table ' + table
    for name, fact in FACTS['tables'][table].items():
        column = _column(table, name)
        assert isinstance(column.type, TYPES[fact['type']]), (where, name)
        if 'length' in fact:
            assert column.type.length == fact['length'], (where, name)
        if 'nullable' in fact:
            assert column.nullable == fact['nullable'], (where, name)
        if 'default' in fact:
            assert column.default.arg == fact['default'], (where, name)
        if 'references' in fact:
            assert {fk.target_fullname for fk in column.foreign_keys} \
                == {fact['references']}, (where, name)


def test_pipeline_names_are_unique_among_live_pipelines():
    """The spec's unique (name, deleted), in this house's archive: a
    unique column the database computes from the name while the
    pipeline is not DELETED."""
    where = section('tables')
    assert ['name', 'deleted'] in FACTS['tables']['audit_pipelines_unique']
    live_name = _column('audit_pipelines', 'live_name')
    assert live_name.unique, where
    assert "state = 'DELETED'" in str(live_name.computed.sqltext), where
    assert _column('audit_pipelines', 'uuid').unique, where


def test_pipelines_have_no_schedule():
    where = section('tables')
    columns = models.Base.metadata.tables['audit_pipelines'].c
    for name in FACTS['tables']['audit_pipelines_omitted']:
        assert name not in columns, (where, name)


def test_an_action_plan_has_an_audit_or_a_pipeline_never_both():
    where = section('tables') + ': ' + FACTS['tables'][
        'action_plan_invariant']
    [check] = [c for c in models.ActionPlan.__table__.constraints
               if isinstance(c, sa.CheckConstraint)]
    assert str(check.sqltext) == (
        '(audit_id IS NULL) <> (audit_pipeline_id IS NULL)'), where
