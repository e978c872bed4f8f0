"""Instance HA: failover segments, their hosts, host notifications, vmoves

Revision ID: 0008
Revises: 0007

The tables behind the Masakari-compatible API (instance-ha v1).
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                       'mariadb')


def _timestamps():
    return [sa.Column('created_at', TIMESTAMP, nullable=False),
            sa.Column('updated_at', TIMESTAMP, nullable=True)]


def upgrade():
    op.create_table(
        'failover_segments',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('service_type', sa.String(length=255), nullable=False),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('recovery_method', sa.String(length=255), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_failover_segments')),
        sa.UniqueConstraint('name', name=op.f('uq_failover_segments_name')),
        sa.UniqueConstraint('uuid', name=op.f('uq_failover_segments_uuid')))
    op.create_table(
        'segment_hosts',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('failover_segment_id', sa.Integer(), nullable=False),
        sa.Column('type', sa.String(length=255), nullable=False),
        sa.Column('control_attributes', sa.Text(), nullable=False),
        sa.Column('reserved', sa.Boolean(), nullable=False),
        sa.Column('on_maintenance', sa.Boolean(), nullable=False),
        sa.Column('claimed_by', sa.String(length=36), nullable=True),
        sa.Column('claimed_at', TIMESTAMP, nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(
            ['failover_segment_id'], ['failover_segments.id'],
            name=op.f('fk_segment_hosts_failover_segment_id_'
                      'failover_segments'),
            ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_segment_hosts')),
        sa.UniqueConstraint('name', name=op.f('uq_segment_hosts_name')),
        sa.UniqueConstraint('uuid', name=op.f('uq_segment_hosts_uuid')))
    with op.batch_alter_table('segment_hosts') as batch_op:
        batch_op.create_index(
            batch_op.f('ix_segment_hosts_failover_segment_id'),
            ['failover_segment_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_segment_hosts_claimed_by'),
                              ['claimed_by'], unique=False)
    op.create_table(
        'host_notifications',
        sa.Column('id', sa.Integer(), nullable=False),
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
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_host_notifications')),
        sa.UniqueConstraint(
            'notification_uuid',
            name=op.f('uq_host_notifications_notification_uuid')))
    with op.batch_alter_table('host_notifications') as batch_op:
        batch_op.create_index(
            'ix_host_notifications_source_generated',
            ['source_host_uuid', 'generated_time'], unique=False)
        batch_op.create_index(
            batch_op.f('ix_host_notifications_failover_segment_uuid'),
            ['failover_segment_uuid'], unique=False)
        batch_op.create_index(
            batch_op.f('ix_host_notifications_status'), ['status'],
            unique=False)
    op.create_table(
        'vmoves',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
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
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_vmoves')),
        sa.UniqueConstraint(
            'notification_uuid', 'instance_uuid',
            name=op.f('uq_vmoves_notification_uuid_instance_uuid')),
        sa.UniqueConstraint('uuid', name=op.f('uq_vmoves_uuid')))


def downgrade():
    for table in ('vmoves', 'host_notifications', 'segment_hosts',
                  'failover_segments'):
        op.drop_table(table)
