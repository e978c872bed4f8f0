"""A flavor as the plans name it: by id, or else by name (as Nova's
``--flavor`` takes either), and what it gives a server."""

from novaclient import exceptions as nova_exc


def find(nova, ref):
    """The flavor whose id, or else name, is ``ref``; novaclient's
    NotFound when none is."""
    try:
        return nova.flavors.get(ref)
    except nova_exc.NotFound:
        return nova.flavors.find(name=ref)


def size(flavor):
    """(vcpus, memory_mb, disk_gb) a server of ``flavor`` takes, as the
    data model counts it (root disk and ephemeral disk)."""
    return (flavor.vcpus, flavor.ram,
            flavor.disk + (getattr(flavor, 'OS-FLV-EXT-DATA:ephemeral', 0)
                           or 0))
