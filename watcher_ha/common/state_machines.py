"""Allowed state transitions, as data.

Each machine maps a source state to the target states reachable from it,
and says who may ask for the move: an operator through the API (``USER``)
or a watcher_ha daemon (``SERVICE``). Every writer asks the machine for the
allowed source states of the move it wants, then runs one conditional
UPDATE on them (see ``watcher_ha.db.transitions``).
"""

import dataclasses

from watcher_ha.common.instance_ha import statuses as N
from watcher_ha.common.states import ActionPlanState as P
from watcher_ha.common.states import ActionState as A
from watcher_ha.common.states import AuditState as S

USER = 'user'
SERVICE = 'service'
BOTH = frozenset((USER, SERVICE))
ONLY_USER = frozenset((USER,))
ONLY_SERVICE = frozenset((SERVICE,))


@dataclasses.dataclass(frozen=True)
class Guard:
    """A move allowed only while none of the row's children (the rows of
    the machine named ``children`` that belong to it) is in a state of
    ``refused``."""
    children: str
    refused: frozenset


@dataclasses.dataclass(frozen=True)
class StateMachine:
    name: str
    states: frozenset
    # {source: {target: actors allowed to make the move}}
    transitions: dict
    # {target: the Guard of every move to it}
    guards: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        for source, targets in self.transitions.items():
            unknown = ({source} | set(targets)) - self.states
            assert not unknown, '%s: unknown states %s' % (self.name, unknown)
        unknown = set(self.guards) - self.states
        assert not unknown, '%s: unknown states %s' % (self.name, unknown)

    def is_allowed(self, source, target, actor):
        return actor in self.transitions.get(source, {}).get(target, ())

    def guard_of(self, target):
        """The Guard of the moves to ``target``, or None."""
        return self.guards.get(target)

    def sources_of(self, target, actor):
        """The states from which ``actor`` may move to ``target``."""
        return frozenset(
            source for source, targets in self.transitions.items()
            if actor in targets.get(target, ()))

    def edges(self):
        for source, targets in sorted(self.transitions.items()):
            for target, actors in sorted(targets.items()):
                yield source, target, actors


def _archived(deleted, actors, *ends):
    """The moves of rows that ended (in one of ``ends``) to their archive
    (``deleted``), each asked for by ``actors``."""
    return {end: {deleted: actors} for end in ends}


AUDIT = StateMachine(
    name='audit',
    states=frozenset((S.PENDING, S.ONGOING, S.SUCCEEDED, S.FAILED,
                      S.CANCELLED, S.SUSPENDED, S.DELETED)),
    transitions={
        S.PENDING: {S.ONGOING: ONLY_SERVICE,
                    S.CANCELLED: BOTH,
                    S.FAILED: ONLY_SERVICE},
        # Back to PENDING: an engine shutting down hands its audit over.
        S.ONGOING: {S.SUCCEEDED: ONLY_SERVICE,
                    S.FAILED: ONLY_SERVICE,
                    S.CANCELLED: BOTH,
                    S.SUSPENDED: BOTH,
                    S.PENDING: ONLY_SERVICE},
        S.SUSPENDED: {S.ONGOING: ONLY_USER,
                      S.CANCELLED: ONLY_USER,
                      S.DELETED: ONLY_USER},
        **_archived(S.DELETED, ONLY_USER, S.FAILED, S.CANCELLED),
        # Back to PENDING: a webhook triggers an EVENT audit again.
        S.SUCCEEDED: {S.DELETED: ONLY_USER,
                      S.PENDING: ONLY_USER},
    })

# An audit pipeline (watcher-specs audit-pipeline.rst, "Audit Pipeline
# Resource"): the audit's states, the reduced set of moves of a one-shot
# pipeline and no other. An operator's cancel of an ONGOING pipeline is a
# request its engine honours between stages (db/audit_pipelines.py); an
# engine that stops hands its pipeline back ONGOING without an owner,
# not PENDING, so that the machine stays the spec's.
AUDIT_PIPELINE = StateMachine(
    name='audit_pipeline',
    states=frozenset((S.PENDING, S.ONGOING, S.SUCCEEDED, S.FAILED,
                      S.CANCELLED, S.DELETED)),
    transitions={
        S.PENDING: {S.ONGOING: ONLY_SERVICE,
                    S.CANCELLED: ONLY_USER},
        S.ONGOING: {S.SUCCEEDED: ONLY_SERVICE,
                    S.FAILED: ONLY_SERVICE,
                    S.CANCELLED: ONLY_SERVICE},
        **_archived(S.DELETED, ONLY_USER, S.SUCCEEDED, S.FAILED,
                    S.CANCELLED),
    })

ACTION_PLAN = StateMachine(
    name='action_plan',
    states=frozenset((P.RECOMMENDED, P.PENDING, P.ONGOING, P.SUCCEEDED,
                      P.FAILED, P.CANCELLING, P.CANCELLED, P.SUPERSEDED,
                      P.DELETED)),
    transitions={
        # A service starts a recovery plan once the plans that held its
        # servers are cancelled (decision_engine/preemption.py).
        P.RECOMMENDED: {P.PENDING: BOTH,
                        P.CANCELLED: BOTH,
                        P.SUPERSEDED: ONLY_SERVICE,
                        P.DELETED: ONLY_USER},
        P.PENDING: {P.ONGOING: ONLY_SERVICE,
                    P.CANCELLED: BOTH,
                    P.FAILED: ONLY_SERVICE},
        # Back to PENDING: an applier shutting down hands its plan over.
        P.ONGOING: {P.SUCCEEDED: ONLY_SERVICE,
                    P.FAILED: ONLY_SERVICE,
                    P.CANCELLING: BOTH,
                    P.CANCELLED: ONLY_SERVICE,
                    P.PENDING: ONLY_SERVICE},
        P.CANCELLING: {P.CANCELLED: ONLY_SERVICE,
                       P.FAILED: ONLY_SERVICE},
        # A service archives the plans of continuous audits that later
        # rounds replaced, once they are older than the retention.
        **_archived(P.DELETED, BOTH, P.SUCCEEDED, P.CANCELLED, P.SUPERSEDED),
        **_archived(P.DELETED, ONLY_USER, P.FAILED),
    },
    # An action cancelled (never run) or failed: the plan did not do what
    # it planned, whatever made it try to end so (a settling that chose
    # to cancel it and lost its end's commit, then a look that resumed
    # it). It ends CANCELLED or FAILED instead (db/plan_runs.finish).
    guards={P.SUCCEEDED: Guard('action', frozenset((A.CANCELLED,
                                                     A.FAILED)))})

ACTION = StateMachine(
    name='action',
    states=frozenset((A.PENDING, A.ONGOING, A.SUCCEEDED, A.FAILED,
                      A.CANCELLING, A.CANCELLED, A.SKIPPED, A.DELETED)),
    transitions={
        # Archiving follows the action plan, which only a user deletes.
        A.PENDING: {A.ONGOING: ONLY_SERVICE,
                    A.SKIPPED: ONLY_USER,
                    A.CANCELLED: ONLY_SERVICE,
                    A.DELETED: ONLY_SERVICE},
        # Back to PENDING: interrupted by its applier's shutdown, to run
        # again wherever the plan resumes.
        # SKIPPED: its pre-condition found nothing left to do.
        A.ONGOING: {A.SUCCEEDED: ONLY_SERVICE,
                    A.SKIPPED: ONLY_SERVICE,
                    A.FAILED: ONLY_SERVICE,
                    A.CANCELLING: ONLY_SERVICE,
                    A.CANCELLED: ONLY_SERVICE,
                    A.PENDING: ONLY_SERVICE},
        A.CANCELLING: {A.CANCELLED: ONLY_SERVICE,
                       A.FAILED: ONLY_SERVICE},
        **_archived(A.DELETED, ONLY_SERVICE, A.SUCCEEDED, A.FAILED,
                    A.CANCELLED, A.SKIPPED),
    })

# A host notification (instance HA), in Masakari's statuses: its recovery
# is run by a decision engine, which alone moves it.
NOTIFICATION = StateMachine(
    name='notification',
    states=frozenset((N.NEW, N.RUNNING, N.ERROR, N.FAILED, N.IGNORED,
                      N.FINISHED)),
    transitions={
        N.NEW: {N.RUNNING: ONLY_SERVICE,
                N.IGNORED: ONLY_SERVICE},
        N.RUNNING: {N.FINISHED: ONLY_SERVICE,
                    N.ERROR: ONLY_SERVICE},
        # Tried again, or given up after the last attempt.
        N.ERROR: {N.RUNNING: ONLY_SERVICE,
                  N.FAILED: ONLY_SERVICE},
    })

MACHINES = {m.name: m for m in (AUDIT, AUDIT_PIPELINE, ACTION_PLAN, ACTION,
                                NOTIFICATION)}
