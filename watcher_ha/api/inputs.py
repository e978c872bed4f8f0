"""Request fields, declared once per resource: the input side of
fields.py.

Each resource lists the fields a client may send, with their JSON Schema
in a create body and in the document a JSON patch is applied to, whether
a create must give them or a patch may remove them, and how the patch
document shows them. The create and patch schemas, the patchable and
mandatory paths and the patch document all come from that one list; the
rules that go beyond a schema (resolving a goal, checking parameters
against a strategy) stay with the resource.
"""

import dataclasses
from collections.abc import Callable

from watcher_ha.api import patch
from watcher_ha.api import validation
from watcher_ha.common import exception

# The patch schema of a field that takes the same values as on create.
SAME = 'same as on create'


@dataclasses.dataclass(frozen=True)
class Input:
    name: str
    # JSON Schema of the value in a create body; None: not accepted there.
    create: dict | None = None
    # JSON Schema of the value in the patched document (or SAME); None: a
    # patch may not change it.
    patch: dict | str | None = None
    # A create body must give it.
    required: bool = False
    # A patch may not remove it.
    mandatory: bool = False
    # Stored as sent (or as ``default`` when a create body leaves it out):
    # no rule of the resource looks at it.
    stored: bool = False
    default: object = None
    # Shown in the patch document though no patch may change it, so that
    # patching it says it is internal (Watcher's wording).
    internal: bool = False
    # Set at creation for good: patching it is refused with Watcher's
    # "<path> can't be updated.".
    fixed: bool = False
    # The first version accepting it ('X.Y'); the resource's rules say
    # when a value counts as given.
    since: str | None = None
    # shown(row) -> its value in the patch document; by default the
    # column of that name.
    shown: Callable | None = None

    @property
    def path(self):
        return '/' + self.name

    @property
    def patch_schema(self):
        return self.create if self.patch == SAME else self.patch

    def in_document(self):
        return self.patch is not None or self.internal


class Inputs:

    def __init__(self, create_argname, *inputs):
        # The name Watcher's messages give a whole create body.
        self.create_argname = create_argname
        self.inputs = inputs
        self.by_name = {i.name: i for i in inputs}
        accepted = [i for i in inputs if i.create is not None]
        self.create_schema = {
            'type': 'object',
            'properties': {i.name: i.create for i in accepted},
            'required': [i.name for i in accepted if i.required],
            'additionalProperties': False,
        }
        self.patchable = [i for i in inputs if i.patch is not None]
        self.patched_schema = {
            'type': 'object',
            'properties': {i.name: i.patch_schema for i in self.patchable},
            'additionalProperties': False,
        }
        self.patchable_paths = tuple(i.path for i in self.patchable)
        self.mandatory_paths = tuple(i.path for i in inputs if i.mandatory)
        self.fixed_paths = tuple(i.path for i in inputs if i.fixed)
        self.stored = tuple(i for i in inputs if i.stored)

    def __getitem__(self, name):
        return self.by_name[name]

    def checked_create(self, body):
        """``body`` when it fits the create schema; a 400 otherwise."""
        validation.validate(self.create_schema, body, self.create_argname)
        return body

    def stored_values(self, body):
        """The fields stored as sent, from a create body."""
        return {i.name: body.get(i.name, i.default) for i in self.stored}

    def document(self, row):
        """What a JSON patch on ``row`` is applied to."""
        return {i.name: i.shown(row) if i.shown else row[i.name]
                for i in self.inputs if i.in_document()}

    def patched(self, row, ops):
        """(the patch document of ``row``, the patchable fields once
        ``ops`` are applied, None for a removed one); a 400 for a patch
        that touches a fixed or internal field or breaks the schema."""
        for op in ops:
            if patch.root(op) in self.fixed_paths:
                raise exception.PatchError(
                    patch=patch.patch_repr(op),
                    reason="%s can't be updated." % patch.root(op))
        document = self.document(row)
        new = patch.apply(document, ops, self.patchable_paths,
                          self.mandatory_paths)
        validation.validate(
            self.patched_schema,
            {i.name: new[i.name] for i in self.patchable if i.name in new},
            'patch')
        return document, {i.name: new.get(i.name) for i in self.patchable}
