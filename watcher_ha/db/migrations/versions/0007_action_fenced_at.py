"""Actions: when their applier last passed its fence

Revision ID: 0007
Revises: 0006

Internal (neither the API nor the notifications show it): the time the
applier running an action last checked, just before a call to the cloud,
that it still owned the action's plan. An applier that adopts the plan
waits until a call let through then has had time to land.
"""

from alembic import op
import sqlalchemy as sa

from watcher_ha.db.migrations.table_parts import TIMESTAMP

revision = '0007'
down_revision = '0006'


def upgrade():
    with op.batch_alter_table('actions') as batch_op:
        batch_op.add_column(sa.Column('fenced_at', TIMESTAMP, nullable=True))


def downgrade():
    # No batch: SQLite drops a column in place (see 0005).
    op.drop_column('actions', 'fenced_at')
