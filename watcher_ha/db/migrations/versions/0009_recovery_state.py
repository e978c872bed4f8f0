"""Instance HA: what a recovery must remember to undo or finish its work

Revision ID: 0009
Revises: 0008

Internal (the instance-ha API shows neither):
- segment_hosts.joined_aggregates: the ids of the host aggregates a
  recovery put its claimed reserved host in ([instance_ha]
  add_reserved_host_to_aggregate), for the host to leave them if it goes
  back to the pool unused;
- vmoves.was_running: whether the server ran when its evacuation began,
  for an applier taking the recovery over to start it again if its
  evacuation (which leaves it stopped) ended without that.
"""

from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'


def upgrade():
    with op.batch_alter_table('segment_hosts') as batch_op:
        batch_op.add_column(sa.Column('joined_aggregates', sa.JSON(),
                                      nullable=True))
    with op.batch_alter_table('vmoves') as batch_op:
        batch_op.add_column(sa.Column('was_running', sa.Boolean(),
                                      nullable=True))


def downgrade():
    # No batch: SQLite drops a column in place (see 0005).
    op.drop_column('vmoves', 'was_running')
    op.drop_column('segment_hosts', 'joined_aggregates')
