import pytest

from watcher_ha.common import state_machines as sm
from watcher_ha.common.instance_ha import statuses
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.common.states import AuditState


@pytest.mark.parametrize('machine', sm.MACHINES.values(),
                         ids=lambda m: m.name)
def test_every_state_is_reachable_or_initial(machine):
    targets = {t for _, t, _ in machine.edges()}
    sources = {s for s, _, _ in machine.edges()}
    unreachable = machine.states - targets
    # Only the initial states have no way in.
    assert unreachable <= {AuditState.PENDING, ActionPlanState.RECOMMENDED,
                           ActionState.PENDING, statuses.NEW}
    # DELETED is terminal everywhere.
    assert 'DELETED' not in sources


def test_user_may_cancel_but_not_finish_an_audit():
    assert sm.AUDIT.is_allowed(AuditState.PENDING, AuditState.CANCELLED,
                               sm.USER)
    assert not sm.AUDIT.is_allowed(AuditState.PENDING, AuditState.SUCCEEDED,
                                   sm.USER)
    assert sm.AUDIT.is_allowed(AuditState.ONGOING, AuditState.SUCCEEDED,
                               sm.SERVICE)


def test_sources_of_is_what_a_conditional_update_checks():
    assert sm.AUDIT.sources_of(AuditState.DELETED, sm.USER) == {
        AuditState.SUCCEEDED, AuditState.FAILED, AuditState.CANCELLED,
        AuditState.SUSPENDED}
    assert sm.ACTION_PLAN.sources_of(ActionPlanState.PENDING, sm.USER) == {
        ActionPlanState.RECOMMENDED}
    assert sm.ACTION.sources_of(ActionState.SKIPPED, sm.USER) == {
        ActionState.PENDING}


def test_unknown_state_in_a_machine_is_refused():
    with pytest.raises(AssertionError):
        sm.StateMachine('broken', frozenset({'A'}), {'A': {'B': sm.BOTH}})


@pytest.mark.parametrize('machine', sm.MACHINES.values(),
                         ids=lambda m: m.name)
def test_every_guard_names_a_machine_and_its_states(machine):
    for target, guard in machine.guards.items():
        assert target in machine.states
        assert guard.refused <= sm.MACHINES[guard.children].states
