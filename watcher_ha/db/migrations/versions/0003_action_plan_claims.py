"""Action plan claims: the resources a started plan holds

Revision ID: 0003
Revises: 0002
"""

from alembic import op
import sqlalchemy as sa

from watcher_ha.db.migrations.table_parts import TIMESTAMP

revision = '0003'
down_revision = '0002'


def upgrade():
    op.create_table(
        'action_plan_claims',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('resource_type', sa.String(length=36), nullable=False),
        sa.Column('resource_id', sa.String(length=255), nullable=False),
        sa.Column('action_plan_id', sa.Integer(), nullable=False),
        sa.Column('created_at', TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(
            ['action_plan_id'], ['action_plans.id'],
            name=op.f('fk_action_plan_claims_action_plan_id_action_plans'),
            ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_action_plan_claims')),
        sa.UniqueConstraint(
            'resource_type', 'resource_id',
            name=op.f('uq_action_plan_claims_resource_type_resource_id')))
    with op.batch_alter_table('action_plan_claims') as batch_op:
        batch_op.create_index(
            batch_op.f('ix_action_plan_claims_action_plan_id'),
            ['action_plan_id'], unique=False)


def downgrade():
    op.drop_table('action_plan_claims')
