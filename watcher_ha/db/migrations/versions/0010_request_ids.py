"""Audits and action plans: the API request behind them

Revision ID: 0010
Revises: 0009

Internal (neither the API nor the notifications show them), for the logs:
- audits.request_id: the request id of the API request that created the
  audit;
- action_plans.request_id: that of the request that started the plan
  (its audit's while it is not started, and under auto_trigger).
Every daemon working on the audit or the plan logs under that request id,
whichever daemon it is and whatever made it pick the work up.
"""

from alembic import op
import sqlalchemy as sa

revision = '0010'
down_revision = '0009'

REQUEST_ID_LEN = 64


def upgrade():
    for table in ('audits', 'action_plans'):
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(sa.Column(
                'request_id', sa.String(REQUEST_ID_LEN), nullable=True))


def downgrade():
    # No batch: SQLite drops a column in place, where a batch would copy
    # the table and cascade its deletion to the rows referencing it (see
    # 0006).
    op.drop_column('action_plans', 'request_id')
    op.drop_column('audits', 'request_id')
