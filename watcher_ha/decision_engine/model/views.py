"""The data model as ``GET /v1/data_model`` lists it: one entry per
server with its node's fields, one per node without servers (Watcher's
format: numbers as strings)."""


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


def listing(state, excluded=frozenset()):
    """The entries of ``state``; the servers ``excluded`` (uuids) marked
    as an audit's scope leaves them out."""
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
