"""Following one audit or action plan across the daemons' logs.

The API records the request id it answered with on the audit it creates
and on the plan it starts (``request_id`` columns). Whichever daemon then
works on that audit or plan, in whatever thread (an RPC's job, a sweep, a
take-over, a continuous audit's round, an action of the plan), makes the
request id its thread's current one in oslo.context for the time it
works: oslo.log's ``logging_context_format_string`` prints it on every
line (``[None req-... - - - - - -]``), so a grep for the id the client got
back finds the whole story in every daemon's log.
"""

import contextlib

from oslo_context import context as oslo_context

from watcher_ha.common import context as watcher_context


def _untraced():
    """A current context that names no request: oslo.log then uses its
    plain format (oslo.context offers no way to empty the store)."""
    untraced = watcher_context.RequestContext(overwrite=False)
    untraced.request_id = None
    return untraced


@contextlib.contextmanager
def working_on(request_id, global_request_id=None):
    """While the block runs, this thread logs (and makes its admin
    contexts) under ``request_id`` (and the client's
    ``global_request_id``, in the API); None: under no request, not under
    whatever the thread worked on before. The thread's context is
    restored after, so a pooled thread carries nothing to its next job."""
    previous = oslo_context.get_current()
    if request_id:
        watcher_context.RequestContext(
            request_id=request_id, global_request_id=global_request_id,
            is_admin=True, roles=['admin'], overwrite=True)
    else:
        _untraced().update_store()
    try:
        yield
    finally:
        (previous or _untraced()).update_store()

