"""Initial schema

Revision ID: 0001
Revises:
"""

from alembic import op
import sqlalchemy as sa

from watcher_ha.db.migrations.table_parts import column_index
from watcher_ha.db.migrations.table_parts import foreign_key
from watcher_ha.db.migrations.table_parts import id_column
from watcher_ha.db.migrations.table_parts import primary_key
from watcher_ha.db.migrations.table_parts import TIMESTAMP
from watcher_ha.db.migrations.table_parts import timestamps
from watcher_ha.db.migrations.table_parts import unique
from watcher_ha.db.migrations.table_parts import uuid_column

revision = '0001'
down_revision = None


def _create_named_table(table, columns, constraints=()):
    """A table of things found by name or uuid (goals, scoring engines,
    strategies, audit templates): id, uuid and a unique name first, the
    timestamps last."""
    op.create_table(
        table, id_column(), uuid_column(),
        sa.Column('name', sa.String(length=63), nullable=False),
        *columns, *timestamps(), *constraints,
        primary_key(table), unique(table, 'name'), unique(table, 'uuid'))


def _goal_and_strategy():
    """The goal an audit or audit template aims at, and the strategy it
    may name."""
    return [sa.Column('goal_id', sa.Integer(), nullable=False),
            sa.Column('strategy_id', sa.Integer(), nullable=True)]


def _archivable():
    """What an audit, action plan or action ends with: why it is in its
    state, when it was archived, the version every UPDATE compares, then
    the timestamps."""
    return [sa.Column('status_message', sa.Text(), nullable=True),
            sa.Column('deleted_at', TIMESTAMP, nullable=True),
            sa.Column('version', sa.Integer(), nullable=False),
            *timestamps()]


def upgrade():
    _create_named_table(
        'goals',
        [sa.Column('display_name', sa.String(length=255), nullable=False),
         sa.Column('efficacy_specification', sa.JSON(), nullable=False)])
    _create_named_table(
        'scoring_engines',
        [sa.Column('description', sa.String(length=255), nullable=True),
         sa.Column('metainfo', sa.Text(), nullable=True)])
    op.create_table(
        'services', id_column(),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('last_seen_up', TIMESTAMP, nullable=True),
        *timestamps(),
        primary_key('services'), unique('services', 'host', 'name'))
    _create_named_table(
        'strategies',
        [sa.Column('display_name', sa.String(length=255), nullable=False),
         sa.Column('goal_id', sa.Integer(), nullable=False),
         sa.Column('parameters_spec', sa.JSON(), nullable=False)],
        [foreign_key('strategies', 'goal_id', 'goals')])
    _create_named_table(
        'audit_templates',
        [sa.Column('description', sa.String(length=255), nullable=True),
         *_goal_and_strategy(),
         sa.Column('scope', sa.JSON(), nullable=False),
         sa.Column('default_parameters', sa.JSON(), nullable=False),
         sa.Column('version', sa.Integer(), nullable=False)],
        [foreign_key('audit_templates', 'goal_id', 'goals'),
         foreign_key('audit_templates', 'strategy_id', 'strategies')])
    op.create_table(
        'audits', id_column(), uuid_column(),
        sa.Column('name', sa.String(length=63), nullable=False),
        # The name is unique among the audits not deleted.
        sa.Column('live_name', sa.String(length=63),
                  sa.Computed("CASE WHEN state = 'DELETED' THEN NULL "
                              "ELSE name END", persisted=True),
                  nullable=True),
        sa.Column('audit_type', sa.String(length=20), nullable=False),
        sa.Column('state', sa.String(length=20), nullable=False),
        sa.Column('parameters', sa.JSON(), nullable=False),
        sa.Column('interval', sa.String(length=64), nullable=True),
        *_goal_and_strategy(),
        sa.Column('scope', sa.JSON(), nullable=False),
        sa.Column('auto_trigger', sa.Boolean(), nullable=False),
        sa.Column('next_run_time', TIMESTAMP, nullable=True),
        sa.Column('hostname', sa.String(length=255), nullable=True),
        sa.Column('start_time', TIMESTAMP, nullable=True),
        sa.Column('end_time', TIMESTAMP, nullable=True),
        sa.Column('force', sa.Boolean(), nullable=False),
        *_archivable(),
        foreign_key('audits', 'goal_id', 'goals'),
        foreign_key('audits', 'strategy_id', 'strategies'),
        primary_key('audits'), unique('audits', 'live_name'),
        unique('audits', 'uuid'))
    with op.batch_alter_table('audits', schema=None) as batch_op:
        column_index(batch_op, 'audits', 'state')

    op.create_table(
        'action_plans', id_column(), uuid_column(),
        sa.Column('audit_id', sa.Integer(), nullable=False),
        sa.Column('strategy_id', sa.Integer(), nullable=True),
        sa.Column('state', sa.String(length=20), nullable=False),
        sa.Column('global_efficacy', sa.JSON(), nullable=False),
        sa.Column('hostname', sa.String(length=255), nullable=True),
        *_archivable(),
        foreign_key('action_plans', 'audit_id', 'audits'),
        foreign_key('action_plans', 'strategy_id', 'strategies'),
        primary_key('action_plans'), unique('action_plans', 'uuid'))
    with op.batch_alter_table('action_plans', schema=None) as batch_op:
        column_index(batch_op, 'action_plans', 'audit_id')
        column_index(batch_op, 'action_plans', 'state')

    op.create_table(
        'actions', id_column(), uuid_column(),
        sa.Column('action_plan_id', sa.Integer(), nullable=False),
        sa.Column('action_type', sa.String(length=255), nullable=False),
        sa.Column('input_parameters', sa.JSON(), nullable=False),
        sa.Column('state', sa.String(length=20), nullable=False),
        sa.Column('parents', sa.JSON(), nullable=False),
        *_archivable(),
        foreign_key('actions', 'action_plan_id', 'action_plans'),
        primary_key('actions'), unique('actions', 'uuid'))
    with op.batch_alter_table('actions', schema=None) as batch_op:
        column_index(batch_op, 'actions', 'action_plan_id')

    op.create_table(
        'efficacy_indicators', id_column(), uuid_column(),
        sa.Column('action_plan_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=63), nullable=False),
        sa.Column('description', sa.String(length=255), nullable=True),
        sa.Column('unit', sa.String(length=63), nullable=True),
        sa.Column('value', sa.Float(), nullable=True),
        *timestamps(),
        foreign_key('efficacy_indicators', 'action_plan_id', 'action_plans',
                    ondelete='CASCADE'),
        primary_key('efficacy_indicators'),
        unique('efficacy_indicators', 'uuid'))
    with op.batch_alter_table('efficacy_indicators', schema=None) as batch_op:
        column_index(batch_op, 'efficacy_indicators', 'action_plan_id')


def downgrade():
    # Dropping a table drops its indexes; MySQL refuses to drop an index a
    # foreign key still needs, so tables go whole, children first.
    for table in ('efficacy_indicators', 'actions', 'action_plans', 'audits',
                  'audit_templates', 'strategies', 'services',
                  'scoring_engines', 'goals'):
        op.drop_table(table)
