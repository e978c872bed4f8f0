"""The pieces of table definitions that the revisions share.

Frozen like the revisions themselves: a revision must build the same
schema forever, so nothing here changes once a revision uses it; a piece
that must differ gets a new name. Nothing here reads the live models.
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

# Microseconds survive on MySQL/MariaDB only when asked for.
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                       'mariadb')


def id_column():
    """The integer surrogate key every table starts with."""
    return sa.Column('id', sa.Integer(), nullable=False)


def uuid_column():
    """The public identity of a row the API shows."""
    return sa.Column('uuid', sa.String(length=36), nullable=False)


def timestamps():
    """When the row was created and last updated, the last columns."""
    return [sa.Column('created_at', TIMESTAMP, nullable=False),
            sa.Column('updated_at', TIMESTAMP, nullable=True)]


def primary_key(table):
    return sa.PrimaryKeyConstraint('id', name=op.f('pk_%s' % table))


def unique(table, *columns):
    """A unique constraint named by the naming convention."""
    return sa.UniqueConstraint(
        *columns, name=op.f('uq_%s_%s' % (table, '_'.join(columns))))


def foreign_key(table, column, target, **options):
    """A foreign key from ``column`` to ``target``.id, named by the naming
    convention."""
    return sa.ForeignKeyConstraint(
        [column], ['%s.id' % target],
        name=op.f('fk_%s_%s_%s' % (table, column, target)), **options)


def column_index(batch_op, table, column):
    """A plain index on one column, named by the naming convention."""
    batch_op.create_index(batch_op.f('ix_%s_%s' % (table, column)),
                          [column], unique=False)
