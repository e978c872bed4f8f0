"""What an action plugin (namespace ``watcher_ha.actions``) offers.

An action is built from its validated ``input_parameters`` and a
``fence``. The applier calls ``pre_condition`` then ``execute``, then
``post_condition``; ``revert`` only when a later action failed and the
operator asked for rollbacks. ``abort`` asks a running ``execute`` to stop
early (the daemon is shutting down): the action must then leave things as
they were or as ``execute`` would, so that running it again is safe.
``cancel`` is the plan's cancel reaching a running ``execute``: stop its
work in the cloud where the cloud allows it (a live migration aborted in
Nova), and the action ends CANCELLED.

Every call that changes something in the cloud must pass the fence first:
``self.fence()`` raises (applier/fencing.py ``Fenced``) when this applier
no longer runs the action, and the call must then not be made. Clients
built with ``before_write=self.fence`` (see nova_base) do it on every
request that may change something.
"""

import threading

import jsonschema

from watcher_ha.common import holds

# What ``recover`` finds about an action whose applier died running it.
DONE = 'done'            # its effect is in place: it counts as succeeded
NOT_DONE = 'not done'    # nothing happened: it may run again
UNKNOWN = 'unknown'      # cannot be told: it fails rather than run twice


class ActionError(Exception):
    """The action failed; the message becomes the action's status."""


class ActionSkipped(Exception):
    """Raised by ``pre_condition``: the work is no longer viable or no
    longer needed (its server is gone, or already as asked). The action
    is SKIPPED with the message as its status, as in Watcher 16 and
    later, and the plan goes on as if it had succeeded."""

# The schemas of parameters that several actions take.
NAME = {'type': 'string', 'minLength': 1}
NAME_OR_NULL = {'type': ['string', 'null']}
DISABLED_REASON = {'type': ['string', 'null'], 'maxLength': 255}


def input_schema(properties, required, more=True):
    """The JSON schema of an action's input_parameters: ``properties``
    ({name: schema}), of which the ``required`` ones must be given; other
    parameters pass when ``more`` (a plan may carry what an action does
    not read, as Watcher's strategies write it)."""
    return {'type': 'object', 'properties': properties,
            'required': list(required), 'additionalProperties': more}


class Action:
    name: str
    description: str = ''
    # JSON Schema of input_parameters.
    schema: dict = {'type': 'object'}
    # Whether its failure concerns its own resource only: the plan's
    # other actions still run (those after it in its lane too), and the
    # plan ends FAILED with it once they are done. Otherwise a failure
    # stops the plan: nothing more starts.
    failure_is_contained = False

    def __init__(self, input_parameters, context=None, fence=None):
        self.input_parameters = input_parameters
        self.context = context
        # The applier always gives one; outside it (a test, a script)
        # nothing is fenced.
        self.fence = fence or _unfenced
        self._aborted = threading.Event()
        # Set by ``cancel`` once it stopped the action: how (the action's
        # status message as it ends CANCELLED).
        self.cancelled = None
        # Set by ``execute`` when its success has something to say: the
        # action's status message as it ends SUCCEEDED.
        self.outcome = None

    @classmethod
    def resources(cls, input_parameters):
        """{(kind, id)} this action acts on: while its plan is started, no
        other plan may start that touches one of them. By default the
        action's ``resource_id``."""
        return holds.default_resources(input_parameters)

    @classmethod
    def validate(cls, input_parameters):
        """Raise ValueError if the parameters do not fit the schema."""
        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(cls.schema).iter_errors(
                input_parameters))
        if error is not None:
            where = '/'.join(str(p) for p in error.absolute_path)
            raise ValueError('invalid input_parameters for %s%s: %s' % (
                cls.name, ' at %s' % where if where else '', error.message))

    def pre_condition(self):
        """Check that the action can run now; raise ActionError if not,
        ActionSkipped if there is nothing left for it to do."""

    def execute(self):
        raise NotImplementedError

    def post_condition(self):
        """Check that the action had its effect; raise ActionError if not."""

    def revert(self):
        """Undo what execute did, when that is possible."""

    def recover(self, started_at):
        """The applier running this action died some time after
        ``started_at`` (naive UTC): look at the cloud and say whether the
        action's effect is in place (DONE), absent so that it may run
        again (NOT_DONE), or unknowable (UNKNOWN). May finish what is
        left of the action first, as long as nothing is done twice (and
        through the fence). When the plan resumes, every interrupted
        action is asked; when it is cancelled, only those that touch
        resources (see ``resources``): one that touches nothing is simply
        cancelled."""
        return UNKNOWN

    def cancel(self):
        """Its plan is being cancelled while ``execute`` runs (called
        from another thread, through the fence): stop the work in the
        cloud so that its effect does not happen, if the cloud allows it,
        and set ``cancelled``. Asked again until it returns True (it may
        be too early: Nova aborts no migration it has not begun) or
        ``execute`` ends. False: it runs on to its end, as by default.
        On an action whose applier died (recovery of a plan being
        cancelled), it stops what may still run in the cloud."""
        return False

    def abort(self):
        self._aborted.set()

    @property
    def aborted(self):
        return self._aborted.is_set()


def holding(kind, parameter):
    """The ``resources`` of an action on one resource of ``kind``, the one
    its input ``parameter`` names: what its started plan holds."""
    def resources(cls, input_parameters):
        return {(kind, input_parameters[parameter])}
    return classmethod(resources)


def _unfenced():
    pass


class OnHost:
    """What an action on the compute host ``resource_name`` adds to
    Action: the host, and the node its started plan holds."""

    resources = holding(holds.COMPUTE_NODE, 'resource_name')

    @property
    def host(self):
        return self.input_parameters['resource_name']


class HostFencing(OnHost):
    """A fencing action on the failed host ``resource_name``
    (power_off_host, force_host_down). Fencing twice is harmless, and
    every plan that fences a host wants the same: an application
    failover's plan fences with ``hold_host`` false, without holding the
    host, so that the plans of the applications whose actives ran on one
    failed host run side by side (each moves its volumes only once the
    fencing shows)."""

    HOLD_HOST = {'hold_host': {'type': 'boolean'}}

    @classmethod
    def resources(cls, input_parameters):
        if input_parameters.get('hold_host', True) is False:
            return set()
        return super().resources(input_parameters)
