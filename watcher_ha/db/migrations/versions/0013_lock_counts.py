"""Locks Galera certifies: a lock count on the rows transactions lock

Revision ID: 0013
Revises: 0012

Internal (shown by no API):
- failover_segments.lock_count and action_plans.lock_count, bumped by
  every lock of the row (db/transitions.lock). A lock that changed
  nothing (SELECT ... FOR UPDATE, or an UPDATE that writes what is
  there) holds on the node that ran it only: on a Galera cluster, two
  transactions of two nodes both held it, and two reports of one failure
  were both recorded. A lock that changes the row is a write the other
  nodes certify: the second of two such transactions to commit fails,
  and is run again.
"""

from alembic import op
import sqlalchemy as sa

revision = '0013'
down_revision = '0012'

TABLES = ('failover_segments', 'action_plans')


def upgrade():
    for table in TABLES:
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(sa.Column('lock_count', sa.Integer(),
                                          nullable=False,
                                          server_default='0'))


def downgrade():
    for table in TABLES:
        # No batch: SQLite drops a column in place (see 0005).
        op.drop_column(table, 'lock_count')
