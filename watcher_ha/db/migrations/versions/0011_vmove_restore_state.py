"""Instance HA: the state each evacuated server comes back in

Revision ID: 0011
Revises: 0010

Internal (the instance-ha API does not show it):
- vmoves.restore_state: the state the server ends in on its new host,
  decided when its evacuation began, as Masakari leaves it: 'active'
  (started again), 'stopped', or 'error' (stopped, then reset to error).
  It replaces vmoves.was_running, which told only 'active' from
  'stopped': a server found in error, paused, suspended or waiting for
  its resize to be confirmed is reset and evacuated now, and an applier
  taking its recovery over must know where it is to end.
"""

from alembic import op
import sqlalchemy as sa

revision = '0011'
down_revision = '0010'

STATE_LEN = 20


def upgrade():
    with op.batch_alter_table('vmoves') as batch_op:
        batch_op.add_column(sa.Column('restore_state', sa.String(STATE_LEN),
                                      nullable=True))
    vmoves = sa.table('vmoves', sa.column('was_running', sa.Boolean()),
                      sa.column('restore_state', sa.String(STATE_LEN)))
    op.execute(vmoves.update().values(restore_state=sa.case(
        (vmoves.c.was_running.is_(True), 'active'),
        (vmoves.c.was_running.is_(False), 'stopped'),
        else_=None)))
    # No batch: SQLite drops a column in place (see 0005).
    op.drop_column('vmoves', 'was_running')


def downgrade():
    with op.batch_alter_table('vmoves') as batch_op:
        batch_op.add_column(sa.Column('was_running', sa.Boolean(),
                                      nullable=True))
    vmoves = sa.table('vmoves', sa.column('was_running', sa.Boolean()),
                      sa.column('restore_state', sa.String(STATE_LEN)))
    op.execute(vmoves.update().values(was_running=sa.case(
        (vmoves.c.restore_state.is_(None), None),
        else_=vmoves.c.restore_state == 'active')))
    op.drop_column('vmoves', 'restore_state')
