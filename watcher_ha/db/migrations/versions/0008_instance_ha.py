"""Instance HA: failover segments, their hosts, host notifications, vmoves

Revision ID: 0008
Revises: 0007

The tables behind the Masakari-compatible API (instance-ha v1).
"""

from alembic import op
import sqlalchemy as sa

from watcher_ha.db.migrations.table_parts import column_index
from watcher_ha.db.migrations.table_parts import foreign_key
from watcher_ha.db.migrations.table_parts import id_column
from watcher_ha.db.migrations.table_parts import primary_key
from watcher_ha.db.migrations.table_parts import TIMESTAMP
from watcher_ha.db.migrations.table_parts import timestamps
from watcher_ha.db.migrations.table_parts import unique
from watcher_ha.db.migrations.table_parts import uuid_column

revision = '0008'
down_revision = '0007'


def upgrade():
    op.create_table(
        'failover_segments', id_column(), uuid_column(),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('service_type', sa.String(length=255), nullable=False),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('recovery_method', sa.String(length=255), nullable=False),
        *timestamps(),
        primary_key('failover_segments'), unique('failover_segments', 'name'),
        unique('failover_segments', 'uuid'))
    op.create_table(
        'segment_hosts', id_column(), uuid_column(),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('failover_segment_id', sa.Integer(), nullable=False),
        sa.Column('type', sa.String(length=255), nullable=False),
        sa.Column('control_attributes', sa.Text(), nullable=False),
        sa.Column('reserved', sa.Boolean(), nullable=False),
        sa.Column('on_maintenance', sa.Boolean(), nullable=False),
        sa.Column('claimed_by', sa.String(length=36), nullable=True),
        sa.Column('claimed_at', TIMESTAMP, nullable=True),
        *timestamps(),
        foreign_key('segment_hosts', 'failover_segment_id',
                    'failover_segments', ondelete='CASCADE'),
        primary_key('segment_hosts'), unique('segment_hosts', 'name'),
        unique('segment_hosts', 'uuid'))
    with op.batch_alter_table('segment_hosts') as batch_op:
        column_index(batch_op, 'segment_hosts', 'failover_segment_id')
        column_index(batch_op, 'segment_hosts', 'claimed_by')
    op.create_table(
        'host_notifications', id_column(),
        sa.Column('notification_uuid', sa.String(length=36), nullable=False),
        sa.Column('generated_time', TIMESTAMP, nullable=False),
        sa.Column('type', sa.String(length=20), nullable=False),
        sa.Column('payload', sa.JSON(), nullable=False),
        sa.Column('source_host_uuid', sa.String(length=36), nullable=False),
        sa.Column('failover_segment_uuid', sa.String(length=36),
                  nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('message', sa.Text(), nullable=True),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('hostname', sa.String(length=255), nullable=True),
        sa.Column('recovery_audit_uuid', sa.String(length=36),
                  nullable=True),
        sa.Column('attempts', sa.Integer(), nullable=False),
        *timestamps(),
        primary_key('host_notifications'),
        unique('host_notifications', 'notification_uuid'))
    with op.batch_alter_table('host_notifications') as batch_op:
        batch_op.create_index(
            'ix_host_notifications_source_generated',
            ['source_host_uuid', 'generated_time'], unique=False)
        column_index(batch_op, 'host_notifications', 'failover_segment_uuid')
        column_index(batch_op, 'host_notifications', 'status')
    op.create_table(
        'vmoves', id_column(), uuid_column(),
        sa.Column('notification_uuid', sa.String(length=36), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('instance_name', sa.String(length=255), nullable=True),
        sa.Column('source_host', sa.String(length=255), nullable=True),
        sa.Column('dest_host', sa.String(length=255), nullable=True),
        sa.Column('start_time', TIMESTAMP, nullable=True),
        sa.Column('end_time', TIMESTAMP, nullable=True),
        sa.Column('type', sa.String(length=20), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('message', sa.Text(), nullable=True),
        *timestamps(),
        primary_key('vmoves'),
        unique('vmoves', 'notification_uuid', 'instance_uuid'),
        unique('vmoves', 'uuid'))


def downgrade():
    for table in ('vmoves', 'host_notifications', 'segment_hosts',
                  'failover_segments'):
        op.drop_table(table)
