"""The SQL schema: one typed SQLAlchemy model per table.

Rows that a user deletes through the API and that have a life cycle
(audits, action plans, actions) are archived in state DELETED with
``deleted_at`` set, and removed for good by ``watcher-ha-db-manage purge``.
Everything else is deleted outright.
"""

import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy import orm

UUID_LEN = 36
NAME_LEN = 63
HOST_LEN = 255
STATE_LEN = 20
# oslo.context's 'req-' and a UUID, with room to spare.
REQUEST_ID_LEN = 64

# MySQL/MariaDB drop microseconds unless the precision is asked for.
Timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql',
                                       'mariadb')


def utcnow():
    """Naive UTC: what every timestamp column stores."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def as_dict(row):
    """The mapped columns of an ORM object, as {attribute: value}."""
    return {attr.key: getattr(row, attr.key)
            for attr in sa.inspect(row).mapper.column_attrs}


class Base(orm.DeclarativeBase):
    # Deterministic constraint names, the same on every database.
    metadata = sa.MetaData(naming_convention={
        'ix': 'ix_%(table_name)s_%(column_0_N_name)s',
        'uq': 'uq_%(table_name)s_%(column_0_N_name)s',
        'fk': 'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s',
        'pk': 'pk_%(table_name)s',
        'ck': 'ck_%(table_name)s_%(constraint_name)s',
    })
    type_annotation_map = {
        dict[str, Any]: sa.JSON,
        dict[str, Any] | None: sa.JSON,
        list[Any]: sa.JSON,
        list[Any] | None: sa.JSON,
        datetime.datetime: Timestamp,
    }


class IdentityMixin:
    """The integer primary key and the UUID the API shows, first."""
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True, sort_order=-2)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(UUID_LEN),
                                              unique=True, sort_order=-1)


class TimestampMixin:
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        default=utcnow)
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        onupdate=utcnow)


class ArchivableMixin(TimestampMixin):
    deleted_at: orm.Mapped[datetime.datetime | None]
    # Optimistic concurrency: every UPDATE compares and bumps it.
    version: orm.Mapped[int] = orm.mapped_column(default=1)


class Goal(IdentityMixin, TimestampMixin, Base):
    __tablename__ = 'goals'
    name: orm.Mapped[str] = orm.mapped_column(sa.String(NAME_LEN),
                                              unique=True)
    display_name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    efficacy_specification: orm.Mapped[list[Any]]


class Strategy(IdentityMixin, TimestampMixin, Base):
    __tablename__ = 'strategies'
    name: orm.Mapped[str] = orm.mapped_column(sa.String(NAME_LEN),
                                              unique=True)
    display_name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    goal_id: orm.Mapped[int] = orm.mapped_column(sa.ForeignKey('goals.id'))
    parameters_spec: orm.Mapped[dict[str, Any]]


class ScoringEngine(IdentityMixin, TimestampMixin, Base):
    __tablename__ = 'scoring_engines'
    name: orm.Mapped[str] = orm.mapped_column(sa.String(NAME_LEN),
                                              unique=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    metainfo: orm.Mapped[str | None] = orm.mapped_column(sa.Text)


class AuditTemplate(IdentityMixin, TimestampMixin, Base):
    __tablename__ = 'audit_templates'
    name: orm.Mapped[str] = orm.mapped_column(sa.String(NAME_LEN),
                                              unique=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    goal_id: orm.Mapped[int] = orm.mapped_column(sa.ForeignKey('goals.id'))
    strategy_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('strategies.id'))
    scope: orm.Mapped[list[Any]]
    default_parameters: orm.Mapped[dict[str, Any]]
    version: orm.Mapped[int] = orm.mapped_column(default=1)


class Audit(IdentityMixin, ArchivableMixin, Base):
    __tablename__ = 'audits'
    name: orm.Mapped[str] = orm.mapped_column(sa.String(NAME_LEN))
    # Names are unique among audits that are not archived; the database
    # derives this column so that no writer can forget it.
    live_name: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(NAME_LEN),
        sa.Computed("CASE WHEN state = 'DELETED' THEN NULL ELSE name END",
                    persisted=True),
        unique=True)
    audit_type: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN))
    state: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN),
                                               index=True)
    parameters: orm.Mapped[dict[str, Any]]
    interval: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    goal_id: orm.Mapped[int] = orm.mapped_column(sa.ForeignKey('goals.id'))
    strategy_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('strategies.id'))
    scope: orm.Mapped[list[Any]]
    auto_trigger: orm.Mapped[bool] = orm.mapped_column(default=False)
    next_run_time: orm.Mapped[datetime.datetime | None]
    hostname: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(HOST_LEN))
    start_time: orm.Mapped[datetime.datetime | None]
    end_time: orm.Mapped[datetime.datetime | None]
    force: orm.Mapped[bool] = orm.mapped_column(default=False)
    status_message: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # The last webhook trigger: public webhooks may not trigger again
    # sooner than [api] public_webhook_min_interval after it.
    webhook_triggered_at: orm.Mapped[datetime.datetime | None]
    # Internal: the API request that created the audit, shown on every
    # log line of the daemons working on it (common/tracing.py).
    request_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(REQUEST_ID_LEN))


# Audit pipelines (watcher-specs audit-pipeline.rst, "Data model
# impact"): the spec's columns, with this house's archive (state DELETED,
# ``deleted_at``) instead of soft delete, and JSON columns for what the
# spec stores as JSON-encoded text.
STATUS_MESSAGE_LEN = 255


class AuditPipeline(IdentityMixin, ArchivableMixin, Base):
    """An ordered cascade of audit templates (stages) planned into one
    action plan."""
    __tablename__ = 'audit_pipelines'
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(NAME_LEN))
    # Names are unique among pipelines that are not archived (the spec's
    # unique (name, deleted)); NULL names never collide.
    live_name: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(NAME_LEN),
        sa.Computed("CASE WHEN state = 'DELETED' THEN NULL ELSE name END",
                    persisted=True),
        unique=True)
    execution_mode: orm.Mapped[str] = orm.mapped_column(
        sa.String(STATE_LEN))
    state: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN),
                                               index=True)
    audit_type: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN))
    auto_trigger: orm.Mapped[bool] = orm.mapped_column(default=True)
    hostname: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(HOST_LEN))
    status_message: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(STATUS_MESSAGE_LEN))
    # Internal. When its planning was asked for (at creation under
    # auto_trigger, else by start): a sweep takes only PENDING pipelines
    # that were, whose message was lost.
    triggered_at: orm.Mapped[datetime.datetime | None]
    # Internal. When an operator asked to cancel it while ONGOING: its
    # engine ends it CANCELLED between two stages, or instead of storing
    # its plan.
    cancel_requested_at: orm.Mapped[datetime.datetime | None]
    # Internal: the API request that created it (common/tracing.py).
    request_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(REQUEST_ID_LEN))


class AuditPipelineStage(IdentityMixin, TimestampMixin, Base):
    """One stage of a pipeline: what its audit template said when the
    pipeline was made (later edits of the template change nothing)."""
    __tablename__ = 'audit_pipeline_stages'
    __table_args__ = (sa.UniqueConstraint('audit_pipeline_id', 'position'),)
    audit_pipeline_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('audit_pipelines.id', ondelete='CASCADE'))
    position: orm.Mapped[int]
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(NAME_LEN))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # Traceability only: NULL once the template is deleted.
    source_audit_template_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('audit_templates.id', ondelete='SET NULL'))
    goal_id: orm.Mapped[int] = orm.mapped_column(sa.ForeignKey('goals.id'))
    strategy_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('strategies.id'))
    scope: orm.Mapped[list[Any] | None]
    parameters: orm.Mapped[dict[str, Any] | None]


class ActionPlan(IdentityMixin, ArchivableMixin, Base):
    __tablename__ = 'action_plans'
    __table_args__ = (
        # One plan per round of a continuous audit, whatever the engines
        # believe; NULL rounds (one-shot and event plans) never collide.
        sa.Index('uq_action_plans_audit_id_audit_round', 'audit_id',
                 'audit_round', unique=True),
        # Made by an audit or by an audit pipeline, never both.
        sa.CheckConstraint(
            '(audit_id IS NULL) <> (audit_pipeline_id IS NULL)',
            name='one_origin'),
    )
    audit_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('audits.id'), index=True)
    audit_pipeline_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('audit_pipelines.id'), index=True)
    strategy_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('strategies.id'))
    state: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN),
                                               index=True)
    global_efficacy: orm.Mapped[list[Any]]
    hostname: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(HOST_LEN))
    status_message: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # Internal, shown by neither the API nor the notifications. The due
    # time of the continuous audit's round the plan closed (the audit's
    # next_run_time the round was read with, its created_at for the first
    # round); NULL for one-shot and event audits.
    audit_round: orm.Mapped[datetime.datetime | None]
    # The decision engine (host) that computed and stored the plan.
    planned_by: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(HOST_LEN))
    # Internal: the request that started the plan (an operator's, or its
    # audit's under auto_trigger; its audit's until started), shown on
    # every log line of the daemons working on it (common/tracing.py).
    request_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(REQUEST_ID_LEN))
    # Internal: bumped by every lock of the row (db/transitions.lock):
    # a lock is a write, which a Galera cluster certifies across nodes.
    lock_count: orm.Mapped[int] = orm.mapped_column(default=0,
                                                    server_default='0')


class Action(IdentityMixin, ArchivableMixin, Base):
    __tablename__ = 'actions'
    action_plan_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('action_plans.id'), index=True)
    action_type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    input_parameters: orm.Mapped[dict[str, Any]]
    state: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN))
    parents: orm.Mapped[list[Any]]
    status_message: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # The pipeline stage whose strategy proposed it (NULL for an audit's).
    audit_pipeline_stage_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('audit_pipeline_stages.id', ondelete='SET NULL'))
    # Internal. When the applier running the action last passed its fence
    # (its ownership checked just before a call to the cloud): an applier
    # that adopts the plan waits until a call let through then has
    # landed before it looks at the cloud (applier/fencing.py).
    fenced_at: orm.Mapped[datetime.datetime | None]


class EfficacyIndicator(IdentityMixin, TimestampMixin, Base):
    __tablename__ = 'efficacy_indicators'
    action_plan_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('action_plans.id', ondelete='CASCADE'), index=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(NAME_LEN))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    unit: orm.Mapped[str | None] = orm.mapped_column(sa.String(63))
    value: orm.Mapped[float | None] = orm.mapped_column(sa.Float)


class Service(TimestampMixin, Base):
    __tablename__ = 'services'
    __table_args__ = (sa.UniqueConstraint('host', 'name'),)
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    host: orm.Mapped[str] = orm.mapped_column(sa.String(HOST_LEN))
    last_seen_up: orm.Mapped[datetime.datetime | None]
    # The status last announced with a service.update notification; the
    # engine that moves it (compare-and-swap) is the one that announces.
    notified_status: orm.Mapped[str] = orm.mapped_column(
        sa.String(STATE_LEN), default='ACTIVE', server_default='ACTIVE')
    # What the daemon reported with its last heartbeat (a decision
    # engine: its data models' generation and when they were last fed).
    details: orm.Mapped[dict[str, Any] | None]


class PlanHold(Base):
    """A resource (a server, a compute node, a volume) held by a started
    action plan: the unique key lets one plan at a time hold it."""
    # The table keeps its first name.
    __tablename__ = 'action_plan_claims'
    __table_args__ = (sa.UniqueConstraint('resource_type', 'resource_id'),)
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    resource_type: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    resource_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    action_plan_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('action_plans.id', ondelete='CASCADE'), index=True)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        default=utcnow)


# Instance HA (the Masakari API v1). Masakari's columns and names, with
# hard deletes: a deleted segment takes its hosts with it, and notifications
# and their server moves stay as the record of what happened.

class FailoverSegment(IdentityMixin, TimestampMixin, Base):
    """A group of compute hosts whose servers fail over to one another."""
    __tablename__ = 'failover_segments'
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    service_type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    recovery_method: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    # Internal: bumped by every lock of the row (db/transitions.lock):
    # a lock is a write, which a Galera cluster certifies across nodes.
    lock_count: orm.Mapped[int] = orm.mapped_column(default=0,
                                                    server_default='0')


class SegmentHost(IdentityMixin, TimestampMixin, Base):
    """A compute host of a failover segment (Masakari's ``hosts``)."""
    __tablename__ = 'segment_hosts'
    # A host belongs to one segment at most: names are unique overall.
    name: orm.Mapped[str] = orm.mapped_column(sa.String(HOST_LEN),
                                              unique=True)
    failover_segment_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('failover_segments.id', ondelete='CASCADE'),
        index=True)
    type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    control_attributes: orm.Mapped[str] = orm.mapped_column(sa.Text)
    reserved: orm.Mapped[bool] = orm.mapped_column(default=False)
    on_maintenance: orm.Mapped[bool] = orm.mapped_column(default=False)
    # Internal. The recovery (its notification) that took this reserved
    # host, while it runs (db/reserved_hosts.py).
    claimed_by: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(UUID_LEN), index=True)
    claimed_at: orm.Mapped[datetime.datetime | None]
    # Internal. The ids of the host aggregates the claiming recovery put
    # the host in, to leave if it goes back to the pool unused.
    joined_aggregates: orm.Mapped[list[Any] | None]


class HostNotification(TimestampMixin, Base):
    """A failure reported by a monitor (Masakari's ``notifications``)."""
    __tablename__ = 'host_notifications'
    __table_args__ = (
        # Duplicates are looked for among a host's recent reports.
        sa.Index('ix_host_notifications_source_generated',
                 'source_host_uuid', 'generated_time'),
    )
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    # Masakari's column names; the names every row with a life cycle has
    # here (db/transitions.py).
    uuid: orm.Mapped[str] = orm.mapped_column(
        'notification_uuid', sa.String(UUID_LEN), unique=True)
    generated_time: orm.Mapped[datetime.datetime]
    type: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN))
    payload: orm.Mapped[dict[str, Any]]
    # The host and segment as they were when the report arrived: a host
    # deleted or moved since does not rewrite history.
    source_host_uuid: orm.Mapped[str] = orm.mapped_column(
        sa.String(UUID_LEN))
    failover_segment_uuid: orm.Mapped[str] = orm.mapped_column(
        sa.String(UUID_LEN), index=True)
    state: orm.Mapped[str] = orm.mapped_column(
        'status', sa.String(STATE_LEN), index=True)
    message: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # Optimistic concurrency for the status machine.
    version: orm.Mapped[int] = orm.mapped_column(default=1)
    # Internal. The decision engine that runs its recovery, the recovery
    # audit of the attempt under way, and how many attempts were made.
    hostname: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(HOST_LEN))
    recovery_audit_uuid: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(UUID_LEN))
    attempts: orm.Mapped[int] = orm.mapped_column(default=0)


class VMove(IdentityMixin, TimestampMixin, Base):
    """One server moved off a failed host by a recovery (API 1.3)."""
    __tablename__ = 'vmoves'
    __table_args__ = (
        # One move per server and recovery, however often it is retried.
        sa.UniqueConstraint('notification_uuid', 'instance_uuid'),
    )
    notification_uuid: orm.Mapped[str] = orm.mapped_column(
        sa.String(UUID_LEN))
    instance_uuid: orm.Mapped[str] = orm.mapped_column(sa.String(UUID_LEN))
    instance_name: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255))
    source_host: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(HOST_LEN))
    dest_host: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(HOST_LEN))
    start_time: orm.Mapped[datetime.datetime | None]
    end_time: orm.Mapped[datetime.datetime | None]
    type: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN))
    status: orm.Mapped[str] = orm.mapped_column(sa.String(STATE_LEN))
    message: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # Internal. The state the server comes back in on its new host
    # (common/instance_ha/failures.comes_back_as), decided when its
    # evacuation began: 'active', 'stopped' or 'error'.
    restore_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(STATE_LEN))
