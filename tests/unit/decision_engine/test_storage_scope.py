"""The storage section of an audit's scope (Watcher's ``storage`` scope):
checked on input like the compute section (a 400 saying what is wrong),
applied to the storage model the strategy sees and to the data model an
audit lists: backends outside its zones or volume types are gone with
their pools and volumes, excluded pools go with their volumes, excluded
volumes and projects' volumes are left out while their pools' capacity
still counts them."""

import dataclasses
import types

import pytest

from tests import factories
from tests import strategy_clusters
from tests.helpers.storage_cluster import build
from tests.helpers.storage_cluster import moves
from tests.helpers.storage_cluster import node
from tests.helpers.storage_cluster import pool
from tests.helpers.storage_cluster import run
from tests.helpers.storage_cluster import volume
from tests.helpers.storage_cluster import vtype
from watcher_ha.common import audit_scope
from watcher_ha.decision_engine import manager
from watcher_ha.decision_engine import storage_scope

# backend: (zone, backend name of its pools)
BACKENDS = {'s1@fast': 'az1', 's2@fast': 'az2', 's3@slow': 'az2'}


def storage():
    types_ = [vtype('fast', 'fast'), vtype('slow', 'slow'), vtype('any')]
    # Each backend lists the type bound to it, as the collector reads.
    nodes = [dataclasses.replace(node(host, zone=zone),
                                 volume_types=(host.split('@')[1],))
             for host, zone in BACKENDS.items()]
    pools, volumes = [], []
    for host in BACKENDS:
        for p in ('p1', 'p2'):
            name = '%s#%s' % (host, p)
            pools.append(pool(name, 100, 50))
            for n, project in enumerate(('proj-a', 'proj-b')):
                volumes.append(volume('%s-%d' % (name, n), name, 25,
                                      project=project))
    return build(nodes, pools, volumes, types_)


def seen(rules):
    whole = storage()
    scoped = storage_scope.apply(
        whole, audit_scope.check([{'storage': rules}]))
    return sorted(scoped.nodes), sorted(scoped.pools), sorted(
        scoped.volumes)


def backends_of(names):
    return sorted({name.split('#')[0] for name in names})


@pytest.mark.parametrize('rules,backends', [
    ([{'availability_zones': [{'name': 'az2'}]}], ['s2@fast', 's3@slow']),
    ([{'availability_zones': [{'name': '*'}]}], sorted(BACKENDS)),
    ([{'availability_zones': [{'name': 'nowhere'}]}], []),
    ([{'volume_types': [{'name': 'fast'}]}], ['s1@fast', 's2@fast']),
    ([{'volume_types': [{'name': 'slow'}]},
      {'availability_zones': [{'name': 'az1'}]}], ['s1@fast', 's3@slow']),
    ([{'volume_types': [{'name': '*'}]}], sorted(BACKENDS)),
    # A type that asks for no backend keeps none.
    ([{'volume_types': [{'name': 'any'}]}], []),
])
def test_backends_outside_go_with_their_pools_and_volumes(rules, backends):
    nodes, pools, volumes = seen(rules)
    assert nodes == backends
    assert backends_of(pools) == backends
    assert backends_of(v.rsplit('-', 1)[0] for v in volumes) == backends
    assert len(volumes) == 4 * len(backends)


def test_excluded_pools_volumes_and_projects():
    nodes, pools, volumes = seen([{'exclude': [
        {'storage_pools': [{'name': 's1@fast#p1'}]},
        {'volumes': [{'uuid': 's2@fast#p1-0'}]},
        {'projects': [{'uuid': 'proj-b'}]}]}])
    assert nodes == sorted(BACKENDS)
    assert 's1@fast#p1' not in pools and len(pools) == 5
    assert volumes == sorted(
        '%s#%s-0' % (host, p) for host in BACKENDS for p in ('p1', 'p2')
        if '%s#%s' % (host, p) not in ('s1@fast#p1', 's2@fast#p1'))


def test_no_storage_rule_is_the_whole_model():
    whole = storage()
    assert storage_scope.apply(whole, []) is whole
    assert storage_scope.apply(whole, audit_scope.check(
        [{'availability_zones': [{'name': 'az1'}]}])) is whole


def test_the_scoped_model_keeps_its_generation_and_the_whole_is_unchanged():
    whole = storage()
    scoped = storage_scope.apply(whole, [{'storage': [
        {'availability_zones': [{'name': 'az1'}]}]}])
    assert scoped.generation == whole.generation
    assert len(whole.volumes) == 12 and len(scoped.volumes) == 4


@pytest.mark.parametrize('bad,message', [
    ([{'storage': [{'zones': []}]}], "'zones' was unexpected"),
    ([{'storage': [{'availability_zones': [{'id': 'az1'}]}]}],
     "scope\\[0\\]\\['storage'\\]"),
    ([{'storage': [{'volume_types': [{'name': 3}]}]}], "3 is not of type"),
    ([{'storage': [{'exclude': [{'pools': []}]}]}],
     "'pools' was unexpected"),
    ([{'storage': [{'exclude': [{'volumes': [{'name': 'v'}]}]}]}],
     "'uuid' is a required property|'name' was unexpected"),
    ([{'storage': [{'volume_types': [{'name': '*'}, {'name': 'x'}]}]}],
     '"\\*" stands for all volume_types'),
    ([{'storage': [{'availability_zones': [{'name': '*'},
                                           {'name': 'az1'}]}]}],
     '"\\*" stands for all storage availability_zones'),
    ([{'storage': {'availability_zones': []}}], "is not of type 'array'"),
])
def test_refused_saying_why(bad, message):
    with pytest.raises(audit_scope.InvalidScope, match=message):
        audit_scope.check(bad)


def test_compute_and_storage_sections_side_by_side():
    rules = [{'compute': [{'availability_zones': [{'name': 'az1'}]}]},
             {'storage': [{'availability_zones': [{'name': 'az1'}]}]}]
    assert audit_scope.check(rules) == rules
    assert audit_scope.storage_rules(rules) == rules[1]['storage']
    assert audit_scope.compute_rules(rules) == rules[0]['compute']


def test_a_template_storage_scope_is_checked_on_input(api):
    rules = [{'storage': [{'volume_types': [{'name': 'fast'}]},
                          {'exclude': [{'projects': [{'uuid': 'p'}]}]}]}]
    made = api.post('/v1/audit_templates', body={
        'name': 'storage-scoped', 'goal': 'workload_balancing',
        'strategy': 'storage_capacity_balance', 'scope': rules})
    assert made.status == 201, made
    assert made.json['scope'] == rules
    refused = api.post('/v1/audit_templates', body={
        'name': 'bad', 'goal': 'dummy',
        'scope': [{'storage': [{'exclude': [{'nodes': []}]}]}]})
    assert refused.status == 400, refused
    assert "'nodes' was unexpected" in refused.fault


def test_the_strategy_moves_nothing_outside_the_scope():
    """storage_capacity_balance on a scoped model: a full pool of az1 with
    the roomiest pools in az2; scoped to az1, its volumes go to the other
    pool of az1 only, and an excluded volume stays."""
    whole = build(
        [node('s1@lvm', zone='az1'), node('s2@lvm', zone='az1'),
         node('s3@lvm', zone='az2')],
        [pool('s1@lvm#p1', 100, 0), pool('s2@lvm#p1', 100, 60),
         pool('s3@lvm#p1', 1000, 1000)],
        [volume('v%d' % n, 's1@lvm#p1', 10 + n) for n in range(4)])
    assert {where for _u, _k, where in moves(run(whole))} == {
        's3@lvm#p1'}
    scoped = storage_scope.apply(whole, audit_scope.check([{'storage': [
        {'availability_zones': [{'name': 'az1'}]},
        {'exclude': [{'volumes': [{'uuid': 'v3'}]}]}]}]))
    planned = moves(run(scoped))
    assert planned and {where for _u, _k, where in planned} == {
        's2@lvm#p1'}
    assert 'v3' not in {uuid for uuid, _k, _w in planned}


def test_the_storage_data_model_of_an_audit_is_its_scope(db, admin_context):
    audit = factories.audit(db, scope=[{'storage': [
        {'availability_zones': [{'name': 'az1'}]}]}])
    engine = types.SimpleNamespace(
        host='engine-1',
        model=lambda name: strategy_clusters.SnapshotModel(storage()))
    endpoints = manager.Endpoints(engine)
    found = endpoints.get_data_model_info(admin_context, 'storage',
                                          audit['uuid'])['context']
    assert {e['node_host'] for e in found} == {'s1@fast'}
    whole = endpoints.get_data_model_info(admin_context, 'storage',
                                          None)['context']
    assert {e['node_host'] for e in whole} == set(BACKENDS)
