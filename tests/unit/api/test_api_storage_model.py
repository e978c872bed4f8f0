"""``GET /v1/data_model?data_model_type=storage``: ours from watcher-ha
1.2 (Watcher lists the compute model alone, and so do we below it), in
the compute listing's style, as a decision engine's endpoint renders its
storage model."""

import datetime

import pytest

from watcher_ha.common import exception
from watcher_ha.decision_engine import manager as engine_manager
from watcher_ha.decision_engine import rpcapi
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import storage_elements
from watcher_ha.decision_engine.model import storage_state

T0 = datetime.datetime(2026, 11, 25, 12, 0, 0)
STORAGE = '/v1/data_model?data_model_type=storage'


def storage_model():
    model = cluster.ClusterModel('storage',
                                 empty=storage_state.StorageState())

    def fill(changes):
        changes.put_node(storage_elements.StorageNode(
            'stor1@lvm', zone='nova', volume_types=('lvm',), stamp=T0))
        changes.put_node(storage_elements.StorageNode(
            'stor2@empty', zone='az2', stamp=T0))
        for name, total in (('stor1@lvm#p1', 100.0), ('stor1@lvm#p2', 50.0)):
            changes.put_pool(storage_elements.Pool(
                name, total_capacity_gb=total, free_capacity_gb=total - 8,
                allocated_capacity_gb=8.0, volume_backend_name='lvm',
                stamp=T0))
        changes.put_volume(storage_elements.Volume(
            'vol-1', name='data', size=8, status='in-use',
            attachments=(('server-1', 'att-1'),), volume_type='lvm',
            pool='stor1@lvm#p1', metadata=(('tier', 'gold'),), stamp=T0))
        changes.put_volume(storage_elements.Volume(
            'vol-2', size=3, status='error', stamp=T0))
    model.update(fill)
    return model


class Engine:
    """What Endpoints asks of a decision engine: its models."""
    host = 'engine-a'

    def __init__(self, models):
        self.models = models

    def model(self, name):
        if name not in self.models:
            raise exception.NotFound('no %s model here' % name)
        return self.models[name]


@pytest.fixture
def engine(monkeypatch):
    """The decision engine's RPC endpoint, called in this process."""
    endpoints = engine_manager.Endpoints(Engine({'storage':
                                                 storage_model()}))
    monkeypatch.setattr(
        rpcapi.DecisionEngineAPI, 'get_data_model_info',
        lambda self, context, model_type, audit_uuid:
        endpoints.get_data_model_info(context, model_type, audit_uuid))
    return endpoints


OURS = {'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.2'}


def test_below_watcher_ha_1_2_storage_is_unknown_as_in_watcher(api, engine):
    for headers in ({}, {'OpenStack-API-Version':
                         'infra-optim 1.7, watcher-ha 1.1'}):
        resp = api.get(STORAGE, version='1.3', headers=headers)
        assert resp.status == 404, resp.body


def test_the_storage_model_lists_volumes_pools_and_backends(api, engine):
    resp = api.get(STORAGE, headers=OURS)
    assert resp.status == 200, resp.body
    entries = resp.json['context']
    volume = next(e for e in entries if e.get('volume_uuid') == 'vol-1')
    assert volume == {
        'node_host': 'stor1@lvm', 'node_zone': 'nova',
        'node_status': 'enabled', 'node_state': 'up',
        'node_volume_type': ['lvm'],
        'pool_name': 'stor1@lvm#p1', 'pool_total_volumes': None,
        'pool_total_capacity_gb': '100.0', 'pool_free_capacity_gb': '92.0',
        'pool_provisioned_capacity_gb': None,
        'pool_allocated_capacity_gb': '8.0', 'pool_virtual_free': None,
        'pool_volume_backend_name': 'lvm',
        'volume_uuid': 'vol-1', 'volume_name': 'data', 'volume_size': '8',
        'volume_status': 'in-use',
        'volume_attachments': [{'server_id': 'server-1',
                                'attachment_id': 'att-1'}],
        'volume_project_id': None, 'volume_bootable': False,
        'volume_multiattach': False, 'volume_type': 'lvm',
        'volume_snapshot_id': None, 'volume_metadata': {'tier': 'gold'},
        'volume_host': 'stor1@lvm#p1'}
    # A pool without volumes, a backend without pools, a volume in no
    # pool: each an entry of its own.
    assert any(e.get('pool_name') == 'stor1@lvm#p2'
               and 'volume_uuid' not in e for e in entries)
    assert any(e.get('node_host') == 'stor2@empty'
               and 'pool_name' not in e for e in entries)
    assert any(e.get('volume_uuid') == 'vol-2'
               and 'pool_name' not in e for e in entries)
    assert len(entries) == 4
    assert resp.json['model']['name'] == 'storage'
    assert resp.json['model']['enabled'] is True


def test_an_engine_without_the_storage_model_says_so(api, monkeypatch):
    endpoints = engine_manager.Endpoints(Engine({}))
    monkeypatch.setattr(
        rpcapi.DecisionEngineAPI, 'get_data_model_info',
        lambda self, context, model_type, audit_uuid:
        endpoints.get_data_model_info(context, model_type, audit_uuid))
    resp = api.get(STORAGE, headers=OURS)
    assert resp.status == 200, resp.body
    assert resp.json['context'] == []
    assert resp.json['model']['enabled'] is False
