"""Heat's refusals, as its API renders them.

Heat's fault middleware (heat/api/middleware/fault.py, FaultWrapper)
turns every error into ``{"code", "title", "explanation", "error":
{"type", "message", "traceback"}}``: ``code`` the HTTP status, ``title``
and ``explanation`` webob's for it, ``type`` the class name of the
engine's exception (``EntityNotFound``, ``StackValidationFailed``...) or
of the webob one the API raised itself (``HTTPBadRequest``), and
``traceback`` null unless Heat runs with debug on. The status comes from
the exception class (FaultWrapper.error_map), so each refusal here names
both.

Many of Heat's messages carry a path to what is wrong
(HeatExceptionWithPath): ``Property error: resources.server.properties:
Unknown Property policy``. ``with_path`` writes them the way Heat does:
dotted names, a numeric item in brackets.
"""

import webob.exc

from watcher_ha.simulator import web


class HeatError(web.Reply):
    """A refusal: HTTP ``status``, Heat's exception class name ``kind``
    and its message, ``error: path: detail`` for the exceptions that
    carry a path (``error`` and ``path`` kept apart, for a nested
    stack's refusal to be set under its parent's path)."""

    def __init__(self, status, kind, detail, error='', path=()):
        super().__init__(status, with_path(error, path, detail))
        self.kind = kind
        self.error, self.path, self.detail = error, list(path), detail


def body(status, kind, message):
    """Heat's error document."""
    known = webob.exc.status_map[status]
    return {'code': status, 'title': known.title,
            'explanation': known.explanation,
            'error': {'type': kind, 'message': message, 'traceback': None}}


# What the API raises itself (webob's exceptions, disguised through the
# engine's fault wrapper): the type is webob's class name.
WEBOB_KINDS = {400: 'HTTPBadRequest', 403: 'HTTPForbidden',
               404: 'HTTPNotFound', 405: 'HTTPMethodNotAllowed',
               409: 'HTTPConflict', 500: 'HTTPInternalServerError'}


def api_refusal(status, message):
    return HeatError(status, WEBOB_KINDS.get(status, 'HTTPError'), message)


def format_path(path):
    """Heat's rendering of a path (HeatExceptionWithPath): items joined
    by dots, an integer item in brackets."""
    rendered = ''
    for item in path:
        item = str(item)
        if item.isdigit():
            rendered += '[%s]' % item
        elif rendered:
            rendered += '.' + item
        else:
            rendered = item
    return rendered


def with_path(error, path, message):
    """``error: path: message``, each part left out when empty."""
    parts = [part for part in (error, format_path(path)) if part]
    return ''.join('%s: ' % part for part in parts) + message


def invalid(message, path=(), error=''):
    """StackValidationFailed: a template, a parameter or a property
    Heat refuses (400)."""
    return HeatError(400, 'StackValidationFailed', message, error, path)


def under(refusal, path):
    """``refusal``, met validating a nested stack, as its parent's
    StackValidationFailed at ``path`` (StackResource.validate_nested_stack
    wraps it so)."""
    if refusal.kind == 'StackValidationFailed':
        return invalid(refusal.detail, list(path) + refusal.path,
                       refusal.error)
    return invalid(refusal.message, path, refusal.kind)


def property_error(resource_path, message):
    """A property of the resource at ``resource_path`` refused."""
    return invalid(message, path=list(resource_path) + ['properties'],
                   error='Property error')


def stack_not_found(name):
    return HeatError(404, 'EntityNotFound',
                     'The Stack (%s) could not be found.' % name)


def resource_not_found(resource_name, stack_name):
    return HeatError(404, 'ResourceNotFound',
                     'The Resource (%s) could not be found in Stack %s.'
                     % (resource_name, stack_name))


def action_in_progress(stack):
    return HeatError(409, 'ActionInProgress',
                     'Stack %s already has an action (%s) in progress.'
                     % (stack.name, stack.action))


def not_supported(feature):
    return HeatError(400, 'NotSupported', '%s is not supported.' % feature)


def simulator_refuses(what, path=()):
    """Something real Heat serves that this simulator does not model:
    refused in Heat's shape (a validation failure), never ignored."""
    return invalid('%s is not supported by the simulated Heat.' % what,
                   path=path)


class ResourceFailure(Exception):
    """A resource's action failed: Heat's exception class name ``kind``
    (ResourceInError, NotFound...) and its message, with the path below
    the resource when it failed in a nested stack. Rendered as Heat's
    ResourceFailure: ``kind: resources.<name>[.<below>]: message``."""

    def __init__(self, kind, message, below=()):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.below = list(below)

    def reason(self, path):
        return with_path(self.kind, list(path) + self.below, self.message)


def nested_failure(status_reason, action):
    """The failure of a resource holding a nested stack, from the nested
    stack's status reason (Heat's ResourceFailure._from_status_reason):
    ``Resource CREATE failed: Kind: resources.x: message`` keeps its
    kind, path and message; anything else is the message alone."""
    if 'Resource %s failed: ' % action in status_reason:
        parts = [part.strip() for part in status_reason.split(':')]
        if len(parts) >= 4:
            return ResourceFailure(parts[1], ': '.join(parts[3:]),
                                   parts[2].split('.'))
    return ResourceFailure('', status_reason)
