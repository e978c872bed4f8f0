"""Initial schema

Revision ID: 0001
Revises:
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None

# Microseconds survive on MySQL/MariaDB only when asked for.
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                       'mariadb')


def upgrade():
    op.create_table('goals',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('display_name', sa.String(length=255), nullable=False),
    sa.Column('efficacy_specification', sa.JSON(), nullable=False),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_goals')),
    sa.UniqueConstraint('name', name=op.f('uq_goals_name')),
    sa.UniqueConstraint('uuid', name=op.f('uq_goals_uuid'))
    )
    op.create_table('scoring_engines',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('description', sa.String(length=255), nullable=True),
    sa.Column('metainfo', sa.Text(), nullable=True),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_scoring_engines')),
    sa.UniqueConstraint('name', name=op.f('uq_scoring_engines_name')),
    sa.UniqueConstraint('uuid', name=op.f('uq_scoring_engines_uuid'))
    )
    op.create_table('services',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('last_seen_up', TIMESTAMP, nullable=True),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_services')),
    sa.UniqueConstraint('host', 'name', name=op.f('uq_services_host_name'))
    )
    op.create_table('strategies',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('display_name', sa.String(length=255), nullable=False),
    sa.Column('goal_id', sa.Integer(), nullable=False),
    sa.Column('parameters_spec', sa.JSON(), nullable=False),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.ForeignKeyConstraint(['goal_id'], ['goals.id'], name=op.f('fk_strategies_goal_id_goals')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_strategies')),
    sa.UniqueConstraint('name', name=op.f('uq_strategies_name')),
    sa.UniqueConstraint('uuid', name=op.f('uq_strategies_uuid'))
    )
    op.create_table('audit_templates',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('description', sa.String(length=255), nullable=True),
    sa.Column('goal_id', sa.Integer(), nullable=False),
    sa.Column('strategy_id', sa.Integer(), nullable=True),
    sa.Column('scope', sa.JSON(), nullable=False),
    sa.Column('default_parameters', sa.JSON(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.ForeignKeyConstraint(['goal_id'], ['goals.id'], name=op.f('fk_audit_templates_goal_id_goals')),
    sa.ForeignKeyConstraint(['strategy_id'], ['strategies.id'], name=op.f('fk_audit_templates_strategy_id_strategies')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_templates')),
    sa.UniqueConstraint('name', name=op.f('uq_audit_templates_name')),
    sa.UniqueConstraint('uuid', name=op.f('uq_audit_templates_uuid'))
    )
    op.create_table('audits',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('live_name', sa.String(length=63), sa.Computed("CASE WHEN state = 'DELETED' THEN NULL ELSE name END", persisted=True), nullable=True),
    sa.Column('audit_type', sa.String(length=20), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('parameters', sa.JSON(), nullable=False),
    sa.Column('interval', sa.String(length=64), nullable=True),
    sa.Column('goal_id', sa.Integer(), nullable=False),
    sa.Column('strategy_id', sa.Integer(), nullable=True),
    sa.Column('scope', sa.JSON(), nullable=False),
    sa.Column('auto_trigger', sa.Boolean(), nullable=False),
    sa.Column('next_run_time', TIMESTAMP, nullable=True),
    sa.Column('hostname', sa.String(length=255), nullable=True),
    sa.Column('start_time', TIMESTAMP, nullable=True),
    sa.Column('end_time', TIMESTAMP, nullable=True),
    sa.Column('force', sa.Boolean(), nullable=False),
    sa.Column('status_message', sa.Text(), nullable=True),
    sa.Column('deleted_at', TIMESTAMP, nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.ForeignKeyConstraint(['goal_id'], ['goals.id'], name=op.f('fk_audits_goal_id_goals')),
    sa.ForeignKeyConstraint(['strategy_id'], ['strategies.id'], name=op.f('fk_audits_strategy_id_strategies')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audits')),
    sa.UniqueConstraint('live_name', name=op.f('uq_audits_live_name')),
    sa.UniqueConstraint('uuid', name=op.f('uq_audits_uuid'))
    )
    with op.batch_alter_table('audits', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audits_state'), ['state'], unique=False)

    op.create_table('action_plans',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('audit_id', sa.Integer(), nullable=False),
    sa.Column('strategy_id', sa.Integer(), nullable=True),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('global_efficacy', sa.JSON(), nullable=False),
    sa.Column('hostname', sa.String(length=255), nullable=True),
    sa.Column('status_message', sa.Text(), nullable=True),
    sa.Column('deleted_at', TIMESTAMP, nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.ForeignKeyConstraint(['audit_id'], ['audits.id'], name=op.f('fk_action_plans_audit_id_audits')),
    sa.ForeignKeyConstraint(['strategy_id'], ['strategies.id'], name=op.f('fk_action_plans_strategy_id_strategies')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_action_plans')),
    sa.UniqueConstraint('uuid', name=op.f('uq_action_plans_uuid'))
    )
    with op.batch_alter_table('action_plans', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_action_plans_audit_id'), ['audit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_action_plans_state'), ['state'], unique=False)

    op.create_table('actions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('action_plan_id', sa.Integer(), nullable=False),
    sa.Column('action_type', sa.String(length=255), nullable=False),
    sa.Column('input_parameters', sa.JSON(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('parents', sa.JSON(), nullable=False),
    sa.Column('status_message', sa.Text(), nullable=True),
    sa.Column('deleted_at', TIMESTAMP, nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.ForeignKeyConstraint(['action_plan_id'], ['action_plans.id'], name=op.f('fk_actions_action_plan_id_action_plans')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_actions')),
    sa.UniqueConstraint('uuid', name=op.f('uq_actions_uuid'))
    )
    with op.batch_alter_table('actions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_actions_action_plan_id'), ['action_plan_id'], unique=False)

    op.create_table('efficacy_indicators',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('action_plan_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=63), nullable=False),
    sa.Column('description', sa.String(length=255), nullable=True),
    sa.Column('unit', sa.String(length=63), nullable=True),
    sa.Column('value', sa.Float(), nullable=True),
    sa.Column('created_at', TIMESTAMP, nullable=False),
    sa.Column('updated_at', TIMESTAMP, nullable=True),
    sa.ForeignKeyConstraint(['action_plan_id'], ['action_plans.id'], name=op.f('fk_efficacy_indicators_action_plan_id_action_plans'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_efficacy_indicators')),
    sa.UniqueConstraint('uuid', name=op.f('uq_efficacy_indicators_uuid'))
    )
    with op.batch_alter_table('efficacy_indicators', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_efficacy_indicators_action_plan_id'), ['action_plan_id'], unique=False)



def downgrade():
    # Dropping a table drops its indexes; MySQL refuses to drop an index a
    # foreign key still needs, so tables go whole, children first.
    for table in ('efficacy_indicators', 'actions', 'action_plans', 'audits',
                  'audit_templates', 'strategies', 'services',
                  'scoring_engines', 'goals'):
        op.drop_table(table)
