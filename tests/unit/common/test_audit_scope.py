"""An audit's scope, in Watcher's format: checked on input (a 400 saying
what is wrong), and applied to the compute model its strategy sees:
nodes outside it are gone with their servers, servers left out of the
plan stay as their node's hold, so that no strategy moves them or counts
their room as free."""

import types

import pytest

from tests import strategy_clusters
from tests.helpers.maintenance_cluster import actions
from tests.helpers.maintenance_cluster import run
from watcher_ha.common import audit_scope
from watcher_ha.decision_engine import scope
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state

# name: (zone, aggregates); two servers on each.
NODES = {'a1': ('az1', {'rack-1'}), 'a2': ('az1', {'rack-1', 'gpu'}),
         'b1': ('az2', {'rack-2'}), 'lone': ('az2', set())}
AGGREGATES = {'rack-1': 1, 'rack-2': 2, 'gpu': 3}


def cluster():
    changes = state.ClusterState().changes()
    for name, id_ in AGGREGATES.items():
        changes.put_aggregate(elements.Aggregate(name=name, id=id_))
    for name, (zone, aggregates) in NODES.items():
        changes.put_node(elements.ComputeNode(
            hostname=name, uuid='uuid-' + name, vcpus=16, memory_mb=32768,
            disk_gb=500, availability_zone=zone,
            aggregates=frozenset(aggregates)))
        for n in range(2):
            changes.put_instance(elements.Instance(
                uuid='%s-vm%d' % (name, n), name='%s-vm%d' % (name, n),
                host=name, vcpus=2, memory_mb=4096, disk_gb=20,
                project_id='project-%d' % n,
                metadata=elements.frozen_mapping(
                    {'optimize': 'False'} if n else {})))
    return changes.state()


def seen(rules):
    scoped = scope.apply(cluster(), audit_scope.check(rules))
    return sorted(scoped.nodes), sorted(scoped.instances)


@pytest.mark.parametrize('rules,nodes', [
    ([{'host_aggregates': [{'name': 'rack-1'}]}], ['a1', 'a2']),
    ([{'host_aggregates': [{'id': 2}, {'name': 'gpu'}]}], ['a2', 'b1']),
    ([{'host_aggregates': [{'id': '*'}]}], ['a1', 'a2', 'b1']),
    ([{'availability_zones': [{'name': 'az2'}]}], ['b1', 'lone']),
    ([{'availability_zones': [{'name': '*'}]}], ['a1', 'a2', 'b1', 'lone']),
    # Rules of both kinds add up.
    ([{'availability_zones': [{'name': 'az2'}]},
      {'host_aggregates': [{'name': 'gpu'}]}], ['a2', 'b1', 'lone']),
    # A rule that matches nothing leaves nothing.
    ([{'availability_zones': [{'name': 'nowhere'}]}], []),
    ([{'exclude': [{'compute_nodes': [{'name': 'lone'}]}]}],
     ['a1', 'a2', 'b1']),
    ([{'exclude': [{'host_aggregates': [{'name': 'rack-1'}]}]}],
     ['b1', 'lone']),
    ([{'availability_zones': [{'name': 'az1'}]},
      {'exclude': [{'compute_nodes': [{'name': 'a2'}]}]}], ['a1']),
])
def test_nodes_outside_go_with_their_servers(rules, nodes):
    found_nodes, found_servers = seen(rules)
    assert found_nodes == nodes
    assert found_servers == sorted('%s-vm%d' % (n, i) for n in nodes
                                   for i in range(2))


@pytest.mark.parametrize('excluded,left_out', [
    ({'instances': [{'uuid': 'a1-vm0'}]}, {'a1-vm0'}),
    ({'projects': [{'uuid': 'project-1'}]},
     {'%s-vm1' % n for n in NODES}),
    # Every pair must match, values compared as lower-case text.
    ({'instance_metadata': [{'optimize': 'false'}]},
     {'%s-vm1' % n for n in NODES}),
    ({'instance_metadata': [{'optimize': 'false', 'other': 'x'}]}, set()),
])
def test_servers_left_out_keep_their_room(excluded, left_out):
    whole = cluster()
    scoped = scope.apply(whole, audit_scope.check([{'exclude': [excluded]}]))
    assert set(whole.instances) - set(scoped.instances) == left_out
    for name in NODES:
        for resource in ('vcpus', 'memory_mb', 'disk_gb'):
            assert scoped.used(name, resource) == whole.used(name,
                                                             resource)
    assert scoped.generation == whole.generation


def test_no_compute_rule_is_the_whole_model():
    whole = cluster()
    assert scope.apply(whole, []) is whole
    assert scope.apply(whole, [{'storage': []}]) is whole


def test_bare_rules_are_a_compute_section():
    rules = [{'availability_zones': [{'name': 'az1'}]}]
    assert audit_scope.check(rules) == [{'compute': rules}]
    assert audit_scope.check([{'compute': rules}]) == [{'compute': rules}]


@pytest.mark.parametrize('bad,message', [
    ({'compute': []}, 'scope must be a list'),
    ([{'compute': [{'zones': []}]}], "'zones' was unexpected"),
    ([{'availability_zones': [{'id': 'az1'}]}], "scope\\[0\\]"),
    ([{'host_aggregates': [{'id': 'rack-1'}]}], 'scope'),
    ([{'host_aggregates': [{'name': 'rack-1'}]},
      {'exclude': [{'host_aggregates': [{'name': 'gpu'}]}]}],
     'cannot be both kept and excluded'),
    ([{'availability_zones': [{'name': '*'}, {'name': 'az1'}]}],
     '"\\*" stands for all availability_zones'),
    ([{'exclude': [{'servers': []}]}], "'servers' was unexpected"),
])
def test_refused_saying_why(bad, message):
    with pytest.raises(audit_scope.InvalidScope, match=message):
        audit_scope.check(bad)


def test_the_strategy_sees_only_the_scope():
    """host_maintenance drains a1 onto the nodes it may use: with the
    scope keeping az1 only, a2, not the emptier nodes of az2."""
    whole = cluster()
    scoped = scope.apply(whole, audit_scope.check(
        [{'availability_zones': [{'name': 'az1'}]}]))
    moves = [p for kind, p in actions(run(scoped, maintenance_node='a1'))
             if kind == 'migrate']
    assert {p['destination_node'] for p in moves} == {'a2'}


def test_a_template_scope_is_checked_on_input(api):
    rules = [{'availability_zones': [{'name': 'az1'}]}]
    made = api.post('/v1/audit_templates', body={
        'name': 'scoped', 'goal': 'dummy', 'scope': rules})
    assert made.status == 201, made
    assert made.json['scope'] == [{'compute': rules}]
    refused = api.post('/v1/audit_templates', body={
        'name': 'bad', 'goal': 'dummy',
        'scope': [{'host_aggregates': [{'name': '*'}, {'name': 'x'}]}]})
    assert refused.status == 400, refused
    assert '"*" stands for all host_aggregates' in refused.fault
    patched = api.patch('/v1/audit_templates/scoped', body=[
        {'op': 'replace', 'path': '/scope',
         'value': [{'compute': [{'exclude': [{'nodes': []}]}]}]}])
    assert patched.status == 400, patched
    assert "'nodes' was unexpected" in patched.fault


def test_the_data_model_of_an_audit_is_its_scope(db, admin_context):
    """GET /v1/data_model?audit_uuid=: what the audit's strategy sees, the
    servers its scope leaves out marked server_watcher_exclude."""
    from tests import factories
    from watcher_ha.decision_engine import manager
    audit = factories.audit(db, scope=[{'compute': [
        {'availability_zones': [{'name': 'az1'}]},
        {'exclude': [{'instances': [{'uuid': 'a1-vm0'}]}]}]}])
    engine = types.SimpleNamespace(
        host='engine-1',
        model=lambda name: strategy_clusters.SnapshotModel(cluster()))
    endpoints = manager.Endpoints(engine)
    found = endpoints.get_data_model_info(admin_context, 'compute',
                                          audit['uuid'])['context']
    assert {e['node_hostname'] for e in found} == {'a1', 'a2'}
    assert {e['server_uuid'] for e in found
            if e['server_watcher_exclude']} == {'a1-vm0'}
    whole = endpoints.get_data_model_info(admin_context, 'compute',
                                          None)['context']
    assert len(whole) == 8
    assert not any(e['server_watcher_exclude'] for e in whole)


def test_the_data_model_of_no_such_audit_is_a_404(api):
    resp = api.get('/v1/data_model?audit_uuid='
                   '5b1f3c55-0000-4000-8000-000000000000', version='1.3')
    assert resp.status == 404, resp
