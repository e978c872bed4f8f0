"""A daemon whose Galera node loses its quorum stops acting, says so, and
its work goes on elsewhere; the daemons of the other controllers carry on
(issue 30: "Galera node 3 isolated from the other two: the daemons on
controller 3 stop acting within member_timeout; the others carry on").

Two appliers, on controllers 1 and 3, each writing through its own
controller's Galera node, run plans of long sleeps ([watcher_applier]
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

from tests import servers
from tests.functional import daemons
from tests.functional import fixtures
from tests.helpers import plans as plans_helpers
from tools import controllers
from watcher_ha.common import context
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import plan_runs

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


def _plans(uuids):
    return {uuid: plan_runs.get(context.admin_context(), uuid)
            for uuid in uuids}


def _wait_running(uuids, host):
    fixtures.wait_for(lambda: all(
        p['state'] == ActionPlanState.ONGOING and p['hostname'] == host
        for p in _plans(uuids).values()), 60,
        '%s running %s' % (host, uuids))


def test_the_appliers_of_an_isolated_node_stop_and_the_others_carry_on(
        three_controllers, galera_database, tmp_path):
    c1, _c2, c3 = three_controllers
    ports = {name: fixtures.free_port()
             for name in ('api', 'applier-1', 'applier-3')}
    with daemons.cluster(
            tmp_path, galera_database['c1'],
            controllers.urls(c1, three_controllers)['transport'],
            DEFAULT={'auth_strategy': 'noauth'},
            coordination={'backend_url': servers.redis_coordination_url()},
            metrics={'enabled': True, 'api_port': ports['api']},
            watcher_applier={'recovery': 'resume'}
    ) as cluster:
        def start(name, controller, plans):
            cluster.start('applier', name, database={
                'connection': galera_database[controller.name]},
                metrics={'applier_port': ports[name]},
                watcher_applier={'max_plans': plans})
            cluster.wait_registered(name, 'watcher-ha-applier')

        # Controller 3's applier takes two plans, then controller 1's
        # the next two (controller 3's is busy with max_plans); controller
        # 1's has room for controller 3's too (an adoption waits for a
        # free worker).
        start('applier-3', c3, 2)
        on_c3 = plans_helpers.sleeping_plans(2, SLEEP_SECONDS)
        _wait_running(on_c3, 'applier-3')
        start('applier-1', c1, 4)
        on_c1 = plans_helpers.sleeping_plans(2, SLEEP_SECONDS)
        _wait_running(on_c1, 'applier-1')
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
                for p in _plans(on_c3).values()), 60,
                'applier-3\'s plans adopted')
            adopted = time.monotonic() - isolated
            assert _health(ports['applier-1'])[0] == 200
            assert _ready_gauge(ports['applier-1']) == 1
            fixtures.wait_for(lambda: all(
                p['state'] == ActionPlanState.SUCCEEDED
                for p in _plans(on_c1 + on_c3).values()),
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
        ended = _plans(on_c1 + on_c3)
        assert {p['hostname'] for p in ended.values()} == {'applier-1'}
    print('isolated controller 3: its applier said so after %.1f s, was '
          'out of its group after %.1f s, its plans adopted after %.1f s; '
          'back in its group %.1f s after the node rejoined'
          % (said_so, left, adopted, back))
    assert said_so <= daemons.MEMBER_TIMEOUT
