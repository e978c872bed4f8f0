"""RPC and the model feed on a RabbitMQ cluster of three nodes with quorum
queues (issue 30, build item 3; acceptance: "the RabbitMQ node holding
the fanout queues killed: no work taken over, the model catches up").

Two decision engines and two appliers, on controllers 1 and 2, each with
the transport_url of its controller (the three brokers, its own first)
and the controllers' [oslo_messaging_rabbit] options
(controllers.rabbit_options: quorum queues, transient ones too). The
simulator stands in for Nova, on controller 2's brokers with the same
options, as Nova's configuration would give them.
"""

import contextlib
import threading
import time

import oslo_messaging
import pytest
import requests

from tests.functional import cloud
from tests.functional import daemons
from tests.functional import fixtures
from tests.functional import ha_checks
from tests.functional.three_controllers import controller_daemons
from tests.functional.three_controllers import sleeping_plans
from tests.helpers import plans as plan_helpers
from tools import controllers
from watcher_ha.common import context
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import engine as db_engine
from watcher_ha.db import plan_runs
from watcher_ha.decision_engine import rpcapi
from watcher_ha.decision_engine.feed import listener
from watcher_ha.decision_engine.feed import reconnects
from watcher_ha.simulator import scenario

pytestmark = [pytest.mark.functional, pytest.mark.three_controllers]

# host: the controller it runs on.
ENGINES = {'engine-1': 'c1', 'engine-2': 'c2'}
APPLIERS = {'applier-1': 'c1', 'applier-2': 'c2'}
SERVERS = 12
# The simulator's changes go on this long after the broker node dies.
CHANGES_AFTER_KILL = 5
# Seconds between two changes of a server's power state.
CHANGE_EVERY = 0.3
# Plans that outlast the kill, the failover and the catch-up.
SLEEP_SECONDS = 40
# Continuous audits held through the kill, and their interval.
AUDITS = 4
# From the kill to both models matching the cloud: the changes still
# under way, the driver's reconnection (rabbit_retry_interval, 1 s, then
# its backoff) or, for a connection that keeps trying the dead node, the
# feed watch's wait before it replaces the listener, the settling
# before the resync (reconnects.SETTLE_SECONDS), a full read of a small
# cloud.
CATCH_UP = fixtures.Bound(CHANGES_AFTER_KILL, 1 + 2 + 4,
                          reconnects.STUCK_SECONDS,
                          reconnects.SETTLE_SECONDS, work=15)


def _messaging_conf(path):
    """The controllers' [oslo_messaging_rabbit], as a file for the
    simulator (Nova's configuration would carry the same)."""
    fixtures.write_config(path, {
        'oslo_messaging_rabbit': controllers.rabbit_options()})
    return path


@pytest.fixture
def rabbit_cluster(three_controllers, galera_database, tmp_path):
    """(cluster, simulator URL): the daemons of controllers 1 and 2
    started."""
    transport = {c.name: controllers.urls(c, three_controllers)['transport']
                 for c in three_controllers}
    coordination = controller_daemons.coordination_urls(three_controllers)
    spec = scenario.generate(hosts=3, servers=SERVERS, seed=30)
    messaging = _messaging_conf(tmp_path / 'messaging.conf')
    with contextlib.ExitStack() as stack:
        sim_url = stack.enter_context(cloud.simulator(
            tmp_path / 'sim', spec, transport_url=transport['c2'],
            config_files=[messaging]))
        cluster = stack.enter_context(daemons.cluster(
            tmp_path, galera_database['c1'], transport['c1'],
            DEFAULT={'auth_strategy': 'noauth'},
            coordination={'backend_url': coordination['c1']},
            oslo_messaging_rabbit=controllers.rabbit_options(),
            **cloud.nova_sections(sim_url)))
        started = [(name, 'decision-engine', where)
                   for name, where in ENGINES.items()] + [
            (name, 'applier', where) for name, where in APPLIERS.items()]
        for name, command, where in started:
            cluster.start(command, name,
                          DEFAULT={'transport_url': transport[where]},
                          database={'connection': galera_database[where]},
                          coordination={'backend_url': coordination[where]})
        for name, command, _where in started:
            cluster.wait_registered(name, 'watcher-ha-' + command)
        cluster.transport = transport
        yield cluster, sim_url


class EngineModels:
    """The compute models of the engines, asked over RPC through
    controller 3's broker first (the one the tests do not kill)."""

    def __init__(self, transport_url, config):
        # The process's CONF, not a ConfigOpts of its own: oslo.messaging's
        # RPC client reads its tracing options from the transport's
        # configuration but registers them on the global one alone.
        controller_daemons.test_process_messaging(config)
        self.transport = oslo_messaging.get_rpc_transport(
            config.conf, url=transport_url)
        self.client = oslo_messaging.get_rpc_client(
            self.transport, oslo_messaging.Target(topic=rpcapi.TOPIC))

    def of(self, host):
        """{server uuid: (host, state)} of ``host``'s model, or None
        while it cannot answer or has had no full sync."""
        try:
            answer = self.client.prepare(server=host, timeout=10).call(
                context.admin_context().to_dict(), 'get_data_model_info',
                data_model_type='compute', audit_uuid=None)
        except oslo_messaging.MessagingException:
            return None
        if not answer['model'].get('ready'):
            return None
        return {entry['server_uuid']: (entry['node_hostname'],
                                       entry['server_state'])
                for entry in answer['context'] if 'server_uuid' in entry}

    def close(self):
        self.transport.cleanup()


@pytest.fixture
def engine_models(three_controllers, rabbit_cluster, config):
    models = EngineModels(controllers.urls(
        three_controllers[2], three_controllers)['transport'], config)
    try:
        yield models
    finally:
        models.close()


def _cloud(sim_url):
    servers_ = requests.get(sim_url + '/simulator/state',
                            timeout=30).json()['servers']
    return {uuid: (s['host'], s['vm_state']) for uuid, s in servers_.items()}


def _all_agree(sim_url, engine_models):
    expected = _cloud(sim_url)
    return all(engine_models.of(host) == expected for host in ENGINES)


class PowerChanges:
    """Stops and starts the cloud's servers, one after another, every
    CHANGE_EVERY seconds, from a thread of its own, as Nova's users
    would: each change a notification."""

    def __init__(self, sim_url):
        self.nova = cloud.nova(sim_url)
        self.sim_url = sim_url
        self.stopped = threading.Event()
        self.made = 0
        self.last = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        uuids = sorted(_cloud(self.sim_url))
        turn = 0
        while not self.stopped.wait(CHANGE_EVERY):
            uuid = uuids[turn % len(uuids)]
            turn += 1
            try:
                if _cloud(self.sim_url)[uuid][1] == 'active':
                    self.nova.servers.stop(uuid)
                else:
                    self.nova.servers.start(uuid)
            except Exception:  # noqa: BLE001 - a server mid-change: next
                continue
            self.made += 1
            self.last = time.monotonic()

    def __enter__(self):
        self._thread.start()
        return self

    def stop(self):
        self.stopped.set()
        self._thread.join(30)

    def __exit__(self, *exc):
        self.stop()


def _retried(read, seconds=30):
    """``read()``, tried again while it fails (a queue not consumed
    yet, a node busy)."""
    return fixtures.wait_for(lambda: _or_none(read), seconds, read)


def _or_none(read):
    try:
        return read()
    except (KeyError, controllers.ControllerError):
        return None


def _queues(members):
    """{queue: (type, node)}, asked of the first node that answers."""
    for controller in members:
        with contextlib.suppress(controllers.ControllerError):
            return controllers.queues(controller)
    raise AssertionError('no RabbitMQ node answers')


def test_rpc_and_notifications_go_through_quorum_queues(
        three_controllers, rabbit_cluster, engine_models):
    cluster, sim_url = rabbit_cluster
    fixtures.wait_for(lambda: _all_agree(sim_url, engine_models), 60,
                      'the engines\' first full sync')
    found = _queues(three_controllers)
    ours = {name: kind for name, (kind, _node) in found.items()}
    # Every queue of the daemons, the engines' pools of notifications
    # included, and the fanout and reply queues of the transient kind.
    assert ours[listener.pool_name('engine-1')] == 'quorum'
    assert ours[rpcapi.TOPIC] == 'quorum'
    assert ours['%s.engine-2' % rpcapi.TOPIC] == 'quorum'
    fanouts = [n for n in ours if n.startswith(rpcapi.TOPIC + '_fanout_')]
    assert len(fanouts) >= len(ENGINES)
    assert {kind for kind in ours.values()} == {'quorum'}, ours

    # RPC: an audit computed by an engine, its plan run by an applier.
    finished = plan_helpers.finished_audit(
        cluster, {'goal': 'dummy', 'strategy': 'dummy',
                  'audit_type': 'ONESHOT'})
    assert finished['state'] == 'SUCCEEDED', finished
    assert finished['hostname'] in ENGINES
    plan, _actions = plan_helpers.plan_of(cluster, finished['uuid'])
    ended = plan_helpers.start_and_wait(cluster, plan)
    assert ended['state'] == 'SUCCEEDED', ended
    assert ended['hostname'] in APPLIERS

    # Notifications: what the cloud changes reaches both models.
    with PowerChanges(sim_url) as changes:
        fixtures.wait_for(lambda: changes.made >= 6, 60, 'six changes')
    fixtures.wait_for(lambda: _all_agree(sim_url, engine_models), 30,
                      'both models following the cloud')


def _owners(uuids_audits, uuids_plans):
    engine = db_engine.get_engine()
    plans = {uuid: plan_runs.get(context.admin_context(), uuid)['hostname']
             for uuid in uuids_plans}
    return ha_checks.owners(engine, uuids_audits), plans


# What a daemon logs when it adopts another's work, and when it finds its
# own taken over (service/ownership.py).
ADOPTING = 'is presumed gone; adopting it'
TAKEN_OVER = 'were taken over while'


def _engine_log(tmp_path, host):
    return (tmp_path / (host + '.log')).read_text()


def test_the_node_of_the_feed_queues_killed_no_take_over_model_caught_up(
        three_controllers, rabbit_cluster, engine_models, tmp_path):
    cluster, sim_url = rabbit_cluster
    fixtures.wait_for(lambda: _all_agree(sim_url, engine_models), 60,
                      'the engines\' first full sync')
    audits = [ha_checks.create_audit(cluster.url, audit_type='CONTINUOUS',
                                     interval=str(ha_checks.INTERVAL))
              for _ in range(AUDITS)]
    audit_owners = ha_checks.settled_owners(db_engine.get_engine(), audits)
    plans = sleeping_plans.make(2, SLEEP_SECONDS)
    fixtures.wait_for(lambda: all(
        p['state'] == ActionPlanState.ONGOING and p['hostname']
        for p in map(lambda u: plan_runs.get(context.admin_context(), u),
                     plans)), 60, 'the plans running')
    before = (audit_owners, _owners(audits, plans)[1])
    assert set(before[1].values()) <= set(APPLIERS)

    # The node engine-1's listener consumes its pool of notifications
    # through (oslo.messaging shuffles the hosts of transport_url, so
    # any of the three): killed, the listener must come back through
    # another. It may also lead the pool's quorum queue and fanout
    # queues (RabbitMQ 3.10 places a quorum queue's leader by itself):
    # the test says which.
    pool = listener.pool_name('engine-1')
    [feed_node] = _retried(lambda: controllers.consumers(
        three_controllers[0])[pool])
    [victim] = [c for c in three_controllers if c.rabbit_node == feed_node]
    homes = _queues(three_controllers)
    led = sorted(name for name, (_kind, node) in homes.items()
                 if node == feed_node and (
                     name == pool or '_fanout_' in name))
    logged_before = _engine_log(tmp_path, 'engine-1').count(
        reconnects.RECONNECTED)

    try:
        with PowerChanges(sim_url) as changes:
            fixtures.wait_for(lambda: changes.made >= 3, 30,
                              'changes under way')
            killed = time.monotonic()
            controllers.kill_backend(victim, 'rabbit')
            time.sleep(CHANGES_AFTER_KILL)
        last_change = changes.last
        orphaned = []

        def caught_up():
            audit_owners, plan_owners = _owners(audits, plans)
            if plan_owners != before[1] or not all(audit_owners.values()):
                orphaned.append((audit_owners, plan_owners))
            return _all_agree(sim_url, engine_models)
        fixtures.wait_for(caught_up, CATCH_UP, 'both models caught up',
                          every=0.5)
        stale = time.monotonic() - killed
        behind_last_change = time.monotonic() - last_change
        print('both models matched the cloud %.1f s after the kill, %.1f s '
              'after the last change' % (stale, behind_last_change))
        # Nobody's work was taken: the plans stay with their appliers,
        # every audit keeps an owner (the engines' ring may still hand
        # one to the other, as it balances them), and no daemon presumed
        # another gone.
        assert orphaned == [], 'work changed hands: %s' % orphaned
        for name in list(ENGINES) + list(APPLIERS):
            log = _engine_log(tmp_path, name)
            assert ADOPTING not in log and TAKEN_OVER not in log, name

        # Its listener came back on another node and resynced.
        log = _engine_log(tmp_path, 'engine-1')
        assert log.count(reconnects.RECONNECTED) > logged_before
        fixtures.wait_for(
            lambda: 'made again: resyncing' in _engine_log(
                tmp_path, 'engine-1'), 30, 'the resync after reconnecting')
        others = [c for c in three_controllers if c != victim]
        assert _queues(others)[pool][1] != feed_node
        # A quorum queue keeps listing the consumers of a node that went
        # down (as suspected down) until it returns: the new one beside.
        fixtures.wait_for(lambda: set(controllers.consumers(others[0]).get(
            pool, [])) - {feed_node}, 30,
            'engine-1 consuming through another node')

        # The plans end where they ran, the audits stay where they were.
        fixtures.wait_for(lambda: all(
            plan_runs.get(context.admin_context(), u)['state']
            == ActionPlanState.SUCCEEDED for u in plans),
            SLEEP_SECONDS * 3, 'the plans SUCCEEDED')
        assert _owners(audits, plans)[1] == before[1]
    finally:
        controllers.start(victim, three_controllers)
    replaced = 'listening again on new connections' in _engine_log(
        tmp_path, 'engine-1')
    print('RabbitMQ node of %s killed (engine-1\'s listener on it, and '
          'the leader of %s) with %d change(s) made: both models matched '
          'the cloud %.1f s after the kill, %.1f s after the last change '
          '(changes went on for %d s after the kill)%s'
          % (victim.name, ', '.join(led) or 'none of its queues',
             changes.made, stale, behind_last_change, CHANGES_AFTER_KILL,
             '; engine-1 replaced its wedged listener' if replaced else ''))


class _Discard:
    def submit_many(self, events):
        pass


def test_a_listener_names_its_connection_as_the_driver_logs_it(
        three_controllers, config):
    """The engine's feed watch reads a listener's connection id through
    oslo.messaging's insides (NovaListener.connection_ids): the path
    holds on the installed driver."""
    controller_daemons.test_process_messaging(config)
    transport = oslo_messaging.get_notification_transport(
        config.conf, url=controllers.urls(
            three_controllers[2], three_controllers)['transport'])
    nova = listener.NovaListener(_Discard(), 'connection-probe',
                                 conf=config.conf,
                                 transports={listener.NOVA: transport})
    nova.start()
    try:
        [connection_id] = nova.connection_ids()
        assert len(connection_id) == 36
    finally:
        nova.stop()
        transport.cleanup()
        for controller in three_controllers:
            with contextlib.suppress(controllers.ControllerError):
                controllers.rabbitmqctl(controller, 'delete_queue',
                                        listener.pool_name(
                                            'connection-probe'))
                break
