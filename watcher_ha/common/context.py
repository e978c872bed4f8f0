"""Request context: who is asking, plus the database session slot."""

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """An oslo.context request context that enginefacade can carry."""


def admin_context():
    """The context daemons and ``noauth`` requests act with."""
    return RequestContext(is_admin=True, roles=['admin'],
                          overwrite=False)
