"""A daemon whose Galera node loses its quorum stops acting, says so, and
its work goes on elsewhere; the daemons of the other controllers carry on
(issue 30: "Galera node 3 isolated from the other two: the daemons on
controller 3 stop acting within member_timeout; the others carry on").

Two appliers, on controllers 1 and 3, each writing through its own
controller's Galera node and in its group through its own controller's
etcd HAProxy, run plans of long sleeps ([watcher_applier]
recovery = resume, so that a plan taken over runs to its end). Controller
3's node is cut off from the two others (controllers.isolate: Galera's
gmcast.isolate, everything else of controller 3 running): it goes
non-Primary and refuses reads and writes. Its applier must say so (its
health check, its watcher_ha_database_ready gauge), step out of its group
(the API lists it FAILED), and its plans must be adopted by controller
1's applier and end SUCCEEDED there, as controller 1's own plans do.
When the node rejoins, the applier joins its group again.
"""

import re
import time

import pytest
import requests

from tests.functional import daemons
from tests.functional import fixtures
from tests.functional.three_controllers import sleeping_plans
from tools import controllers
from watcher_ha.common.states import ActionPlanState

pytestmark = [pytest.mark.functional, pytest.mark.three_controllers]

# Long enough to outlast the isolation, the step out and the take-over
# (member_timeout) with room to spare.
SLEEP_SECONDS = 60
# Galera's view change (tools/controllers.py) and a membership refresh.
STEP_OUT_SECONDS = daemons.MEMBER_TIMEOUT


def _health(port):
    try:
        resp = requests.get('http://127.0.0.1:%d/healthcheck' % port,
                            timeout=10)
    except requests.RequestException:
        return None
    return resp.status_code, resp.text


def _ready_gauge(port):
    text = requests.get('http://127.0.0.1:%d/metrics' % port,
                        timeout=10).text
    found = re.search(r'^watcher_ha_database_ready (\S+)$', text, re.M)
    return found and float(found.group(1))


def _status(cluster, host):
    services = requests.get(cluster.url + '/v1/services',
                            timeout=10).json()['services']
    return next((s['status'] for s in services if s['host'] == host), None)


def test_the_appliers_of_an_isolated_node_stop_and_the_others_carry_on(
        three_controllers, galera_database, tmp_path):
    c1, _c2, c3 = three_controllers
    with sleeping_plans.on_two_appliers(
            three_controllers, galera_database, tmp_path,
            SLEEP_SECONDS) as (cluster, ports, plans):
        on_c1, on_c3 = plans['applier-1'], plans['applier-3']
        assert _health(ports['applier-3'])[0] == 200
        assert _ready_gauge(ports['applier-3']) == 1

        isolated = time.monotonic()
        controllers.isolate(c3)
        try:
            fixtures.wait_for(
                lambda: 'database not ready' in (
                    _health(ports['applier-3']) or (0, ''))[1],
                STEP_OUT_SECONDS * 3, 'applier-3 not ready')
            said_so = time.monotonic() - isolated
            assert _ready_gauge(ports['applier-3']) == 0
            fixtures.wait_for(
                lambda: _status(cluster, 'applier-3') == 'FAILED',
                STEP_OUT_SECONDS * 3, 'applier-3 out of its group')
            left = time.monotonic() - isolated
            # The others carry on: controller 1's applier adopts
            # controller 3's plans, and runs its own, to their end.
            fixtures.wait_for(lambda: all(
                p['hostname'] == 'applier-1'
                for p in sleeping_plans.rows(on_c3).values()), 60,
                'applier-3\'s plans adopted')
            adopted = time.monotonic() - isolated
            assert _health(ports['applier-1'])[0] == 200
            assert _ready_gauge(ports['applier-1']) == 1
            fixtures.wait_for(lambda: all(
                p['state'] == ActionPlanState.SUCCEEDED
                for p in sleeping_plans.rows(on_c1 + on_c3).values()),
                SLEEP_SECONDS * 2, 'every plan SUCCEEDED')
        finally:
            controllers.rejoin(c3)
        rejoined = time.monotonic()
        fixtures.wait_for(
            lambda: (_health(ports['applier-3']) or (0,))[0] == 200
            and _status(cluster, 'applier-3') == 'ACTIVE', 60,
            'applier-3 back in its group')
        back = time.monotonic() - rejoined
        assert _ready_gauge(ports['applier-3']) == 1
        ended = sleeping_plans.rows(on_c1 + on_c3)
        assert {p['hostname'] for p in ended.values()} == {'applier-1'}
    print('isolated controller 3: its applier said so after %.1f s, was '
          'out of its group after %.1f s, its plans adopted after %.1f s; '
          'back in its group %.1f s after the node rejoined'
          % (said_so, left, adopted, back))
    assert said_so <= daemons.MEMBER_TIMEOUT
