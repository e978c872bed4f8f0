"""Request context: who is asking, plus the database session slot."""

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """An oslo.context request context that enginefacade can carry."""


def admin_context(request_id=None):
    """The context daemons and ``noauth`` requests act with.

    Its request id is ``request_id``, or else that of the request this
    thread works for (common/tracing.py), or else a new one: what a
    daemon stores or sends while working on an audit or a plan carries
    the request behind it."""
    current = context.get_current()
    return RequestContext(
        is_admin=True, roles=['admin'], overwrite=False,
        request_id=request_id or (current.request_id if current else None))
