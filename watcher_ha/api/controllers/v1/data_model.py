"""``GET /v1/data_model`` (1.3): a decision engine's view of the cloud."""

from oslo_utils import uuidutils

from watcher_ha.api import method
from watcher_ha.api import request
from watcher_ha.common import exception
from watcher_ha.db import audits as audits_db
from watcher_ha.decision_engine import rpcapi
from watcher_ha.policies import data_model as data_model_policy
from watcher_ha.policies import policy

MODEL_TYPES = ('compute',)
# Watcher lists the compute model alone (any other type is a 404): the
# storage model is ours, from watcher-ha 1.2.
STORAGE = 'storage'
STORAGE_VERSION = 'watcher-ha 1.2'
NODE_FIELDS = ('node_uuid', 'node_hostname', 'node_status',
               'node_disabled_reason', 'node_state', 'node_memory',
               'node_memory_mb_reserved', 'node_disk',
               'node_disk_gb_reserved', 'node_vcpus', 'node_vcpu_reserved',
               'node_memory_ratio', 'node_vcpu_ratio', 'node_disk_ratio')
SERVER_FIELDS = ('server_uuid', 'server_watcher_exclude', 'server_name',
                 'server_state', 'server_memory', 'server_disk',
                 'server_vcpus', 'server_metadata', 'server_project_id',
                 'server_locked')
EXTENDED_SERVER_FIELDS = ('server_pinned_az', 'server_flavor_extra_specs')
STORAGE_FIELDS = (
    'node_host', 'node_zone', 'node_status', 'node_state',
    'node_volume_type', 'pool_name', 'pool_total_volumes',
    'pool_total_capacity_gb', 'pool_free_capacity_gb',
    'pool_provisioned_capacity_gb', 'pool_allocated_capacity_gb',
    'pool_virtual_free', 'pool_volume_backend_name', 'volume_uuid',
    'volume_name', 'volume_size', 'volume_status', 'volume_attachments',
    'volume_project_id', 'volume_bootable', 'volume_multiattach',
    'volume_type', 'volume_snapshot_id', 'volume_metadata', 'volume_host')
EXTENDED_VERSION = '1.6'
MODEL_INFO_VERSION = 'watcher-ha 1.1'


class DataModelController:

    @method.expose(min_version='1.3')
    def get_all(self, call):
        context = call.context
        params = call.params
        policy.authorize(data_model_policy.GET_ALL, context)
        request.refuse_unknown_params(params,
                                      ('data_model_type', 'audit_uuid'))
        model_type = request.query_value(params, 'data_model_type') or \
            'compute'
        audit_uuid = request.query_value(params, 'audit_uuid')
        if model_type not in _model_types(call):
            raise exception.NotFound('The %s data model could not be found'
                                     % model_type)
        if audit_uuid is not None and not uuidutils.is_uuid_like(audit_uuid):
            raise exception.InvalidUUID(uuid=audit_uuid)
        if audit_uuid is not None:
            # Its scope narrows the model: a 404 for an audit that is not.
            audits_db.get(context, audit_uuid)
        model = rpcapi.DecisionEngineAPI().get_data_model_info(
            context, model_type, audit_uuid)
        if model_type == STORAGE:
            shown = STORAGE_FIELDS
        else:
            shown = NODE_FIELDS + SERVER_FIELDS
            if call.version_at_least(EXTENDED_VERSION):
                shown += EXTENDED_SERVER_FIELDS
        body = {'context': [{key: entry[key] for key in shown
                             if key in entry}
                            for entry in model.get('context', [])]}
        if call.version_at_least(MODEL_INFO_VERSION):
            # Which engine answered, its model's generation and age.
            body['model'] = model.get('model')
        return body


def _model_types(call):
    """The model types this request's version lists."""
    if call.version_at_least(STORAGE_VERSION):
        return MODEL_TYPES + (STORAGE,)
    return MODEL_TYPES
