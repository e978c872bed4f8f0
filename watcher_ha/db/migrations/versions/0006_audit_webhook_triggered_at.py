"""Audits: when a webhook last triggered the audit

Revision ID: 0006
Revises: 0005

Internal (neither the API nor the notifications show it): public webhooks
may trigger an audit at most once every [api] public_webhook_min_interval
seconds, counted from this column so that every API worker agrees.
"""

from alembic import op
import sqlalchemy as sa

from watcher_ha.db.migrations.table_parts import TIMESTAMP

revision = '0006'
down_revision = '0005'


def upgrade():
    with op.batch_alter_table('audits') as batch_op:
        batch_op.add_column(
            sa.Column('webhook_triggered_at', TIMESTAMP, nullable=True))


def downgrade():
    # No batch: SQLite (3.35 and later) drops a column in place, where a
    # batch would copy the table and cascade its deletion to the action
    # plans that reference it.
    op.drop_column('audits', 'webhook_triggered_at')
