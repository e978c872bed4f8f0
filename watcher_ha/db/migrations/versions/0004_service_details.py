"""Services: what a daemon reported with its last heartbeat

Revision ID: 0004
Revises: 0003
"""

from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('services') as batch_op:
        batch_op.add_column(sa.Column('details', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('services') as batch_op:
        batch_op.drop_column('details')
