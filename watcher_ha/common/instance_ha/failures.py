"""Which failures of a server (VM notifications) and of a process
(PROCESS notifications) are recovered, and what becomes of each server
of a failed host (COMPUTE_HOST), as Masakari decides it: rules as data
and pure functions, shared by the decision engine (which records a
report it will not recover as ignored, saying why) and the actions
(which check again when they run).

Masakari-monitors' instance monitor reports every libvirt event it
watches, many of them no failure: a guest shut down from inside
(LIFECYCLE STOPPED_SHUTDOWN), a server stopped through Nova
(STOPPED_DESTROYED), a reboot, a watchdog. Masakari restarts the server
only for the pairs of ``event`` and ``vir_domain_event`` below; the
others are ignored. It leaves paused and rescued servers alone (someone
is at work on them), and restarts only the servers whose metadata says
``HA_Enabled`` (a boolean string: true, yes, on, 1...) unless told to
restart all.

Of a process, it acts on ``nova-compute`` stopping only: its host's
compute service is disabled, so that the scheduler sends it nothing more,
and the host is put on maintenance. Another process stopping puts the
host on maintenance and nothing else; a process starting again needs
nothing.
"""

from oslo_utils import strutils

# (event, vir_domain_event) of a VM notification that mean the guest
# failed.
RESTARTED_EVENTS = frozenset((
    ('LIFECYCLE', 'STOPPED_FAILED'),
    # From masakari-monitors' introspective instance monitor.
    ('QEMU_GUEST_AGENT_ERROR', 'STOPPED_FAILED'),
    ('IO_ERROR', 'IO_ERROR_REPORT'),
))
# Nova vm_states of servers left as they are.
LEFT_ALONE = ('paused', 'rescued')
HA_ENABLED_KEY = 'HA_Enabled'

NOVA_COMPUTE = 'nova-compute'


def event_not_recovered(payload):
    """Why the VM notification ``payload`` needs no restart (None: it
    does)."""
    pair = (payload.get('event'), payload.get('vir_domain_event'))
    if pair in RESTARTED_EVENTS:
        return None
    return ('the instance monitor reported %s %s, which is no failure a '
            'restart recovers (only %s are)' % (
                pair[0], pair[1], ', '.join(
                    '%s %s' % p for p in sorted(RESTARTED_EVENTS))))


def ha_enabled(metadata):
    return strutils.bool_from_string((metadata or {}).get(HA_ENABLED_KEY))


def server_not_recovered(uuid, metadata, vm_state, all_servers):
    """Why the server ``uuid`` (its metadata and Nova vm_state) is not
    restarted (None: it is); ``all_servers``: [instance_ha]
    process_all_instances."""
    if not all_servers and not ha_enabled(metadata):
        return ('server %s does not have the metadata %s=True, and '
                '[instance_ha] process_all_instances is false: it is not '
                'restarted' % (uuid, HA_ENABLED_KEY))
    if vm_state in LEFT_ALONE:
        return ('server %s is %s: it is left as it is' % (uuid, vm_state))
    return None


def process_not_recovered(payload):
    """Why the PROCESS notification ``payload`` needs no recovery (None:
    it does)."""
    if payload.get('event') != 'STOPPED':
        return '%s reports it is %s: nothing to recover' % (
            payload.get('process_name'), payload.get('event'))
    return None


# Host failures (COMPUTE_HOST): what becomes of each server of the failed
# host, by its Nova vm_state, as Masakari's host-failure flow decides it
# (masakari/engine/drivers/taskflow/host_failure.py, EvacuateInstances-
# Task._evacuate_and_confirm). Nova evacuates only these (its
# check_instance_state on evacuate), each as it is:
EVACUABLE = frozenset(('active', 'stopped', 'error'))
# Masakari resets any other vm_state to error first (os-resetState), and
# evacuates then; so does watcher_ha, except for the states below.
# A server in these is left on the failed host, saying why.
NOT_EVACUATED = {
    'building': 'it was still being built when its host failed (Nova '
                'cannot rebuild it elsewhere before its build ended): '
                'delete it and create it again',
    'soft-delete': 'it is deleted (soft): Masakari would reset and '
                   'evacuate it, bringing a deleted server back; '
                   'restore it (openstack server restore) and evacuate '
                   'it by hand if it is still wanted',
}
# What a server comes back in on its new host: running, stopped, or in
# error (stopped, then reset to error).
ACTIVE = 'active'
STOPPED = 'stopped'
ERROR = 'error'
# Nova's power_state of a guest that runs.
RUNNING = 1


def not_evacuated(uuid, vm_state):
    """Why the server ``uuid`` of a failed host, in ``vm_state``, is left
    where it is (None: it is evacuated)."""
    reason = NOT_EVACUATED.get(vm_state)
    if reason is None:
        return None
    return 'server %s is %s: %s' % (uuid, vm_state, reason)


def reset_before_evacuation(vm_state):
    """Whether Nova evacuates the server only once its state is reset
    (to error, as Masakari resets it)."""
    return vm_state not in EVACUABLE


def comes_back_as(vm_state, power_state):
    """The state the evacuated server should end in, as Masakari leaves
    it: an active server running again, a stopped one stopped, one in
    error stopped and in error again; the ones reset first stopped
    (paused, suspended, rescued, shelved...), except a resize waiting for
    its confirmation whose guest ran, which runs again."""
    if vm_state == 'active':
        return ACTIVE
    if vm_state == 'error':
        return ERROR
    if vm_state == 'resized' and power_state == RUNNING:
        return ACTIVE
    return STOPPED
