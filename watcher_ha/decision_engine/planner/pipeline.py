"""The pipeline planner: the solutions of an audit pipeline's stages made
into one action plan (watcher-specs audit-pipeline.rst, "Pipeline
Planner").

Each stage's strategy planned on the cloud as the stages before it
leave it, so a server may move in one stage and again in a later one.
The rules, pure functions over the stages' solutions:

* A server's moves are taken in stage order. A move back to where its
  previous move came from (A -> B, then B -> A) removes both: the server
  stays. Unless the earlier stages removed A from the hosts servers may
  be on (a host put under maintenance, powered off): then the move away
  is required, and the move back is not kept.
* A move to a host an earlier stage removed is not kept either.
* A -> B then B -> C becomes A -> C only when that is safe: both moves
  of one kind (live or cold), and no other action of the plan acts on
  the server in between (a stop, a resize: it might need the server on
  B). Otherwise both moves are kept, one after the other.
* Conflicts that no rule settles fail the planning, saying which: a
  server that would end on a host a stage powers off, a node a stage
  powers on and another off. A stage enabling again a host an earlier
  stage disabled is not kept (the earlier stage's constraint holds).
* The actions left are ordered stage by stage, each stage by its own
  strategy's planner; the first actions of a stage follow the last ones
  of the stage before, so the plan runs in the order it was projected.
  Each planned action keeps the stage it came from; a collapsed move
  belongs to the stage of its last move, where its destination was
  chosen.

Which hosts earlier stages removed is the projection's to say
(decision_engine/projection.py): ``excluded_before(position)``.
"""

import dataclasses

from watcher_ha.decision_engine import solution as solution_mod

MIGRATE = 'migrate'
SERVICE_STATE = 'change_nova_service_state'
POWER_STATE = 'change_node_power_state'


class PipelinePlanningFailed(Exception):
    """The stages' solutions conflict in a way no rule settles; the
    message says which actions of which stages."""


@dataclasses.dataclass(frozen=True)
class Stage:
    """One stage's solution: its position (from 0), the id the plan's
    actions record, its proposed actions in the strategy's order, and the
    planner of its strategy."""
    position: int
    stage_id: int | None
    actions: tuple
    planner: object


@dataclasses.dataclass
class Planned:
    """The plan: its actions (PlannedActions, parents set), the stage id
    of each ({action uuid: stage id}), and what the rules removed, as
    sentences for the pipeline's status and the log."""
    actions: list
    stage_of: dict
    removed: list


@dataclasses.dataclass(frozen=True)
class _Move:
    position: int       # the stage
    index: int          # the action's place among the stage's actions
    action: object      # its ProposedAction

    @property
    def server(self):
        return self.action.input_parameters.get('resource_id')

    @property
    def source(self):
        return self.action.input_parameters.get('source_node')

    @property
    def destination(self):
        return self.action.input_parameters.get('destination_node')

    @property
    def kind(self):
        return self.action.input_parameters.get('migration_type', 'live')


def _collapsed(first, then):
    """``first`` (A -> B) and ``then`` (B -> C) as one move A -> C, in
    ``then``'s stage."""
    parameters = dict(then.action.input_parameters, source_node=first.source)
    return _Move(then.position, then.index, solution_mod.ProposedAction(
        MIGRATE, parameters, then.action.resource_id))


def _touched_between(first, then, others):
    """Whether an action of ``others`` (not moves) acts on the server of
    the moves between ``first`` and ``then``."""
    return any(
        (first.position, first.index) < (other.position, other.index)
        < (then.position, then.index)
        and other.action.input_parameters.get('resource_id') == first.server
        for other in others)


def _server_moves(moves, others, excluded_before, removed):
    """The moves one server keeps, by the rules of the module."""
    kept = []
    for move in moves:
        excluded = excluded_before(move.position)
        last = kept[-1] if kept else None
        if move.destination in excluded:
            removed.append(
                'stage %d: the move of server %s to %s is not kept: an '
                'earlier stage removed %s' % (move.position + 1, move.server,
                                              move.destination,
                                              move.destination))
        elif last is None:
            kept.append(move)
        elif move.destination == last.source:
            # Back where it was (which no earlier stage removed, or the
            # first branch would have caught it): it stays there.
            kept.pop()
            removed.append(
                'stages %d and %d: server %s moved %s -> %s and back: '
                'neither move is kept' % (
                    last.position + 1, move.position + 1, move.server,
                    last.source, last.destination))
        elif (last.kind == move.kind
              and not _touched_between(last, move, others)):
            kept[-1] = _collapsed(last, move)
            removed.append(
                'stages %d and %d: server %s moved %s -> %s -> %s: one move '
                '%s -> %s' % (last.position + 1, move.position + 1,
                              move.server, last.source, last.destination,
                              move.destination, last.source,
                              move.destination))
        else:
            kept.append(move)
    return kept


def _state_of(move):
    return move.action.input_parameters.get('state')


def _node_of(move):
    parameters = move.action.input_parameters
    return parameters.get('resource_name') or parameters.get('resource_id')


def _check_power(others, final_hosts):
    """Fail on a node powered both on and off, or powered off while a
    server ends on it."""
    powered = {}
    for other in others:
        if other.action.action_type == POWER_STATE:
            powered.setdefault(_node_of(other), set()).add(
                (_state_of(other), other.position))
    for node, states in sorted(powered.items()):
        if {state for state, _ in states} >= {'on', 'off'}:
            raise PipelinePlanningFailed(
                'node %s is powered on and off by stages %s; the pipeline '
                'cannot do both' % (node, ', '.join(
                    str(position + 1) for position in sorted(
                        position for _, position in states))))
        if any(state == 'off' for state, _ in states):
            on_it = sorted(server for server, host in final_hosts.items()
                           if host == node)
            if on_it:
                raise PipelinePlanningFailed(
                    'node %s is powered off by stage %d while server(s) %s '
                    'end on it' % (node, min(p for s, p in states
                                             if s == 'off') + 1,
                                   ', '.join(on_it)))


def _kept_others(others, disabled_by, removed):
    """The actions other than moves, less those undoing an earlier
    stage's constraint (enabling a host it disabled)."""
    kept = []
    for other in others:
        if other.action.action_type == SERVICE_STATE \
                and _state_of(other) == 'enabled':
            disabled_at = disabled_by.get(_node_of(other))
            if disabled_at is not None and disabled_at < other.position:
                removed.append(
                    'stage %d: %s is not enabled again: stage %d disabled '
                    'it' % (other.position + 1, _node_of(other),
                            disabled_at + 1))
                continue
        kept.append(other)
    return kept


def plan(stages, excluded_before):
    """Planned of ``stages`` (Stage, in order); ``excluded_before(p)``:
    the hosts the stages before position ``p`` removed."""
    moves, others, disabled_by = {}, [], {}
    for stage in stages:
        for index, action in enumerate(stage.actions):
            item = _Move(stage.position, index, action)
            if action.action_type == MIGRATE and item.server:
                moves.setdefault(item.server, []).append(item)
            else:
                others.append(item)
                if action.action_type == SERVICE_STATE \
                        and _state_of(item) == 'disabled':
                    disabled_by.setdefault(_node_of(item), stage.position)
    removed = []
    kept = [move for server in moves for move in _server_moves(
        moves[server], others, excluded_before, removed)]
    final_hosts = {}
    for move in kept:
        final_hosts[move.server] = move.destination
    _check_power(others, final_hosts)
    kept += _kept_others(others, disabled_by, removed)
    return _ordered(stages, kept, removed)


def _ordered(stages, kept, removed):
    """Each stage's kept actions planned by its planner, stage after
    stage."""
    by_stage = {}
    for item in sorted(kept, key=lambda i: (i.position, i.index)):
        by_stage.setdefault(item.position, []).append(item.action)
    planned, stage_of, before = [], {}, []
    for stage in stages:
        actions = by_stage.get(stage.position)
        if not actions:
            continue
        solution = solution_mod.Solution(None, None)
        solution.actions = actions
        scheduled = stage.planner.schedule(solution)
        parents = {parent for action in scheduled for parent in
                   action.parents}
        for action in scheduled:
            if not action.parents:
                action.parents = list(before)
            stage_of[action.uuid] = stage.stage_id
        before = [action.uuid for action in scheduled
                  if action.uuid not in parents]
        planned += scheduled
    return Planned(planned, stage_of, removed)
