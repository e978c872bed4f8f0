"""A network partition between controllers that share one machine
(tools/controllers.py), as a cut network makes it: packets dropped, so
that connections hang rather than being refused.

Every process of a controller runs in a cgroup of its own (cgroup v2);
``cut(controller, ports)`` has nftables drop what that controller's
processes send to the other controllers' ``ports``, and what the others'
processes send to the controller's own ``ports``. Loopback traffic has
no other tell of who sends it: every controller's processes connect from
127.0.0.1, and only the sending socket's cgroup says whose they are.

Needs root, a cgroup v2 hierarchy and nft (Debian's nftables); without
them processes start as before and ``cut`` raises Unavailable.
"""

import os
import pathlib
import shutil
import subprocess

# Where nft resolves a cgroup path from.
CGROUP_FS = pathlib.Path('/sys/fs/cgroup')
# The controllers' cgroups are made at the top of the v2 hierarchy.
CGROUP_LEVEL = 1


class Unavailable(Exception):
    pass


def _cgroup2_root():
    """The cgroup v2 hierarchy's mount point, or None (a machine with
    cgroup v1 only)."""
    with open('/proc/mounts') as mounts:
        for line in mounts:
            fields = line.split()
            if fields[2] == 'cgroup2':
                return pathlib.Path(fields[1])
    return None


def available():
    """Why partitions cannot be made here, or None if they can."""
    if os.geteuid() != 0:
        return 'they need root (cgroups and nftables)'
    if shutil.which('nft') is None:
        return 'they need nft: apt-get install nftables'
    root = _cgroup2_root()
    if root is None or not os.access(root, os.W_OK):
        return 'they need a writable cgroup v2 hierarchy'
    return None


def _table(base_port):
    # One table per set of controllers: two sets on one machine (two
    # test runs) never drop each other's packets, nor clear each other's.
    return 'watcher_ha_%d' % base_port


def _cgroup_path(controller):
    return _cgroup2_root() / ('watcher-ha-%d-%s' % (controller.base_port,
                                                    controller.name))


def cgroup(controller):
    """The controller's cgroup folder (made on first use), or None."""
    if available() is not None:
        return None
    path = _cgroup_path(controller)
    path.mkdir(exist_ok=True)
    return path


def command_in(controller, command):
    """``command``, run so that it and its children belong to the
    controller's cgroup (unchanged where partitions are unavailable)."""
    folder = cgroup(controller)
    if folder is None:
        return command
    # The shell moves itself before exec: the program and everything it
    # forks start inside (moving a pid afterwards would miss children
    # forked meanwhile, as rabbitmq-server's Erlang VM is).
    return ['sh', '-c', 'echo $$ > "$0" && exec "$@"',
            str(folder / 'cgroup.procs'), *command]


def _nft(command, check=True):
    done = subprocess.run(['nft', command], capture_output=True, text=True)
    if check and done.returncode:
        raise Unavailable('nft %s: %s' % (command, done.stderr.strip()))
    return done


def cut(controller, members, port_names):
    """Drop what ``controller`` sends to the others' ``port_names``
    ports, and what they send to its own."""
    why = available()
    if why:
        raise Unavailable('no partitions on this machine: %s' % why)
    table = 'inet %s' % _table(controller.base_port)
    _nft('add table %s' % table)
    _nft('add chain %s output { type filter hook output priority 0; }'
         % table)
    others = [c for c in members if c != controller]
    senders = [(controller, [c.port(name) for c in others
                             for name in port_names])]
    senders += [(other, [controller.port(name) for name in port_names])
                for other in others]
    for sender, ports in senders:
        _nft('add rule %s output socket cgroupv2 level %d "%s" tcp dport '
             '{ %s } drop' % (table, CGROUP_LEVEL,
                              os.path.relpath(cgroup(sender), CGROUP_FS),
                              ', '.join(str(p) for p in ports)))


def heal(controller):
    """Remove every cut of ``controller``'s set of controllers."""
    if available() is None:
        _nft('delete table inet %s' % _table(controller.base_port),
             check=False)


def remove(members):
    """Heal, and remove the (empty) cgroups once every process is gone."""
    if available() is not None:
        return
    # One table for the whole set (_table).
    heal(members[0])
    for controller in members:
        try:
            _cgroup_path(controller).rmdir()
        except OSError:
            # Never made, or a process still in it (one not started
            # through us).
            pass
