"""A compute host as a machine: its power, its failures, its boot, and
what its nova-compute does when it starts.

A host fails in one of three ways, each a scenario timeline key and an
admin API call:

``fail_host`` (power loss)
    The BMC reports the power off; the guests are gone; nova-compute is
    silent.
``crash_host`` (kernel panic, hung machine)
    The BMC still reports the power on, but nothing runs, guests
    included.
``partition_host`` (network partition, hung nova-compute)
    The machine runs, guests included, but nova-compute no longer reaches
    the control plane. Nova cannot tell it from a dead host: once its
    service is forced down it lets the servers be evacuated, and each then
    runs twice (evacuation.py records it). Fencing exists for this case.

``recover_host`` undoes any of them: a dead host is booted at once (its
nova-compute starts and cleans up), a partition heals (nothing restarts,
so nothing is cleaned up: the guests evacuated meanwhile keep running on
it, as in Nova). Ironic's power actions (ironic/baremetal.py) use
``power_off``, ``power_on`` and ``reboot``, a power-on taking the cloud's
``boot_seconds`` until nova-compute starts.

Nova learns of a failure by silence only: a server's record (vm_state,
power_state) keeps what its host last reported. Whether its guest runs is
derived: on a powered-on host whose operating system runs, a guest runs
if Nova last saw it running or paused, because whenever the system starts
again (``start_compute``) Nova's power sync makes the records true again.
"""

from watcher_ha.simulator.nova import server_actions

# Nova's power states of a live guest: running, paused.
LIVE_POWER_STATES = (1, 3)
# The statuses of an evacuation that the source's nova-compute cleans up
# when it starts (Nova's _destroy_evacuated_instances).
LEFT_BEHIND = ('accepted', 'pre-migrating', 'done')


def guest_running(host, server):
    """Whether ``server``'s guest runs on ``host``, its Nova host."""
    return (host.powered_on and host.compute_running
            and server.power_state in LIVE_POWER_STATES)


def _change(host, **machine):
    """Set the machine's fields, noting when its service fell silent."""
    was_reporting = host.reporting
    for name, value in machine.items():
        setattr(host, name, value)
    now = host.clock.now()
    if was_reporting and not host.reporting:
        host.silent_since = now
    host.updated_at = now


# The failures and the recovery, by host name (admin API, timeline).

def lose_power(cloud, name):
    with cloud.lock:
        power_off(cloud, cloud.host(name))


def crash(cloud, name):
    with cloud.lock:
        host = cloud.host(name)
        host.power_epoch += 1
        _change(host, compute_running=False)


def partition(cloud, name):
    with cloud.lock:
        _change(cloud.host(name), partitioned=True)


def recover(cloud, name):
    """The host is healthy again, at once."""
    with cloud.lock:
        host = cloud.host(name)
        _change(host, partitioned=False)
        if not (host.powered_on and host.compute_running):
            host.power_epoch += 1
            _change(host, powered_on=True)
            start_compute(cloud, host)


# Power, as the BMC applies it (under the cloud's lock).

def power_off(cloud, host):
    host.power_epoch += 1
    _change(host, powered_on=False, compute_running=False)


def power_on(cloud, host):
    """Power on; nova-compute starts ``boot_seconds`` later. A host that
    is on already (even crashed) stays as it is."""
    if host.powered_on:
        return
    host.power_epoch += 1
    _change(host, powered_on=True)
    cloud._later(cloud.boot_seconds, _booted, cloud, host, host.power_epoch)


def reboot(cloud, host):
    power_off(cloud, host)
    power_on(cloud, host)


def _booted(cloud, host, epoch):
    if host.power_epoch == epoch and not host.compute_running:
        start_compute(cloud, host)


def start_compute(cloud, host):
    """nova-compute starts on a host that booted (its init_host): every
    guest died with the old boot. It destroys what evacuations left
    behind and releases their allocations (the migrations become
    ``completed``), then its power sync stops the servers Nova still
    believes running (done at once here; Nova's periodic task runs every
    10 minutes). Then it reports."""
    now = cloud.clock.now()
    for migration in cloud.migrations.values():
        if (migration.kind != 'evacuation' or migration.source != host.name
                or migration.status not in LEFT_BEHIND):
            continue
        server = cloud.servers.get(migration.server_uuid)
        if server is not None and host.name in server.left_on:
            server.left_on = tuple(name for name in server.left_on
                                   if name != host.name)
        migration.source_cleaned = True
        migration.status = 'completed'
        migration.updated_at = now
    for server in cloud.servers_on(host.name):
        if server.host == host.name and \
                server.task_state in server_actions.CAST_TASKS:
            # Asked while it was gone: the power sync below settles it.
            server.task_state = None
        if (server.host == host.name and server.task_state is None
                and server.vm_state in ('active', 'paused')):
            cloud._emit('instance.power_off.start', server)
            server.vm_state, server.power_state = 'stopped', 4
            cloud._touch(server)
            cloud._emit('instance.power_off.end', server)
    _change(host, compute_running=True)
