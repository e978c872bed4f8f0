"""Application failover under faults (issue 29's acceptance): the real
daemons (an API, a decision engine and two appliers, separate processes
on RabbitMQ, on MariaDB through a proxy that cuts their connections as a
case arms it, and on a Redis of the module's own) and the simulated
cloud, shared by the cases.

Each case fails over an application of its own: two members on hosts of
their own, two data volumes on the active, activated by a signed
webhook. The active's host loses power (Nova counts it down at once
here) and the application's webhook is called: its plan fences the host
(power_off_host, force_host_down), evicts the active, moves both
volumes, activates the standby and replaces the failed member. Then:

- the applier running the plan is killed (SIGKILL), or paused (SIGSTOP)
  until the other applier took the plan over and resumed (SIGCONT), at
  each step: after fencing (the eviction's delete held on its way to
  Nova), after the first volume moved (the second's attachment awaited
  in Cinder), after activation (the replacement's first look at Nova
  held), during the replacement (its create held on its way to Nova);
- the coordination backend (the Redis) restarts empty during the
  failover;
- the database connection is cut at each write of the plan's rows,
  before the server runs the statement or once it committed it, the
  applier unable to tell which (sql_proxy.py).

Each time the plan ends SUCCEEDED, holding nothing, and its audit ends;
each volume was attached to the standby exactly once (Cinder's
attachments, in the simulator's state); the activation was delivered
once, acted on once by the guest's endpoint and marked once in Nova;
one replacement was made; and no volume was ever writable by two
running guests (the simulator's shared_writes, and sampled ten times a
second).
"""

import dataclasses
import signal
import time

import pytest
import requests
import sqlalchemy as sa

from tests.functional import app_failover
from tests.functional import daemons
from tests.functional import fixtures
from tests.functional import ha_checks
from tests.functional import services
from tests.functional.app_failover import Sampler
from tests.functional.app_failover import application
from tests.functional.app_failover import audit_of
from tests.functional.app_failover import host_event
from tests.functional.app_failover import state
from tests.functional.app_failover import trigger
from tests.functional.cloud import nova as nova_client
from tests.functional.cloud import scenario_host
from tests.functional.fixtures import wait_for
from watcher_ha.common.app_failover import members
from watcher_ha.db import models

APPLIERS = ['applier-1', 'applier-2']
# Where the signal comes: the action whose state shows the step (in
# the database), the state, and the request of the next one held at the
# simulator meanwhile (method, path pattern of the case's ids), so that
# the signal comes before the step after it.
STEPS = {
    'after fencing': ('force_host_down', 'SUCCEEDED',
                      ('DELETE', '/servers/{active}$')),
    'after the first volume': ('move_volume_attachment', 'SUCCEEDED',
                               ('GET', '/volumes/{second_volume}$')),
    'after activation': ('activate', 'SUCCEEDED',
                         ('GET', '/os-server-groups/{group}$')),
    'during replacement': ('replace_member', 'ONGOING',
                           ('POST', '/servers$')),
}
# Seconds a held request waits at the simulator: more than the test
# takes to see the step and signal, less than a take-over; and to see the
# plan and arm a cut at one of its actions' rows.
HOLD = 3
CUT_HOLD = 1.5
SIGNALS = {'killed': signal.SIGKILL, 'paused': signal.SIGSTOP}
SIGNAL_CASES = [(step, how) for step in STEPS for how in SIGNALS]
# The applier's writes of the plan's rows: (what is written, the type of
# the action whose row it is, None for the plan's, the statement that
# writes it: a pattern, of that action's id). Of the actions', those of
# the eviction (the point of no return) and the end of each action after
# it: recover() then finds its effect in place.
DONE = r"^UPDATE actions SET state='SUCCEEDED'.* WHERE actions.id = {id} "
WRITES = [
    ('plan taken', None, r"^UPDATE action_plans SET state='ONGOING'"),
    ('eviction taken', 'evict_member',
     r"^UPDATE actions SET state='ONGOING'.* WHERE actions.id = {id} "),
    ('eviction let through its fence', 'evict_member',
     r"^UPDATE actions SET fenced_at=.* WHERE actions.id = {id} "),
    ('eviction done', 'evict_member', DONE),
    ('first volume moved', 'move_volume_attachment', DONE),
    ('activation done', 'activate', DONE),
    ('replacement done', 'replace_member', DONE),
    ('plan done', None, r"^UPDATE action_plans SET state='SUCCEEDED'"),
]
CUTS = [('statement', 'before'), ('commit', 'after')]
CUT_CASES = [(what, kind, statement, at, when)
             for what, kind, statement in WRITES for at, when in CUTS]


def cut_name(what, at, when):
    return '%s, cut %s the %s' % (what, when, at)


CASES = (['%s, %s' % case for case in SIGNAL_CASES] + ['redis restart']
         + [cut_name(what, at, when)
            for what, _, _, at, when in CUT_CASES])
# From a signal to the plan's end: the take-over, then what is left of
# the failover (held requests included).
ENDS_WITHIN = ha_checks.TAKEOVER + 20
# From a cut to the plan's end: the applier's sweep finds the plan it
# holds and no run works on (or, untaken, the plan after pending_grace),
# then what is left of the failover.
CUT_ENDS_WITHIN = fixtures.Bound(daemons.SWEEP_INTERVAL,
                                 daemons.PENDING_GRACE, CUT_HOLD, work=10)


def hosts_of(index):
    """The hosts of the active and the standby of case ``index``."""
    return 'case-%02d-active' % index, 'case-%02d-standby' % index


def volumes_of(index):
    return tuple('0c%06d-0000-4000-8000-00000000000%d' % (index, n)
                 for n in (1, 2))


# A host for each replacement: the scheduler takes the least used host
# first, by name among equals, so that no replacement lands on the host
# a later case fails.
BAYS = ['bay-%02d' % index for index in range(len(CASES))]
SPEC = {
    'power_seconds': 0.2, 'boot_seconds': 1,
    'hosts': [scenario_host(name) for name in BAYS]
    + [scenario_host(name) for index in range(len(CASES))
       for name in hosts_of(index)],
    'servers': [],
    'storage': app_failover.storage(
        [volume for index in range(len(CASES))
         for volume in volumes_of(index)], capacity_gb=5000),
    # The guests' activation endpoint (/simulator/activations).
    'activation_secret': app_failover.SECRET}


@dataclasses.dataclass
class Cloud:
    cluster: object
    sim_url: str
    nova: object
    redis: object


@pytest.fixture(scope='module')
def cloud(tmp_path_factory, rabbit):
    folder = tmp_path_factory.mktemp('app-faults')
    with services.private_redis(folder) as redis, \
            services.cloud_cluster(
                folder, SPEC, app_failover.sections, rabbit,
                appliers=APPLIERS, proxied=True,
                coordination={'backend_url': redis.url}) as (cluster,
                                                             sim_url):
        yield Cloud(cluster, sim_url, nova_client(sim_url), redis)


@dataclasses.dataclass
class Case:
    """One case's application, and its audit."""
    name: str
    failed_host: str
    volumes: tuple
    group: str
    active: str
    standby: str
    audit: str


def new_case(cloud, name):
    """The application of the case ``name``, declared."""
    index = CASES.index(name)
    hosts = hosts_of(index)
    volumes = volumes_of(index)
    group, (active, standby) = application(cloud.nova, 'app-%02d' % index,
                                           hosts, volumes)
    audit = ha_checks.create_audit(
        cloud.cluster.url, audit_type='EVENT', name='app-%02d' % index,
        goal='application_availability', strategy='active_standby',
        auto_trigger=True, parameters={
            'server_group': group, 'activation': 'webhook',
            'activation_url': cloud.sim_url + '/simulator/activations'})
    return Case(name, hosts[0], volumes, group, active, standby, audit)


def fail(cloud, case):
    """The active's host loses power, and the application's webhook is
    called."""
    host_event(cloud.sim_url, case.failed_host, 'fail')
    trigger(cloud.cluster, case.audit)


def plan_of(cloud, case):
    """(the plan's id, uuid, state, applier), or None before it is
    stored."""
    audit, plan = models.Audit, models.ActionPlan
    with cloud.cluster.engine.connect() as conn:
        return conn.execute(sa.select(
            plan.id, plan.uuid, plan.state, plan.hostname).join(
                audit, plan.audit_id == audit.id).where(
                    audit.uuid == case.audit)).first()


def actions_in(cloud, plan):
    """{action type: [its actions' states]} of ``plan`` (its id)."""
    found = {}
    with cloud.cluster.engine.connect() as conn:
        for kind, state_ in conn.execute(sa.select(
                models.Action.action_type, models.Action.state).where(
                    models.Action.action_plan_id == plan).order_by(
                        models.Action.id)):
            found.setdefault(kind, []).append(state_)
    return found


def holds(cloud, plan):
    """How many members and volumes ``plan`` (its id) holds."""
    with cloud.cluster.engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(
            models.PlanHold).where(
                models.PlanHold.action_plan_id == plan)).scalar()


def action_ids(cloud, plan, kind):
    """The ids of ``plan``'s actions of type ``kind``, in order."""
    with cloud.cluster.engine.connect() as conn:
        return conn.execute(sa.select(models.Action.id).where(
            models.Action.action_plan_id == plan,
            models.Action.action_type == kind).order_by(
                models.Action.id)).scalars().all()


def hold(cloud, method, path, seconds=HOLD):
    """The next request ``method`` ``path`` (a pattern) waits ``seconds``
    at the simulator before it is served."""
    faults(cloud, [{'method': method, 'path': path, 'delay': seconds,
                    'count': 1}])


def faults(cloud, api_failures):
    requests.put(cloud.sim_url + '/simulator/faults', json={
        'api_failures': api_failures}, timeout=10).raise_for_status()


def at_step(cloud, case, step):
    """Once the plan of ``case`` is stored, hold the request that follows
    ``step``; then wait until the step shows in the database and the held
    request reached the simulator: the plan's row."""
    kind, reached, (method, path) = STEPS[step]
    plan = wait_for(lambda: plan_of(cloud, case), 30, 'the plan stored')
    hold(cloud, method, path.format(
        active=case.active, second_volume=case.volumes[1],
        group=case.group))
    wait_for(lambda: reached in actions_in(cloud, plan.id).get(kind, ())
             and not held(cloud), 30, '%s %s' % (kind, reached),
             every=0.02)
    return plan_of(cloud, case)


def held(cloud):
    """The requests still to be held (a held one is no longer listed)."""
    return requests.get(cloud.sim_url + '/simulator/faults',
                        timeout=10).json()['api_failures']


def check_step(step, actions):
    """The signal came at ``step``: the action after it has not ended
    (``actions``: as the database showed them once the runner stopped)."""
    if step == 'after fencing':
        assert actions['evict_member'] == ['ONGOING'], actions
    elif step == 'after the first volume':
        assert sorted(actions['move_volume_attachment']) == [
            'ONGOING', 'SUCCEEDED'], actions
    else:
        assert actions['replace_member'] == ['ONGOING'], actions


def ended(cloud, case, within):
    """The plan, once it ended (within ``within``)."""
    def end():
        plan = plan_of(cloud, case)
        return plan if plan and plan.state in ha_checks.PLAN_ENDS else None
    return wait_for(end, within, 'the plan ended')


def logged(cloud, name, text):
    return text in (cloud.cluster.tmp_path / (name + '.log')).read_text()


def check_failover(cloud, case, sampler):
    """The failover of ``case`` done, each part of it once."""
    plan = plan_of(cloud, case)
    assert plan.state == 'SUCCEEDED', (plan, actions_in(cloud, plan.id))
    sampler.stop()
    # Ended with nothing held: the application may fail over again.
    assert holds(cloud, plan.id) == 0
    wait_for(lambda: audit_of(cloud.cluster, case.audit)['state']
             == 'SUCCEEDED', 10, 'the audit ended')
    found = state(cloud.sim_url)
    assert case.active not in found['servers']
    for volume in case.volumes:
        assert found['volumes'][volume]['attached_to'] == [case.standby]
        assert [a['server'] for a in found['attaches']
                if a['volume'] == volume] == [case.active, case.standby]
    # Delivered once (no case stops the activation between its delivery
    # and its mark), acted on once by the guest, marked once in Nova.
    deliveries = [d for d in found['activations']
                  if d['server'] == case.standby]
    assert [(d['signed'], d['status'], d['acted']) for d in deliveries] \
        == [(True, 200, True)], deliveries
    metadata = found['servers'][case.standby]['metadata']
    assert metadata['role'] == 'active'
    assert sampler.marked[case.standby] == [
        metadata[members.ACTIVATED_KEY]]
    replacements = [uuid for uuid, server in found['servers'].items()
                    if server['metadata'].get(members.REPLACES_KEY)
                    == case.active]
    assert len(replacements) == 1, replacements
    assert found['servers'][replacements[0]]['vm_state'] == 'active'
    assert found['servers'][replacements[0]]['host'] in BAYS
    assert sampler.samples > 0
    assert sampler.shared == []
    assert [w for w in found['shared_writes']
            if w['volume'] in case.volumes] == []


def sampled(cloud, case):
    sampler = Sampler(cloud.sim_url, case.volumes,
                      {case.standby: members.ACTIVATED_KEY})
    sampler.start()
    return sampler


@pytest.mark.parametrize('step,how', SIGNAL_CASES,
                         ids=['%s, %s' % case for case in SIGNAL_CASES])
def test_the_applier_lost_at_each_step(cloud, step, how):
    """Killed, its plan is adopted by the other applier once it is
    presumed gone; paused, it is adopted the same way, and resumed once
    it was: what it was doing stops at its fence."""
    case = new_case(cloud, '%s, %s' % (step, how))
    sampler = sampled(cloud, case)
    runner = None
    try:
        fail(cloud, case)
        runner = at_step(cloud, case, step).hostname
        cloud.cluster.kill(runner, SIGNALS[how])
        plan = plan_of(cloud, case)
        check_step(step, actions_in(cloud, plan.id))
        if how == 'paused':
            ha_checks.adopter(cloud.cluster, plan._asdict(), runner)
            cloud.cluster.kill(runner, signal.SIGCONT)
        ended(cloud, case, ENDS_WITHIN)
        if how == 'paused':
            wait_for(lambda: logged(cloud, runner, 'Action plan %s stops '
                                    'on %s' % (plan.uuid, runner)),
                     ha_checks.TAKEOVER, 'the resumed applier stopped')
        check_failover(cloud, case, sampler)
    finally:
        sampler.stop()
        faults(cloud, [])
        if runner is not None:
            revive(cloud, runner)


def revive(cloud, name):
    """The applier ``name`` runs again, for the next case: started if it
    was killed, resumed if it is paused."""
    if cloud.cluster.processes[name].poll() is None:
        cloud.cluster.kill(name, signal.SIGCONT)
    else:
        cloud.cluster.start_daemons(appliers=[name])


def test_the_failover_goes_on_while_redis_restarts(cloud):
    """Redis stops (every member and lock lost) while the eviction's
    delete is on its way, and starts again empty three seconds later."""
    case = new_case(cloud, 'redis restart')
    sampler = sampled(cloud, case)
    try:
        fail(cloud, case)
        runner = at_step(cloud, case, 'after fencing').hostname
        cloud.redis.stop()
        time.sleep(HOLD)
        cloud.redis.start()
        # Nobody was presumed gone: no take-over.
        assert ended(cloud, case, ENDS_WITHIN).hostname == runner
        check_failover(cloud, case, sampler)
    finally:
        sampler.stop()
        faults(cloud, [])


@pytest.mark.parametrize(
    'what,kind,statement,at,when', CUT_CASES,
    ids=[cut_name(what, at, when) for what, _, _, at, when in CUT_CASES])
def test_a_connection_cut_at_each_write_of_the_plan(cloud, what, kind,
                                                   statement, at, when):
    """The applier's run stops on the lost connection, and its sweep
    finds the plan it holds and no run works on: the actions it left
    ONGOING are asked what the cloud shows, and the plan goes on."""
    case = new_case(cloud, cut_name(what, at, when))
    proxy = cloud.cluster.proxy
    cuts = len(proxy.fired)
    sampler = sampled(cloud, case)
    try:
        # The plan waits at its fencing meanwhile (the host forced down
        # in Nova; it is off already, and powering it off asks nothing):
        # long enough to arm the cut at its action's row.
        hold(cloud, 'PUT', '/os-services/', CUT_HOLD)
        if kind is None:
            proxy.arm(statement, at=at, when=when)
        fail(cloud, case)
        if kind is not None:
            plan = wait_for(lambda: plan_of(cloud, case), 30,
                            'the plan stored', every=0.02)
            proxy.arm(statement.format(
                id=action_ids(cloud, plan.id, kind)[0]), at=at, when=when)
            # Armed in time.
            assert actions_in(cloud, plan.id)[kind][0] == 'PENDING'
        proxy.wait_fired(cuts + 1, timeout=30)
        ended(cloud, case, CUT_ENDS_WITHIN)
        check_failover(cloud, case, sampler)
    finally:
        proxy.disarm()
        sampler.stop()
        faults(cloud, [])
