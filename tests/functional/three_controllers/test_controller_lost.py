"""Issue 30's acceptance: controller 2 lost whole while work runs on every
controller; nothing lost, nothing done twice (controller_lost says what
runs and what is checked).

* Killed: every process of controller 2 (its Galera, RabbitMQ and etcd
  nodes, its API, decision engine and applier) SIGKILLed at the same
  instant. Its plans, audits and recovery are adopted by the others and
  end; the time to their adoption is printed.
* Frozen: every process of it SIGSTOPped past the take-over time, then
  SIGCONTed: its work adopted meanwhile is not done again by it, and its
  daemons are back ACTIVE in GET /v1/services.

The reduced version (two controllers' daemons, a few plans, the kill) is
in `make test`; the full one (every controller's daemons, 20 plans, a
recovery, the kill and the freeze) in `make test-acceptance`.
"""

import contextlib
import signal
import time

import pytest
import sqlalchemy as sa

from tests.functional import cloud
from tests.functional import daemons
from tests.functional import fixtures
from tests.functional.three_controllers import controller_daemons
from tests.functional.three_controllers import controller_lost
from tools import controllers

pytestmark = [pytest.mark.functional, pytest.mark.three_controllers]

# After a freeze, the lost controller is back: its Galera node rejoins
# the cluster (it was out of the view), its daemons find the database
# again and join their groups.
REJOIN = fixtures.Bound(controllers.GALERA_INACTIVE_SECONDS,
                        daemons.MEMBER_TIMEOUT, daemons.MEMBERSHIP_REFRESH,
                        work=30)
# A frozen controller stays frozen this long after its work was adopted:
# its daemons, thawed, find their plans and audits in other hands.
FROZEN_PAST_TAKEOVER = daemons.MEMBER_TIMEOUT / 2
# From its daemons back in their groups to its engine's share of the
# audits back: presumed nobody's for member_timeout after joining, then
# each engine's next look at the ring hands the audits over.
SHARE_BACK = fixtures.Bound(daemons.MEMBER_TIMEOUT,
                            2 * daemons.MEMBERSHIP_REFRESH, work=5)


def _by_name(members, name):
    return next(c for c in members if c.name == name)


def _synced(controller):
    status = controllers.galera_status(controller)
    return (status.get('wsrep_ready') == 'ON'
            and status.get('wsrep_local_state_comment') == 'Synced')


@pytest.fixture
def lost_controller_back(three_controllers):
    """Controller 2's backends running and its Galera node synced after
    the test, for the next test of the session."""
    yield
    lost = _by_name(three_controllers, controller_lost.LOST)
    controllers.signal_all(lost, signal.SIGCONT)
    controllers.start(lost, three_controllers)
    fixtures.wait_for(lambda: _synced(lost), controllers.READY_TIMEOUT,
                      'Galera node of %s synced' % lost.name, every=0.5)


def _wait_back(deployment, controller):
    """Until ``controller``'s own API lists its daemons ACTIVE: its
    API serves again, through its Galera node, and each of its daemons
    is in its group."""
    for daemon in controller_daemons.DAEMONS:
        deployment.wait_active(controller.name, daemon, timeout=REJOIN,
                               via=controller.name)


def _lose_controller_2(size, fault, members, database_urls, tmp_path,
                       config):
    """Run ``size``'s work on its controllers' daemons, lose controller 2
    by ``fault`` (SIGKILL or SIGSTOP of all its processes, SIGCONT past
    the take-over), and check."""
    lost = _by_name(members, controller_lost.LOST)
    first = members[0]
    spec = controller_lost.cloud_spec(size)
    began = time.monotonic()
    with contextlib.ExitStack() as stack:
        sim_url = stack.enter_context(cloud.simulator(tmp_path / 'sim',
                                                      spec))
        # The test's ear on the bus, on controller 1's broker alone: its
        # queue stays there, which the loss leaves (oslo.messaging picks
        # one of a URL's brokers at random; what a daemon's loss of its
        # broker costs it is the daemons' business, not the observer's).
        controller_daemons.test_process_messaging(config)
        notes = daemons.Notifications(
            'rabbit://guest:guest@127.0.0.1:%d/' % first.port('amqp'))
        stack.callback(notes.stop)
        sections = cloud.nova_sections(sim_url)
        sections['watcher_applier'].update(
            controller_lost.SECTIONS['watcher_applier'],
            max_plans=size.plans + controller_lost.SPARE_PLANS)
        deployment = stack.enter_context(controller_daemons.deployment(
            tmp_path, members, database_urls, **sections))
        deployment.start(size.controllers)
        engine = sa.create_engine(database_urls[first.name])
        stack.callback(engine.dispose)
        scenario = controller_lost.Scenario(deployment, engine, notes,
                                            sim_url, spec, size)
        scenario.start()
        held = scenario.held_by(lost.name)
        print('%s holds %d plans, %d continuous audits, the recovery\'s %s '
              '(%d plans, %d audits in all), %.0f s after the start' % (
                  lost.name, len(held['plans']), len(held['audits']),
                  held['recovery'] or 'nothing', len(scenario.started),
                  len(scenario.audits), time.monotonic() - began))
        assert held['plans'] and held['audits']

        lost_at = time.monotonic()
        controllers.signal_all(lost, fault)
        # The daemons went with the controller's backends.
        fixtures.wait_for(lambda: set(deployment.process_states(
            lost.name).values()) == {
                'T' if fault == signal.SIGSTOP else 'gone'}, 10,
            '%s\'s daemons stopped by the signal' % lost.name)
        if fault == signal.SIGSTOP:
            try:
                adopted = scenario.wait_adopted(lost.name, lost_at)
                time.sleep(FROZEN_PAST_TAKEOVER)
            finally:
                controllers.signal_all(lost, signal.SIGCONT)
            thawed = time.monotonic()
            print('%s thawed after %.1f s frozen' % (lost.name,
                                                     thawed - lost_at))
            _wait_back(deployment, lost)
            print('%s\'s daemons ACTIVE again %.1f s after the thaw'
                  % (lost.name, time.monotonic() - thawed))
            # Back at work: the ring gives its engine its audits again.
            fixtures.wait_for(lambda: scenario.held_by(lost.name)['audits'],
                              SHARE_BACK, '%s\'s engine running audits '
                              'again' % lost.name, every=0.5)
            print('%s\'s engine runs audits again %.1f s after the thaw'
                  % (lost.name, time.monotonic() - thawed))
        else:
            adopted = scenario.wait_adopted(lost.name, lost_at)
        scenario.check(lost_engine=[lost.name])
        if fault == signal.SIGSTOP:
            # Still there once everything ended: none of its daemons
            # stepped out for good meanwhile.
            _wait_back(deployment, lost)
        print('every plan and the recovery ended %.1f s after the loss; '
              'the whole scenario took %.0f s' % (
                  time.monotonic() - lost_at, time.monotonic() - began))
    assert adopted < controller_lost.TAKEOVER.seconds()


@pytest.mark.controllers_reduced
def test_reduced_a_controller_killed_whole(
        three_controllers, galera_database, tmp_path, lost_controller_back,
        config):
    _lose_controller_2(controller_lost.REDUCED, signal.SIGKILL,
                       three_controllers, galera_database, tmp_path, config)


@pytest.mark.acceptance
def test_a_controller_killed_whole(three_controllers, galera_database,
                                   tmp_path, lost_controller_back, config):
    _lose_controller_2(controller_lost.FULL, signal.SIGKILL,
                       three_controllers, galera_database, tmp_path, config)


@pytest.mark.acceptance
def test_a_controller_frozen_past_the_takeover_then_thawed(
        three_controllers, galera_database, tmp_path, lost_controller_back,
        config):
    _lose_controller_2(controller_lost.FULL, signal.SIGSTOP,
                       three_controllers, galera_database, tmp_path, config)
