"""The data models as ``GET /v1/data_model`` lists them (Watcher's
format: numbers as strings). Compute: one entry per server with its
node's fields, one per node without servers. Storage (which Watcher's API
does not list): one entry per volume with its pool's and its backend's
fields, one per pool without volumes, one per backend without pools and
one per volume in no known pool."""

from watcher_ha.decision_engine.model import storage_state


def _node_fields(node):
    return {
        'node_uuid': node.uuid, 'node_hostname': node.hostname,
        'node_status': node.status,
        'node_disabled_reason': node.disabled_reason,
        'node_state': node.state, 'node_memory': str(node.memory_mb),
        'node_memory_mb_reserved': str(node.memory_mb_reserved),
        'node_disk': str(node.disk_gb),
        'node_disk_gb_reserved': str(node.disk_gb_reserved),
        'node_vcpus': str(node.vcpus),
        'node_vcpu_reserved': str(node.vcpu_reserved),
        'node_memory_ratio': str(node.memory_ratio),
        'node_vcpu_ratio': str(node.vcpu_ratio),
        'node_disk_ratio': str(node.disk_ratio),
    }


def _server_fields(instance, excluded):
    return {
        'server_uuid': instance.uuid,
        # Left out of the plan by an audit's scope.
        'server_watcher_exclude': instance.uuid in excluded,
        'server_name': instance.name, 'server_state': instance.state,
        'server_memory': str(instance.memory_mb),
        'server_disk': str(instance.disk_gb),
        'server_vcpus': str(instance.vcpus),
        'server_metadata': instance.metadata_dict,
        'server_project_id': instance.project_id,
        'server_locked': instance.locked,
        'server_pinned_az': instance.pinned_availability_zone,
        'server_flavor_extra_specs': instance.flavor_extra_specs_dict,
    }


def entries(state, excluded=frozenset()):
    """The entries of ``state``; the servers ``excluded`` (uuids) marked
    as an audit's scope leaves them out."""
    if isinstance(state, storage_state.StorageState):
        return _storage_entries(state)
    entries = []
    for hostname in sorted(state.nodes):
        node_fields = _node_fields(state.nodes[hostname])
        placed = state.instances_on(hostname)
        if not placed:
            entries.append(node_fields)
        for instance in placed:
            entries.append(dict(_server_fields(instance, excluded),
                                **node_fields))
    return entries


def _number(value):
    return None if value is None else str(value)


def _storage_node_fields(node):
    return {
        'node_host': node.host, 'node_zone': node.zone,
        'node_status': node.status, 'node_state': node.state,
        'node_volume_type': list(node.volume_types),
    }


def _pool_fields(pool):
    return {
        'pool_name': pool.name,
        'pool_total_volumes': _number(pool.total_volumes),
        'pool_total_capacity_gb': _number(pool.total_capacity_gb),
        'pool_free_capacity_gb': _number(pool.free_capacity_gb),
        'pool_provisioned_capacity_gb': _number(
            pool.provisioned_capacity_gb),
        'pool_allocated_capacity_gb': _number(pool.allocated_capacity_gb),
        'pool_virtual_free': _number(pool.virtual_free),
        'pool_volume_backend_name': pool.volume_backend_name,
    }


def _volume_fields(volume):
    return {
        'volume_uuid': volume.uuid, 'volume_name': volume.name,
        'volume_size': str(volume.size), 'volume_status': volume.status,
        'volume_attachments': [
            {'server_id': server, 'attachment_id': attachment}
            for server, attachment in volume.attachments],
        'volume_project_id': volume.project_id,
        'volume_bootable': volume.bootable,
        'volume_multiattach': volume.multiattach,
        'volume_type': volume.volume_type,
        'volume_snapshot_id': volume.snapshot_id,
        'volume_metadata': volume.metadata_dict,
        'volume_host': volume.pool,
    }


def _storage_entries(state):
    """The entries of a StorageState."""
    entries = []
    pooled = set()
    for host in sorted(state.nodes):
        node_fields = _storage_node_fields(state.nodes[host])
        pools = state.pools_of(host)
        if not pools:
            entries.append(node_fields)
        for pool in pools:
            pooled.add(pool.name)
            entries.extend(_pool_entries(state, pool, node_fields))
    for name in sorted(set(state.pools) - pooled):
        # A pool whose backend's service the model does not know.
        entries.extend(_pool_entries(state, state.pools[name], {}))
    entries.extend(_volume_fields(volume)
                   for volume in state.unplaced_volumes())
    return entries


def _pool_entries(state, pool, node_fields):
    pool_fields = dict(_pool_fields(pool), **node_fields)
    volumes = state.volumes_in(pool.name)
    if not volumes:
        return [pool_fields]
    return [dict(_volume_fields(volume), **pool_fields)
            for volume in volumes]
