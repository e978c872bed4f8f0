"""What a decision engine gives a what-if beyond its model: the servers'
CPU use through its datasources, and the flavors of resizes from Nova."""

from novaclient import exceptions as nova_exc

from tests import static_metrics
from tests import strategy_clusters as clusters
from watcher_ha.decision_engine.what_if import report


def answer(state, actions, cpu_usage):
    return report.answer(
        {'uuid': 'plan', 'state': 'RECOMMENDED', 'audit_uuid': 'audit',
         'efficacy_indicators': [], 'global_efficacy': []}, actions,
        {'goal_name': 'workload_balancing', 'parameters': {}}, None, state,
        {'name': 'compute'}, [], frozenset(), cpu_usage=cpu_usage)


STATE = clusters.build(
    [clusters.node('a', vcpus=8), clusters.node('b', vcpus=8)],
    [clusters.server('s', 'a', vcpus=4), clusters.server('t', 'a', vcpus=2),
     clusters.server('u', 'b', vcpus=2)])
MOVE = [{'uuid': '1', 'action_type': 'migrate', 'parents': [],
         'input_parameters': {'resource_id': 'uuid-s', 'source_node': 'a',
                              'destination_node': 'b',
                              'migration_type': 'live'}}]


def test_cpu_use_before_and_after_where_the_datasources_give_it():
    read = report.cpu_reader([static_metrics.StaticDatasource({
        'instance_cpu_usage': {'uuid-s': 50.0, 'uuid-t': 100.0,
                               'uuid-u': 25.0}})])
    found = answer(STATE, MOVE, read)
    assert found['cpu_utilisation'] == {'available': True,
                                        'metric': 'instance_cpu_usage'}
    hosts = {h['name']: h for h in found['hosts']}
    # a: 2 + 2 cores of 8 before, 2 after; b: 0.5, then 2.5.
    assert hosts['a']['before']['cpu_utilisation_percent'] == 50.0
    assert hosts['a']['after']['cpu_utilisation_percent'] == 25.0
    assert hosts['b']['after']['cpu_utilisation_percent'] == 31.25


def test_a_host_with_a_server_without_a_reading_has_none():
    read = report.cpu_reader([static_metrics.StaticDatasource({
        'instance_cpu_usage': {'uuid-s': 50.0, 'uuid-t': 100.0}})])
    hosts = {h['name']: h for h in answer(STATE, MOVE, read)['hosts']}
    assert hosts['a']['after']['cpu_utilisation_percent'] == 25.0
    assert hosts['b']['before']['cpu_utilisation_percent'] is None
    assert hosts['b']['after']['cpu_utilisation_percent'] is None


def test_without_datasources_or_readings_the_answer_says_why():
    assert report.cpu_reader([]) is None
    found = answer(STATE, MOVE, None)
    assert found['cpu_utilisation'] == {
        'available': False,
        'reason': 'the decision engine has no datasource'}
    read = report.cpu_reader([static_metrics.StaticDatasource({})])
    found = answer(STATE, MOVE, read)
    assert found['cpu_utilisation']['available'] is False
    assert 'instance_cpu_usage' in found['cpu_utilisation']['reason']


class Flavor:
    def __init__(self, **values):
        self.__dict__.update(values)


class Flavors:
    """novaclient's flavors: by id, or else found by name."""

    def __init__(self):
        self.asked = []

    def get(self, ref):
        self.asked.append(('get', ref))
        if ref == '42':
            return Flavor(vcpus=2, ram=4096, disk=20,
                          **{'OS-FLV-EXT-DATA:ephemeral': 10})
        raise nova_exc.NotFound(404)

    def find(self, name):
        self.asked.append(('find', name))
        if name == 'x2':
            return Flavor(vcpus=4, ram=8192, disk=40,
                          **{'OS-FLV-EXT-DATA:ephemeral': 0})
        raise nova_exc.NotFound(404)


def test_flavors_are_read_from_nova_by_id_or_name_once_each():
    flavors = Flavors()
    made = []

    def nova():
        made.append(1)
        return type('Nova', (), {'flavors': flavors})()
    size = report.nova_flavors(nova)
    assert made == []
    assert size('42') == (2, 4096, 30)
    assert size('x2') == (4, 8192, 40)
    assert size('nope') is None
    assert size('x2') == (4, 8192, 40)
    assert flavors.asked == [('get', '42'), ('get', 'x2'), ('find', 'x2'),
                             ('get', 'nope'), ('find', 'nope')]
