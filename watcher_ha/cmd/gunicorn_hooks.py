"""gunicorn's hooks for the API under systemd
(etc/systemd/watcher-ha-api.service: ``--config
python:watcher_ha.cmd.gunicorn_hooks``): the master, the unit's main
process, feeds systemd's watchdog while the API answers.

Once the master is ready (``when_ready``), a thread of its asks the API
for ``GET /`` (the version document: no database, no token) on the
master's own listening socket every half of ``WatchdogSec``, and sends
WATCHDOG=1 only when a worker answered it. Workers that all hang, or a
master that stopped replacing dead ones, leave it unanswered: systemd
then restarts the unit.
"""

import socket

from watcher_ha.service import service

# Seconds a worker has to answer; under WatchdogSec's half.
ANSWER_TIMEOUT = 10
# What the wildcard addresses are reached at from this host.
_LOCAL = {'0.0.0.0': '127.0.0.1', '::': '::1'}  # noqa: S104


def local_address(listener):
    """(family, address) at which this host reaches ``listener`` (a
    socket gunicorn listens on)."""
    address = listener.getsockname()
    if listener.family in (socket.AF_INET, socket.AF_INET6):
        address = (_LOCAL.get(address[0], address[0]),) + address[1:]
    return listener.family, address


def unanswered(family, address, timeout=ANSWER_TIMEOUT):
    """[] if ``GET /`` at ``address`` got a response that is no server
    error, else [what went wrong]."""
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(address)
            sock.sendall(b'GET / HTTP/1.0\r\nHost: localhost\r\n'
                         b'Accept: application/json\r\n\r\n')
            status_line = sock.makefile('rb').readline(200).split()
    except OSError as err:
        return ['the API workers (GET /: %s)' % err]
    if len(status_line) < 2 or not status_line[1].isdigit() or int(
            status_line[1]) >= 500:
        return ['the API workers (GET / answered %r)'
                % b' '.join(status_line).decode(errors='replace')]
    return []


def when_ready(server):
    """gunicorn's hook, in the master once it listens."""
    family, address = local_address(server.LISTENERS[0].sock)
    watchdog = service.Watchdog.from_environment(
        lambda: unanswered(family, address))
    if watchdog is not None:
        watchdog.start()
