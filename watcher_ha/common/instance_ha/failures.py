"""Which failures of a server (VM notifications) and of a process
(PROCESS notifications) are recovered, as Masakari decides it: rules as
data and pure functions, shared by the decision engine (which records a
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
