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

Two appliers run plans of long sleeps (sleeping_plans.on_two_appliers).
"""

import re
import signal
import time

import pytest
import requests

from tests.functional import daemons
from tests.functional import fixtures
from tests.functional.three_controllers import sleeping_plans
from tools import controllers
from tools import partitions
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


@pytest.fixture
def appliers(three_controllers, galera_database, tmp_path):
    """({name: metrics port}, {applier: its plans}, the folder of their
    logs): sleeping_plans.on_two_appliers."""
    with sleeping_plans.on_two_appliers(
            three_controllers, galera_database, tmp_path,
            SLEEP_SECONDS) as (_cluster, ports, plans):
        yield ports, plans, tmp_path


@pytest.mark.parametrize('which', ['member', 'leader'])
def test_an_etcd_member_killed_takes_nobodys_work(three_controllers,
                                                  appliers, which):
    _c1, _c2, c3 = three_controllers
    ports, by_applier, _logs = appliers
    plans = [uuid for uuids in by_applier.values() for uuid in uuids]
    owners = sleeping_plans.owners(plans)
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
        assert sleeping_plans.owners(plans) == owners
        for name, port in ports.items():
            if name != 'api':
                assert _metric(port, 'watcher_ha_coordination_cut_off') == 0
                assert _metric(port, 'watcher_ha_ownership_changes_total'
                               ) == changes[name], name
    finally:
        controllers.start(victim, three_controllers)
    sleeping_plans.wait_succeeded(plans, SLEEP_SECONDS * 3)
    assert sleeping_plans.owners(plans) == owners


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
        assert set(sleeping_plans.owners(on_c3).values()) == {'applier-3'}
        assert 'given up: applier-3 is cut off from its group' in (
            logs / 'applier-3.log').read_text()
        fixtures.wait_for(
            lambda: set(sleeping_plans.owners(on_c3).values()) == {
                'applier-1'},
            ADOPTION_SECONDS * 3, 'applier-3\'s plans adopted')
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
    sleeping_plans.wait_succeeded(plans, SLEEP_SECONDS * 3)
    assert set(sleeping_plans.owners(plans).values()) == {'applier-1'}
    print('controller 3 cut off from etcd\'s majority: its applier gave '
          'its work up after %.1f s, which was adopted after %.1f s; it '
          'read its group again %.1f s after the partition healed'
          % (gave_up, adopted, back))
    assert gave_up < adopted
