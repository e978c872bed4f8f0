"""Membership on the three controllers' etcd cluster (issue 30, item 4):
tooz's etcd3+http driver, each daemon through its own controller's
HAProxy in front of the three members (tools/controllers.py).

* An etcd member killed, and separately the leader's member killed (a
  new leader elected), takes nobody's work: every plan ends on the
  applier that started it, and no applier counts an ownership change.
* Controller 3's etcd cut off from the other two (tools/partitions.py:
  its member on the minority side, its HAProxy unable to reach theirs):
  its applier, still reaching its database and the cloud, finds itself
  cut off and gives its plans up before controller 1's applier adopts
  them; the plans end there, each once. Healed, it acts again.

Two appliers run plans of long sleeps, each writing through its own
controller's Galera node ([watcher_applier] recovery = resume, so that a
plan taken over runs to its end).
"""

import re
import signal
import time

import pytest
import requests

from tests import factories
from tests.functional import daemons
from tests.functional import fixtures
from tools import controllers
from tools import partitions
from watcher_ha.common import context
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import engine as db_engine
from watcher_ha.db import plan_runs
from watcher_ha.service import coordination

pytestmark = [pytest.mark.functional, pytest.mark.three_controllers]

# Outlasts a member's restart and a leader's election with room to
# spare, and the cut-off and take-over of the partition.
SLEEP_SECONDS = 45
# When the others may adopt the work of a member whose backend went
# silent: its record's lifetime, then member_timeout of absence.
ADOPTION_SECONDS = daemons.MEMBER_TIMEOUT * (1 + coordination.RECORD_SHARE)


def _metric(port, name):
    text = requests.get('http://127.0.0.1:%d/metrics' % port,
                        timeout=10).text
    pattern = r'^%s(\{[^}]*\})? (\S+)$' % re.escape(name)
    return sum(float(m.group(2)) for m in re.finditer(pattern, text, re.M))


def _plans(uuids):
    return {uuid: plan_runs.get(context.admin_context(), uuid)
            for uuid in uuids}


def _sleeping_plans(count):
    engine = db_engine.get_engine()
    return [factories.action_plan(
        engine, factories.audit(engine), state=ActionPlanState.PENDING,
        kinds=[('sleep', {'duration': SLEEP_SECONDS})])[0]['uuid']
        for _ in range(count)]


def _wait_running(uuids, host):
    fixtures.wait_for(lambda: all(
        p['state'] == ActionPlanState.ONGOING and p['hostname'] == host
        for p in _plans(uuids).values()), 60,
        '%s running %s' % (host, uuids))


def _owners(uuids):
    return {uuid: p['hostname'] for uuid, p in _plans(uuids).items()}


def _wait_succeeded(uuids):
    fixtures.wait_for(lambda: all(
        p['state'] == ActionPlanState.SUCCEEDED
        for p in _plans(uuids).values()), SLEEP_SECONDS * 3,
        'every plan SUCCEEDED')


@pytest.fixture
def appliers(three_controllers, galera_database, tmp_path):
    """Appliers on controllers 1 and 3, each on its own controller's
    Galera node and etcd HAProxy, two plans running on each; yields
    ({name: metrics port}, {applier: its plans}, the folder of their
    logs)."""
    c1, _c2, c3 = three_controllers
    ports = {name: fixtures.free_port()
             for name in ('api', 'applier-1', 'applier-3')}

    def urls(controller):
        return controllers.urls(controller, three_controllers)

    with daemons.cluster(
            tmp_path, galera_database['c1'], urls(c1)['transport'],
            DEFAULT={'auth_strategy': 'noauth'},
            coordination={'backend_url': urls(c1)['coordination']},
            metrics={'enabled': True, 'api_port': ports['api']},
            watcher_applier={'recovery': 'resume'}
    ) as cluster:
        plans = {}
        # Controller 3's applier takes two plans, then controller 1's
        # the next two (controller 3's is busy with max_plans); controller
        # 1's has room for controller 3's too.
        for name, controller, room in (('applier-3', c3, 2),
                                       ('applier-1', c1, 4)):
            cluster.start('applier', name, database={
                'connection': galera_database[controller.name]},
                coordination={
                    'backend_url': urls(controller)['coordination']},
                metrics={'applier_port': ports[name]},
                watcher_applier={'max_plans': room})
            cluster.wait_registered(name, 'watcher-ha-applier')
            plans[name] = _sleeping_plans(2)
            _wait_running(plans[name], name)
        yield ports, plans, tmp_path


@pytest.mark.parametrize('which', ['member', 'leader'])
def test_an_etcd_member_killed_takes_nobodys_work(three_controllers,
                                                  appliers, which):
    _c1, _c2, c3 = three_controllers
    ports, by_applier, _logs = appliers
    plans = [uuid for uuids in by_applier.values() for uuid in uuids]
    owners = _owners(plans)
    changes = {name: _metric(port, 'watcher_ha_ownership_changes_total')
               for name, port in ports.items() if name != 'api'}
    # Controller 3's own member, which its applier's HAProxy prefers; or
    # whichever leads, a new leader elected by the other two.
    victim = controllers.etcd_leader(three_controllers) if (
        which == 'leader') else c3
    killed = time.monotonic()
    assert controllers.signal_backend(victim, 'etcd', signal.SIGKILL)
    try:
        if which == 'leader':
            fixtures.wait_for(lambda: controllers.etcd_leader(
                [c for c in three_controllers if c != victim]) not in (
                    None, victim), 30, 'a new etcd leader')
            print('new etcd leader after %.1f s'
                  % (time.monotonic() - killed))
        # Longer than the others would need to adopt the work of a
        # member whose records lapsed.
        time.sleep(ADOPTION_SECONDS + daemons.MEMBERSHIP_REFRESH * 3)
        assert _owners(plans) == owners
        for name, port in ports.items():
            if name != 'api':
                assert _metric(port, 'watcher_ha_coordination_cut_off') == 0
                assert _metric(port, 'watcher_ha_ownership_changes_total'
                               ) == changes[name], name
    finally:
        controllers.start(victim, three_controllers)
    _wait_succeeded(plans)
    assert _owners(plans) == owners


def test_a_controller_cut_off_from_etcds_majority_gives_up_first(
        three_controllers, appliers):
    why = partitions.available()
    if why:
        pytest.fail('the partition test cannot run here: %s' % why,
                    pytrace=False)
    _c1, _c2, c3 = three_controllers
    ports, by_applier, logs = appliers
    on_c3 = by_applier['applier-3']
    plans = on_c3 + by_applier['applier-1']

    cut = time.monotonic()
    controllers.cut(c3, three_controllers, backends=('etcd',))
    try:
        fixtures.wait_for(lambda: _metric(
            ports['applier-3'], 'watcher_ha_coordination_cut_off') == 1,
            ADOPTION_SECONDS * 2, 'applier-3 cut off')
        gave_up = time.monotonic() - cut
        # It gave up (stopped running them) before anybody adopted its
        # plans.
        assert set(_owners(on_c3).values()) == {'applier-3'}
        assert 'given up: applier-3 is cut off from its group' in (
            logs / 'applier-3.log').read_text()
        fixtures.wait_for(lambda: set(_owners(on_c3).values()) == {
            'applier-1'}, ADOPTION_SECONDS * 3, 'applier-3\'s plans adopted')
        adopted = time.monotonic() - cut
        assert _metric(ports['applier-1'],
                       'watcher_ha_coordination_cut_off') == 0
    finally:
        controllers.heal(c3)
    healed = time.monotonic()
    fixtures.wait_for(lambda: _metric(
        ports['applier-3'], 'watcher_ha_coordination_cut_off') == 0,
        60, 'applier-3 reading its group again')
    back = time.monotonic() - healed
    _wait_succeeded(plans)
    assert set(_owners(plans).values()) == {'applier-1'}
    print('controller 3 cut off from etcd\'s majority: its applier gave '
          'its work up after %.1f s, which was adopted after %.1f s; it '
          'read its group again %.1f s after the partition healed'
          % (gave_up, adopted, back))
    assert gave_up < adopted
