"""Action plans: the continuous audit's round each one closes, and the
decision engine that computed it

Revision ID: 0005
Revises: 0004

Both columns are internal (neither the API nor the notifications show
them). A unique index, not a constraint, so that SQLite adds it in place
instead of copying action_plans (which other tables reference); it refuses
a second plan for one round the same way on every database, and the NULL
round of one-shot and event plans never collides.
"""

from alembic import op
import sqlalchemy as sa

from watcher_ha.db.migrations.table_parts import TIMESTAMP

revision = '0005'
down_revision = '0004'


def upgrade():
    with op.batch_alter_table('action_plans') as batch_op:
        batch_op.add_column(sa.Column('audit_round', TIMESTAMP,
                                      nullable=True))
        batch_op.add_column(sa.Column('planned_by', sa.String(255),
                                      nullable=True))
        batch_op.create_index('uq_action_plans_audit_id_audit_round',
                              ['audit_id', 'audit_round'], unique=True)


def downgrade():
    # No batch: SQLite (3.35 and later) drops a column in place, where a
    # batch would copy the table and cascade its deletion to the rows
    # that reference it.
    op.drop_index('uq_action_plans_audit_id_audit_round',
                  table_name='action_plans')
    op.drop_column('action_plans', 'planned_by')
    op.drop_column('action_plans', 'audit_round')
