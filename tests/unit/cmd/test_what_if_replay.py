"""``watcher-ha what-if PLAN --replay``: the CLI against the API served
on a loopback port (noauth), the engine's what-if and data model
answering in this process (tests/helpers/what_if.py); the replay runs
the plan on a simulator of its own, in this process, in real time."""

import json
import pathlib
import time

import pytest
import requests
import sqlalchemy as sa

from tests import factories
from tests import layers
from tests import strategy_clusters as clusters
from tests.helpers import what_if
from watcher_ha.cmd import replay
from watcher_ha.common import plugins
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.conf import CONF
from watcher_ha.db import models
from watcher_ha.decision_engine.model import cluster

import watcher_ha

# A migration of a server of the model (2048 MB) at this speed takes
# 0.25 s.
BANDWIDTH = 8192
FAST = ('--replay', '--bandwidth-mb-per-s', str(BANDWIDTH),
        '--poll-interval', '0.1')



def plan(db, kinds):
    audit = factories.audit(db, goal='workload_balancing',
                            strategy='workload_balance')
    made, _ = factories.action_plan(db, audit, kinds=kinds)
    return made['uuid']


def run(url, *argv):
    return what_if.cli_output(url, *argv)


def replayed(url, uuid, *argv):
    return json.loads(run(url, uuid, '--format', 'json', *FAST,
                          *argv))['replay']


def test_each_action_is_timed_and_the_cloud_ends_as_projected(db, url):
    uuid = plan(db, what_if.migrations(('a', 'busy', 'empty'),
                                       ('b', 'busy', 'idle')))
    found = replayed(url, uuid)
    assert found['state'] == 'SUCCEEDED', found['message']
    assert [a['state'] for a in found['actions']] == ['SUCCEEDED'] * 2
    # Each live migration takes its RAM over the bandwidth, at least;
    # the plan chains them.
    for action in found['actions']:
        assert action['seconds'] >= 2048 / BANDWIDTH
    assert found['seconds'] >= sum(a['seconds'] for a in found['actions'])
    second = found['actions'][1]
    assert second['started'] >= found['actions'][0]['seconds']
    [migrate] = found['action_types']
    assert (migrate['action_type'], migrate['count']) == ('migrate', 2)
    assert migrate['longest'] == max(a['seconds'] for a in found['actions'])
    # One chain of migrations: one lane.
    assert found['slowest_lane']['count'] == 2
    assert found['off_projection'] == []
    after = found['hosts']['after']
    assert {name: host['servers'] for name, host in after.items()} == {
        'busy': 0, 'idle': 2, 'empty': 1}
    assert after['empty']['used'] == {'vcpus': 4, 'memory_mb': 2048,
                                      'disk_gb': 20}
    assert found['cloud']['hosts'] == 3
    assert found['cloud']['servers'] == 3
    assert found['cloud']['timings']['bandwidth_mb_per_s'] == BANDWIDTH
    assert found['cloud']['poll_interval'] == 0.1


def test_the_timing_is_printed_after_the_what_if(db, url):
    uuid = plan(db, what_if.migrations(('a', 'busy', 'empty')))
    lines = run(url, uuid, *FAST).splitlines()
    assert lines[0].startswith('What-if of action plan %s' % uuid)
    start = lines.index('Actions: 1 migrate') + 1
    replay_lines = lines[start:]
    assert replay_lines[1] == (
        'Replay on a simulated copy of the cloud: 3 host(s), 3 server(s) '
        'from the compute model of decision engine engine-a (generation '
        '1).')
    assert replay_lines[2].startswith('Live migrations at 8192 MB/s (1 at '
                                      'a time per source host)')
    assert replay_lines[3].startswith('The plan took ')
    assert replay_lines[3].endswith(' s, from its first action\'s start '
                                    'to its last one\'s end: 1 succeeded.')
    header = replay_lines.index('action type  count  total s  longest s')
    assert replay_lines[header + 2].split()[:2] == ['migrate', '1']
    assert any(line.startswith('Slowest lane: 1 migrate, ')
               for line in replay_lines)
    assert replay_lines[-1] == ('The replayed cloud ends as projected: '
                                'each host listed above within 1 %.')


class _Recorded:
    """Every HTTP request this process sends (method, URL)."""

    def __init__(self, monkeypatch):
        self.sent = []
        send = requests.Session.request

        def request(session, method, url, *args, **kwargs):
            self.sent.append((method.upper(), url))
            return send(session, method, url, *args, **kwargs)
        monkeypatch.setattr(requests.Session, 'request', request)


OPTIONS = (('nova', 'auth_type'), ('nova', 'endpoint_override'),
           ('ironic', 'endpoint_override'), ('cinder', 'endpoint_override'),
           ('placement', 'endpoint_override'),
           ('database', 'connection'), ('watcher_applier', 'poll_interval'),
           ('watcher_applier', 'workers'))


def test_the_api_is_only_read_and_nothing_else_changes(db, url,
                                                       monkeypatch):
    uuid = plan(db, what_if.migrations(('a', 'busy', 'empty'),
                                       ('c', 'idle', 'busy')))
    options = {(group, name): CONF[group][name] for group, name in OPTIONS}
    recorded = _Recorded(monkeypatch)
    found = replayed(url, uuid, '--workers', '7')
    assert found['state'] == 'SUCCEEDED', found['message']
    assert found['cloud']['workers'] == 7
    to_api = [sent for sent in recorded.sent if sent[1].startswith(url)]
    assert {method for method, _ in to_api} == {'GET'}
    # The what-if, the model, the actions: reads only.
    assert sorted({path.split('?')[0][len(url):] for _, path in to_api}) == [
        '/v1/action_plans/%s/what_if' % uuid, '/v1/actions/detail',
        '/v1/data_model']
    # The writes went to the replay's own simulator, nowhere else.
    writes = [sent for sent in recorded.sent if sent[0] != 'GET']
    assert writes and all('/compute/v2.1/servers/' in path
                          for _, path in writes)
    assert {path.split('/compute/')[0] for _, path in writes} != {url}
    with db.begin() as conn:
        assert conn.execute(sa.select(models.ActionPlan.state).where(
            models.ActionPlan.uuid == uuid)).scalar_one() == \
            ActionPlanState.RECOMMENDED
        assert set(conn.execute(sa.select(models.Action.state)).scalars()
                   ) == {ActionState.PENDING}
    # This process's options are as they were.
    assert {(group, name): CONF[group][name]
            for group, name in OPTIONS} == options


def test_an_action_not_replayed_lets_its_children_go_on(db, url):
    kinds = [what_if.migrations(('a', 'busy', 'empty'))[0],
             ('set_host_maintenance', {'resource_name': 'idle'}),
             what_if.migrations(('c', 'idle', 'busy'))[0]]
    found = replayed(url, plan(db, kinds))
    assert found['state'] == 'SUCCEEDED', found['message']
    assert [a['state'] for a in found['actions']] == [
        'SUCCEEDED', 'NOT_REPLAYED', 'SUCCEEDED']
    assert found['not_replayed'] == [{
        'action_type': 'set_host_maintenance', 'count': 1,
        'why': replay.NOT_REPLAYED['set_host_maintenance']}]
    assert [t['action_type'] for t in found['action_types']] == ['migrate']


def test_a_failed_action_stops_the_replay_as_the_applier(db, url):
    kinds = what_if.migrations(('a', 'busy', 'nowhere'),
                               ('c', 'idle', 'busy'))
    found = replayed(url, plan(db, kinds))
    assert found['state'] == 'FAILED'
    assert 'Compute host nowhere could not be found' in found['message']
    assert [a['state'] for a in found['actions']] == ['FAILED', 'NOT_RUN']
    lines = run(url, plan(db, kinds), *FAST).splitlines()
    assert any(line.startswith('The plan FAILED after ') for line in lines)


def action(uuid, kind, *parents):
    return {'uuid': uuid, 'action_type': kind, 'parents': list(parents),
            'input_parameters': {}}


# As the weight planner plans it: two service changes one after the
# other, then four migrations in two lanes, each lane's first after both
# service changes.
WEIGHTED = [action('s1', 'change_nova_service_state'),
            action('s2', 'change_nova_service_state', 's1'),
            action('m1', 'migrate', 's2'), action('m2', 'migrate', 's2'),
            action('m3', 'migrate', 'm1'), action('m4', 'migrate', 'm2'),
            action('n1', 'nop', 'm3', 'm4')]


def test_lanes_are_the_planners_chains_of_one_type():
    assert replay.lanes(WEIGHTED) == [['s1', 's2'], ['m1', 'm3'],
                                      ['m2', 'm4'], ['n1']]
    # An action after two of its type starts a lane of its own.
    joined = WEIGHTED[:6] + [action('m5', 'migrate', 'm3', 'm4')]
    assert replay.lanes(joined)[-1] == ['m5']


def test_the_slowest_lane_and_the_types():
    seconds = {'s1': 1, 's2': 1, 'm1': 2, 'm2': 5, 'm3': 4, 'm4': 0.5,
               'n1': 0}
    records, at = {}, {'s1': 0, 's2': 1, 'm1': 2, 'm2': 2, 'm3': 4,
                       'm4': 7, 'n1': 8}
    for uuid, took in seconds.items():
        records[uuid] = {'state': 'SUCCEEDED', 'started': at[uuid],
                         'seconds': took, 'message': None}
    lane = replay.slowest_lane(WEIGHTED, records)
    assert lane == {'action_type': 'migrate', 'actions': ['m1', 'm3'],
                    'count': 2, 'seconds': 6, 'started': 2, 'ended': 8}
    types = {t['action_type']: t for t in replay.by_type(WEIGHTED, records)}
    assert types['migrate'] == {'action_type': 'migrate', 'count': 4,
                                'seconds': 11.5, 'longest': 5,
                                'longest_action': 'm2'}
    assert types['change_nova_service_state']['count'] == 2


def _reaching_the_database(graph, module):
    """Whether ``module`` of the action plugins, or one of the plugins'
    modules it imports, imports the database layer."""
    seen, todo = set(), [module]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for imported in graph.get(current, ()):
            if imported == 'db' or imported.startswith('db.'):
                return True
            if imported.startswith('applier.actions.'):
                todo.append(imported)
    return False


def test_no_plugin_that_reaches_the_database_is_replayed():
    """The replay's guard, held against the code: a plugin whose module
    imports the database layer is not replayed (evacuate only in a
    recovery, where it records its move)."""
    graph = layers.module_graph(pathlib.Path(watcher_ha.__file__).parent)
    installed = plugins.load_classes(plugins.ACTIONS)
    reaching = {
        name for name, cls in installed.items()
        if _reaching_the_database(graph, cls.__module__[len('watcher_ha.'):])}
    assert reaching >= {'claim_reserved_hosts', 'evacuate'}
    for name in reaching - {'evacuate'}:
        assert replay.not_replayed(action('x', name), installed), name
    evacuation = action('x', 'evacuate')
    assert replay.not_replayed(evacuation, installed) is None
    evacuation['input_parameters'] = {'notification_uuid': 'n'}
    assert replay.not_replayed(evacuation, installed)


def test_a_speedup_keeps_the_clouds_timing(db, url):
    """The same plan replayed in real time and four times faster: each
    action takes as long in the cloud's time, within one of the applier's
    looks; a sleep waits its duration of the cloud's time."""
    kinds = what_if.migrations(('a', 'busy', 'empty'), ('b', 'busy', 'idle'))
    kinds.insert(1, ('sleep', {'duration': 3}))
    uuid = plan(db, kinds)
    options = ('--bandwidth-mb-per-s', '2048', '--poll-interval', '0.4')
    timed = {}
    for speedup in ('1', '4'):
        began = time.monotonic()
        timed[speedup] = replayed(url, uuid, *options, '--replay-speedup',
                                  speedup)
        timed[speedup]['real'] = time.monotonic() - began
        assert timed[speedup]['state'] == 'SUCCEEDED'
        assert timed[speedup]['speedup'] == float(speedup)
    real, fast = timed['1'], timed['4']
    # Some 5.5 s of the cloud's time: three quarters of it saved.
    assert fast['real'] < real['real'] - 3
    for slow, quick in zip(real['actions'], fast['actions'], strict=True):
        # A 2048 MB server at 2048 MB/s: 1 s; the sleep 3 s.
        assert quick['seconds'] >= (3 if quick['action_type'] == 'sleep'
                                    else 1.0)
        # Within one look, and some more on a busy machine.
        assert abs(quick['seconds'] - slow['seconds']) <= 0.4 + 0.4
    assert abs(fast['seconds'] - real['seconds']) <= 3 * (0.4 + 0.4)
    assert fast['off_projection'] == []
    lines = run(url, uuid, '--replay', *options, '--replay-speedup',
                '4').splitlines()
    assert 'Replayed 4 times faster than the cloud; the times below are ' \
           'the cloud\'s.' in lines


def test_a_speedup_is_bounded_by_the_appliers_looks(db, url):
    uuid = plan(db, what_if.migrations(('a', 'busy', 'empty')))
    with pytest.raises(SystemExit) as ended:
        run(url, uuid, '--replay', '--replay-speedup', '20')
    assert str(ended.value) == (
        'watcher-ha what-if: --replay-speedup must be from 1 to 10 with '
        '--poll-interval 1: the applier looks every 0.1 s at least')


def failed_host_model():
    """The helper's three hosts, and a fourth, down, holding one
    server."""
    state = what_if.model().snapshot()
    changes = state.changes()
    changes.put_node(clusters.node('dead', vcpus=8, state='down'))
    changes.put_instance(clusters.server('d', 'dead', vcpus=2))
    made = cluster.ClusterModel()
    made.finish_resync(changes.state())
    return made


@pytest.mark.parametrize('compute', [failed_host_model])
def test_an_evacuation_of_a_down_host(db, url):
    """A host the model counts down is forced down in the copy, so Nova
    evacuates its server; as Nova does, the failed host keeps the
    server's allocation until its nova-compute starts again, which the
    projection does not count: the replay says where."""
    uuid = plan(db, [('evacuate', {'resource_id': 'uuid-d',
                                   'source_node': 'dead',
                                   'destination_node': 'empty'})])
    replay_of = replayed(url, uuid, '--evacuate-seconds', '0.5')
    assert replay_of['state'] == 'SUCCEEDED', replay_of['message']
    [evacuation] = replay_of['actions']
    assert evacuation['seconds'] >= 0.5
    after = replay_of['hosts']['after']
    assert after['empty']['servers'] == 1
    assert after['dead']['state'] == 'down'
    assert after['dead']['used']['vcpus'] == 2
    assert {(o['host'], o['side']) for o in replay_of['off_projection']} \
        == {('dead', 'after')}
