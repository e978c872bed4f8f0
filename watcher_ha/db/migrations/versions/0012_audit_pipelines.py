"""Audit pipelines (watcher-specs audit-pipeline.rst, "Data model impact")

Revision ID: 0012
Revises: 0011

- audit_pipelines: a cascade of audit templates planned into one action
  plan; archived like audits (state DELETED), its name unique among the
  live ones. Internal: triggered_at (planning asked for), cancel_requested_at
  (an operator's cancel while ONGOING), request_id, version.
- audit_pipeline_stages: each stage's snapshot of its audit template
  (goal, strategy, scope, parameters), in position order.
- action_plans: made by an audit (audit_id) or by a pipeline
  (audit_pipeline_id), exactly one of them (a check constraint); audit_id
  becomes nullable.
- actions: audit_pipeline_stage_id, the stage that proposed the action.

No data moves: every existing plan keeps its audit.

On SQLite, making action_plans.audit_id nullable copies the table, which
db/migration.py's foreign keys left unenforced during migrations allow
without touching the rows that refer to it.
"""

from alembic import op
import sqlalchemy as sa

from watcher_ha.db.migrations.table_parts import foreign_key
from watcher_ha.db.migrations.table_parts import id_column
from watcher_ha.db.migrations.table_parts import primary_key
from watcher_ha.db.migrations.table_parts import TIMESTAMP
from watcher_ha.db.migrations.table_parts import timestamps
from watcher_ha.db.migrations.table_parts import unique
from watcher_ha.db.migrations.table_parts import uuid_column

revision = '0012'
down_revision = '0011'

NAME_LEN = 63
STATE_LEN = 20
HOST_LEN = 255
REQUEST_ID_LEN = 64
ONE_ORIGIN = '(audit_id IS NULL) <> (audit_pipeline_id IS NULL)'


def upgrade():
    op.create_table(
        'audit_pipelines', id_column(), uuid_column(),
        sa.Column('name', sa.String(NAME_LEN), nullable=True),
        sa.Column('live_name', sa.String(NAME_LEN), sa.Computed(
            "CASE WHEN state = 'DELETED' THEN NULL ELSE name END",
            persisted=True), nullable=True),
        sa.Column('execution_mode', sa.String(STATE_LEN), nullable=False),
        sa.Column('state', sa.String(STATE_LEN), nullable=False),
        sa.Column('audit_type', sa.String(STATE_LEN), nullable=False),
        sa.Column('auto_trigger', sa.Boolean(), nullable=False),
        sa.Column('hostname', sa.String(HOST_LEN), nullable=True),
        sa.Column('status_message', sa.String(255), nullable=True),
        sa.Column('triggered_at', TIMESTAMP, nullable=True),
        sa.Column('cancel_requested_at', TIMESTAMP, nullable=True),
        sa.Column('request_id', sa.String(REQUEST_ID_LEN), nullable=True),
        *timestamps(),
        sa.Column('deleted_at', TIMESTAMP, nullable=True),
        sa.Column('version', sa.Integer(), nullable=False),
        primary_key('audit_pipelines'), unique('audit_pipelines', 'uuid'),
        unique('audit_pipelines', 'live_name'))
    op.create_index('ix_audit_pipelines_state', 'audit_pipelines', ['state'])
    op.create_table(
        'audit_pipeline_stages', id_column(), uuid_column(),
        sa.Column('audit_pipeline_id', sa.Integer(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(NAME_LEN), nullable=True),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('source_audit_template_id', sa.Integer(), nullable=True),
        sa.Column('goal_id', sa.Integer(), nullable=False),
        sa.Column('strategy_id', sa.Integer(), nullable=True),
        sa.Column('scope', sa.JSON(), nullable=True),
        sa.Column('parameters', sa.JSON(), nullable=True),
        *timestamps(),
        foreign_key('audit_pipeline_stages', 'audit_pipeline_id',
                    'audit_pipelines', ondelete='CASCADE'),
        foreign_key('audit_pipeline_stages', 'source_audit_template_id',
                    'audit_templates', ondelete='SET NULL'),
        foreign_key('audit_pipeline_stages', 'goal_id', 'goals'),
        foreign_key('audit_pipeline_stages', 'strategy_id', 'strategies'),
        primary_key('audit_pipeline_stages'),
        unique('audit_pipeline_stages', 'uuid'),
        unique('audit_pipeline_stages', 'audit_pipeline_id', 'position'))
    with op.batch_alter_table('action_plans') as batch_op:
        batch_op.alter_column('audit_id', existing_type=sa.Integer(),
                              nullable=True)
        batch_op.add_column(sa.Column('audit_pipeline_id', sa.Integer(),
                                      nullable=True))
        batch_op.create_foreign_key(
            batch_op.f('fk_action_plans_audit_pipeline_id_audit_pipelines'),
            'audit_pipelines', ['audit_pipeline_id'], ['id'])
        batch_op.create_index(
            batch_op.f('ix_action_plans_audit_pipeline_id'),
            ['audit_pipeline_id'])
        batch_op.create_check_constraint(
            batch_op.f('ck_action_plans_one_origin'), ONE_ORIGIN)
    with op.batch_alter_table('actions') as batch_op:
        batch_op.add_column(sa.Column('audit_pipeline_stage_id',
                                      sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f('fk_actions_audit_pipeline_stage_id_'
                       'audit_pipeline_stages'),
            'audit_pipeline_stages', ['audit_pipeline_stage_id'], ['id'],
            ondelete='SET NULL')


def downgrade():
    # Plans of pipelines have no audit to keep them: they go, with their
    # actions and what refers to them.
    plans = sa.table('action_plans', sa.column('id', sa.Integer()),
                     sa.column('audit_pipeline_id', sa.Integer()))
    of_pipelines = sa.select(plans.c.id).where(
        plans.c.audit_pipeline_id.is_not(None))
    for child in ('actions', 'efficacy_indicators', 'action_plan_claims'):
        table = sa.table(child, sa.column('action_plan_id', sa.Integer()))
        op.execute(table.delete().where(
            table.c.action_plan_id.in_(of_pipelines)))
    op.execute(plans.delete().where(plans.c.audit_pipeline_id.is_not(None)))
    with op.batch_alter_table('actions') as batch_op:
        batch_op.drop_constraint(
            batch_op.f('fk_actions_audit_pipeline_stage_id_'
                       'audit_pipeline_stages'), type_='foreignkey')
        batch_op.drop_column('audit_pipeline_stage_id')
    with op.batch_alter_table('action_plans') as batch_op:
        batch_op.drop_constraint(batch_op.f('ck_action_plans_one_origin'),
                                 type_='check')
        batch_op.drop_constraint(
            batch_op.f('fk_action_plans_audit_pipeline_id_audit_pipelines'),
            type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_action_plans_audit_pipeline_id'))
        batch_op.drop_column('audit_pipeline_id')
        batch_op.alter_column('audit_id', existing_type=sa.Integer(),
                              nullable=False)
    op.drop_table('audit_pipeline_stages')
    op.drop_index('ix_audit_pipelines_state', table_name='audit_pipelines')
    op.drop_table('audit_pipelines')
