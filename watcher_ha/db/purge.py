"""Removing archived rows for good."""

import datetime

import sqlalchemy as sa

from watcher_ha.common.states import AuditState
from watcher_ha.db import engine
from watcher_ha.db import models


class _DryRun(Exception):
    """Rolls a dry run's deletions back."""


@engine.retry_on_deadlock
def purge(context, age_in_days, dry_run=False):
    """Delete rows archived more than ``age_in_days`` days ago.

    Children go first: actions, then action plans (their efficacy
    indicators cascade), then audits and audit pipelines; an archived
    audit or pipeline whose plans are still live stays. Returns {table:
    rows deleted}; with ``dry_run``, the rows that would be, the
    deletions rolled back.
    """
    cutoff = models.utcnow() - datetime.timedelta(days=age_in_days)
    counts = {}
    try:
        _delete(context, cutoff, counts, dry_run)
    except _DryRun:
        pass
    return counts


def _delete(context, cutoff, counts, dry_run):
    with engine.writer.using(context) as session:
        old_plans = sa.select(models.ActionPlan.id).where(
            models.ActionPlan.deleted_at.is_not(None),
            models.ActionPlan.deleted_at < cutoff)
        counts['actions'] = session.execute(
            sa.delete(models.Action).where(
                sa.or_(models.Action.action_plan_id.in_(old_plans),
                       sa.and_(models.Action.deleted_at.is_not(None),
                               models.Action.deleted_at < cutoff)))
        ).rowcount
        plan_ids = [row.id for row in session.execute(old_plans)]
        counts['efficacy_indicators'] = session.execute(
            sa.delete(models.EfficacyIndicator).where(
                models.EfficacyIndicator.action_plan_id.in_(plan_ids))
        ).rowcount
        counts['action_plans'] = session.execute(
            sa.delete(models.ActionPlan).where(
                models.ActionPlan.id.in_(plan_ids))).rowcount
        for parent, column in ((models.Audit, models.ActionPlan.audit_id),
                               (models.AuditPipeline,
                                models.ActionPlan.audit_pipeline_id)):
            # A plan has one of the two: NULLs kept out of NOT IN, which
            # would match nothing otherwise. A pipeline's stages go with
            # it (ON DELETE CASCADE).
            live_children = sa.select(column).where(column.is_not(None))
            counts[parent.__tablename__] = session.execute(
                sa.delete(parent).where(
                    parent.state == AuditState.DELETED,
                    parent.deleted_at < cutoff,
                    parent.id.not_in(live_children))).rowcount
        if dry_run:
            raise _DryRun()
