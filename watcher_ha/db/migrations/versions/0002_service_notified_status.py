"""Services: the status last announced in a service.update notification

Revision ID: 0002
Revises: 0001

Internal (the API shows no such field): the decision engine that moves it
(compare-and-swap) is the one that sends the notification.
"""

from alembic import op
import sqlalchemy as sa

revision = '0002'
down_revision = '0001'


def upgrade():
    with op.batch_alter_table('services') as batch_op:
        batch_op.add_column(sa.Column('notified_status', sa.String(20),
                                      nullable=False,
                                      server_default='ACTIVE'))


def downgrade():
    with op.batch_alter_table('services') as batch_op:
        batch_op.drop_column('notified_status')
