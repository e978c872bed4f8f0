"""Model states made by hand: a ClusterState or a StorageState filled
with elements, as a collector's changes fill one."""


def filled(empty, **elements):
    """The state ``empty`` (a new ClusterState or StorageState) with
    ``elements`` put in, kind after kind in the order given: ``node=[...]``
    is put with ``changes.put_node``, ``volume_type=[...]`` with
    ``changes.put_volume_type``..."""
    changes = empty.changes()
    for kind, found in elements.items():
        put = getattr(changes, 'put_' + kind)
        for element in found:
            put(element)
    return changes.state()
