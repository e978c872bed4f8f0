"""Services: what a daemon reported with its last heartbeat

Revision ID: 0004
Revises: 0003

A decision engine reports its data models' generation and when they were
last fed; the API shows them as the service's data_models.
"""

from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'


def upgrade():
    with op.batch_alter_table('services') as batch_op:
        batch_op.add_column(sa.Column('details', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('services') as batch_op:
        batch_op.drop_column('details')
