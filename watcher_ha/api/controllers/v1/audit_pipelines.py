"""``/v1/audit_pipelines`` (watcher-specs audit-pipeline.rst, "REST API
impact"), from watcher-ha 1.4: a pipeline is created PENDING, and its
planning starts at once under auto_trigger or with ``start``; ``cancel``
ends a PENDING one, or asks its engine to end an ONGOING one between
stages; a PUT renames it or its stages while it is PENDING; a delete
archives an ended one."""

from watcher_ha.api import method
from watcher_ha.api.controllers.v1 import base
from watcher_ha.api.controllers.v1 import new_pipeline
from watcher_ha.api.schemas import audit_pipelines as schema
from watcher_ha.common import pipelines
from watcher_ha.common.states import AuditState
from watcher_ha.db import audit_pipelines as db
from watcher_ha.decision_engine import rpcapi
from watcher_ha.notifications import notifier
from watcher_ha.policies import audit_pipeline as pipeline_policy
from watcher_ha.policies import policy


class AuditPipelinesController(base.EditableController):

    view = db.VIEW
    fields = schema.PIPELINE
    policy_module = pipeline_policy
    inputs = schema.INPUT
    since = pipelines.SINCE

    def _annotate(self, context, rows):
        return db.with_stages(context, rows)

    def _trigger(self, context, row):
        """Planning asked for: the engine the cast reaches takes it (an
        engine's sweep, if the cast is lost)."""
        db.trigger(context, row)
        rpcapi.DecisionEngineAPI().trigger_audit_pipeline(context,
                                                          row['uuid'])

    def _create(self, call, body):
        context = call.context
        values, stages = new_pipeline.values(context, body)
        row = db.create(context, values, stages)
        notifier.audit_pipeline('create', row['uuid'])
        if row['auto_trigger']:
            self._trigger(context, row)
        return row

    @method.expose()
    def put(self, call, ident):
        context = call.context
        self.served(call)
        policy.authorize(pipeline_policy.UPDATE, context)
        body = call.json_body()
        row = self._find(context, ident)
        values, stages = new_pipeline.updated(row, body)
        updated = db.update(context, row, values, stages)
        notifier.audit_pipeline('update', row['uuid'],
                                old_state=row['state'])
        return self.serialize(call, updated)

    @method.expose(status_code=202)
    def start(self, call, ident):
        context = call.context
        self.served(call)
        policy.authorize(pipeline_policy.START, context)
        self._trigger(context, self._find(context, ident))

    @method.expose(status_code=202)
    def cancel(self, call, ident):
        context = call.context
        self.served(call)
        policy.authorize(pipeline_policy.CANCEL, context)
        row = self._find(context, ident)
        if db.cancel(context, row) == AuditState.PENDING:
            notifier.audit_pipeline('update', row['uuid'],
                                    old_state=AuditState.PENDING)

    def _delete(self, context, row):
        db.archive(context, row)
        notifier.audit_pipeline('delete', row['uuid'])
