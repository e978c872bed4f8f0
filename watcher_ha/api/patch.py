"""JSON Patch (RFC 6902) on the patchable view of a resource."""

import copy
import re

import jsonpatch
import jsonpointer

from watcher_ha.common import exception

PATH = re.compile(r'^(/[\w-]+)+$')
OPS = ('add', 'remove', 'replace')
# What no PATCH may touch, on any resource.
INTERNAL = ('/created_at', '/id', '/links', '/updated_at', '/deleted_at',
            '/uuid')


def patch_repr(ops):
    """Watcher quotes a patch as the Python repr of its operations, each
    with its keys in the order path, op, value."""
    def ordered(op):
        if not isinstance(op, dict):
            return op
        return {key: op[key] for key in ('path', 'op', 'value', 'from')
                if key in op}
    if isinstance(ops, list):
        return repr([ordered(op) for op in ops])
    return repr(ordered(ops))


def _check_op(op, index):
    if not isinstance(op, dict):
        raise exception.InvalidField(
            field='patch', value="'%s'" % (op,),
            reason='Each patch operation must be a JSON object.')
    unknown = set(op) - {'op', 'path', 'value'}
    if unknown:
        raise exception.Invalid(
            'Unknown attribute for argument patch: %s' % sorted(unknown)[0])
    path = op.get('path')
    if not isinstance(path, str) or not PATH.match(path):
        raise exception.InvalidField(
            field='path', value="'%s'" % (path,),
            reason=r'Value should match the pattern ^(/[\w-]+)+$')
    if op.get('op') not in OPS:
        raise exception.InvalidField(
            field='op', value="'%s'" % (op.get('op'),),
            reason='Value should be one of: %s' % ', '.join(OPS))
    if op['op'] in ('add', 'replace') and 'value' not in op:
        raise exception.Invalid("'add' and 'replace' operations needs value")


def parse(body):
    """The list of JSON Patch operations in ``body``, syntax-checked."""
    if not isinstance(body, list):
        raise exception.InvalidField(
            field='patch', value="'%s'" % (body,),
            reason='Value not a valid list: %s' % (body,))
    for index, op in enumerate(body):
        _check_op(op, index)
    return body


def root(op):
    return '/' + op['path'].split('/')[1]


def apply(document, ops, allowed, mandatory=()):
    """Apply ``ops`` to a copy of ``document`` and return the result.

    ``allowed`` are the top-level paths a user may change; ``mandatory``
    those that cannot be removed.
    """
    for op in ops:
        top = root(op)
        field = top[1:]
        # A field the document shows but the user may not change is
        # internal; one it does not show is simply not there (below).
        if top in INTERNAL or (top not in allowed and field in document):
            raise exception.Invalid(
                "'%s' is an internal attribute and can not be updated" % top)
        if op['op'] == 'remove' and top in mandatory and op['path'] == top:
            raise exception.Invalid(
                "'%s' is a mandatory attribute and can not be removed" % top)
        if op['op'] == 'add' and op['path'] == top and field not in document:
            raise exception.Invalid(
                'Adding a new attribute (%s) to the root of the resource is '
                'not allowed' % top)
    try:
        return jsonpatch.apply_patch(copy.deepcopy(document), ops)
    except (jsonpatch.JsonPatchException,
            jsonpointer.JsonPointerException) as err:
        raise exception.PatchError(patch=patch_repr(ops), reason=err)
