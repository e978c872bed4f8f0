#!/usr/bin/env python3
"""Three OpenStack controllers' backends on one machine: a Galera
cluster, a RabbitMQ cluster and an etcd cluster, one node of each per
controller, from Debian's packages (mariadb-server with galera-4,
rabbitmq-server, etcd-server, rsync for Galera's state transfers), and on
each controller the HAProxy through which its daemons reach etcd
(haproxy).

    python3 tools/controllers.py --dir DIR up
    python3 tools/controllers.py --dir DIR kill c2      # SIGKILL, whole
    python3 tools/controllers.py --dir DIR kill c1 --backend rabbit
    python3 tools/controllers.py --dir DIR freeze c2    # SIGSTOP
    python3 tools/controllers.py --dir DIR thaw c2      # SIGCONT
    python3 tools/controllers.py --dir DIR start c2     # rejoin
    python3 tools/controllers.py --dir DIR isolate c3   # its Galera node
    python3 tools/controllers.py --dir DIR rejoin c3    # cut off, back
    python3 tools/controllers.py --dir DIR cut c3 --backend etcd
    python3 tools/controllers.py --dir DIR heal c3      # the cut undone
    python3 tools/controllers.py --dir DIR status
    python3 tools/controllers.py --dir DIR urls c1      # what c1 uses
    python3 tools/controllers.py --dir DIR queues c1    # queue -> node
    python3 tools/controllers.py --dir DIR down

Controller ``cN`` keeps its data, logs and process groups under
DIR/cN/ and listens on 127.0.0.1 ports of its own (``--base-port`` +
100 N + the offsets in PORTS), so the machine's own MariaDB, RabbitMQ
and Redis are left alone. Every backend process runs in a process group
of its own, recorded in DIR/cN/<backend>.pgid: killing or freezing a
controller signals all of its groups at the same instant, as a
controller that loses power or hangs would.

The processes outlive this command (it starts and signals them, and is
run once per step); ``down`` stops them all.
"""

import argparse
import contextlib
import dataclasses
import os
import pathlib
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time

# Imported by the tests as tools.controllers, run as a script by hand.
if __package__:
    from tools import children
    from tools import partitions
    from tools.machine_load import slowdown
else:
    import children
    import partitions
    from machine_load import slowdown

CONTROLLERS = ('c1', 'c2', 'c3')
DEFAULT_BASE_PORT = 21000
# Offsets from a controller's base port (--base-port + 100 N).
PORTS = {'mysql': 6, 'galera': 7, 'ist': 8, 'sst': 9, 'amqp': 72,
         'rabbit_dist': 73, 'etcd_client': 79, 'etcd_peer': 80,
         'etcd_proxy': 81}
# The ports through which the other controllers reach each backend of a
# controller: what a partition of that backend cuts.
BACKEND_PORTS = {'galera': ('mysql', 'galera', 'ist', 'sst'),
                 'rabbit': ('amqp', 'rabbit_dist'),
                 'etcd': ('etcd_client', 'etcd_peer')}
GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'
# A silent Galera peer is suspected after the first, and out of the
# cluster's view after the second at the latest.
GALERA_SUSPECT_SECONDS = 5
GALERA_INACTIVE_SECONDS = 10
RABBIT_BIN = pathlib.Path('/usr/lib/rabbitmq/bin')
CLUSTER_NAME = 'watcher_ha'
# How long one backend may take to be ready (a joining Galera node
# copies the donor's data first).
READY_TIMEOUT = 90.0


class ControllerError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Controller:
    name: str
    root: pathlib.Path
    base_port: int

    @property
    def index(self):
        return CONTROLLERS.index(self.name) + 1

    def port(self, what):
        return self.base_port + 100 * self.index + PORTS[what]

    def path(self, *parts):
        return self.root / self.name / pathlib.Path(*parts)

    @property
    def rabbit_node(self):
        # Unique to its ports too: epmd names every node of the machine,
        # whichever controllers (or test's broker) it belongs to.
        return 'rabbit%d-%d@%s' % (self.base_port, self.index,
                                   socket.gethostname().split('.')[0])


def controllers(root, base_port):
    return [Controller(name, root, base_port) for name in CONTROLLERS]


# Process groups.

# pid -> Popen of the backends this process started, to reap them.
_STARTED = {}
# Backends die with the process that started them (a test's), unless
# the command line, which starts them and exits, says they outlive it.
_OUTLIVE_THIS_PROCESS = False


def outlive_this_process():
    global _OUTLIVE_THIS_PROCESS
    _OUTLIVE_THIS_PROCESS = True

def _spawn(controller, backend, command, env=None, log=None):
    """Start ``command`` in a session of its own; its group recorded."""
    log_file = open(log or controller.path(backend + '.out'), 'ab')
    options = {'stdin': subprocess.DEVNULL, 'stdout': log_file,
               'stderr': subprocess.STDOUT,
               'env': dict(os.environ, **(env or {}))}
    # In the controller's cgroup, so that a partition can cut it off.
    command = partitions.command_in(controller, command)
    with log_file:
        if _OUTLIVE_THIS_PROCESS:
            process = children.detached(command, **options)
        else:
            process = children.popen(command, start_new_session=True,
                                     **options)
    record(controller, backend, process)
    return process


def record(controller, name, process):
    """Count ``process``, the leader of a session of its own, among
    ``controller``'s processes under ``name``: signal_all reaches its
    group with the backends' (a daemon of the controller, started by a
    test, dies or freezes with them), and this process reaps it."""
    controller.path(name + '.pgid').write_text(str(process.pid))
    _STARTED[process.pid] = process


def forget(controller, name):
    """What ``record`` did, once the process was stopped and reaped."""
    with contextlib.suppress(FileNotFoundError):
        group = int(controller.path(name + '.pgid').read_text())
        _STARTED.pop(group, None)
        controller.path(name + '.pgid').unlink()


def _groups(controller):
    """{backend: process group} of the controller's running backends."""
    found = {}
    for record in sorted(controller.path().glob('*.pgid')):
        group = int(record.read_text())
        # A dead leader that this process started stays a zombie, and
        # its group signallable, until it is reaped here.
        if group in _STARTED:
            _STARTED[group].poll()
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            record.unlink()
            continue
        found[record.stem] = group
    return found


def signal_all(controller, signum):
    """Send ``signum`` to every process of ``controller`` at once."""
    for group in _groups(controller).values():
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signum)


def signal_backend(controller, backend, signum):
    """Send ``signum`` to one backend of ``controller`` ('etcd',
    'rabbit', 'galera', 'haproxy'); False if it is not running."""
    group = _groups(controller).get(backend)
    if group is None:
        return False
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signum)
    return True


def kill_backend(controller, backend):
    """SIGKILL one backend of ``controller`` (its RabbitMQ node alone,
    say: the Erlang VM and its helpers, as a node that crashes), and
    reap it: start() starts it again, the others of the controller left
    running."""
    if not signal_backend(controller, backend, signal.SIGKILL):
        return
    deadline = time.monotonic() + 30
    while backend in _groups(controller):
        if time.monotonic() > deadline:
            raise ControllerError('%s of %s survived SIGKILL'
                                  % (backend, controller.name))
        time.sleep(0.1)


def _wait_gone(controller, timeout=30.0):
    deadline = time.monotonic() + timeout
    while _groups(controller):
        if time.monotonic() > deadline:
            signal_all(controller, signal.SIGKILL)
            deadline = time.monotonic() + timeout
        time.sleep(0.2)


def _wait(what, ready, timeout=READY_TIMEOUT):
    """Until ``ready()``; ``timeout`` seconds on an idle machine,
    stretched by its load as it goes (machine_load.slowdown: an Erlang
    VM's start, each rabbitmqctl's included, takes that much longer on a
    machine running a test suite's worth of daemons)."""
    started = time.monotonic()
    while not ready():
        allowed = timeout * slowdown()
        if time.monotonic() - started > allowed:
            raise ControllerError('%s not ready within %.0f s (%.0f s on '
                                  'an idle machine)' % (what, allowed,
                                                        timeout))
        time.sleep(0.5)


# Galera.

def _galera_cnf(controller, members):
    peers = ','.join('127.0.0.1:%d' % c.port('galera') for c in members)
    options = ';'.join((
        'gmcast.listen_addr=tcp://127.0.0.1:%d' % controller.port('galera'),
        'ist.recv_addr=127.0.0.1:%d' % controller.port('ist'),
        # A peer that stops answering is out of the view sooner than
        # after Galera's default 15 s of silence.
        'evs.suspect_timeout=PT%dS' % GALERA_SUSPECT_SECONDS,
        'evs.inactive_timeout=PT%dS' % GALERA_INACTIVE_SECONDS))
    data = controller.path('galera', 'data')
    return '\n'.join((
        '[mysqld]',
        'user=%s' % _galera_user(),
        'datadir=%s' % data,
        'socket=%s' % controller.path('galera', 'mysqld.sock'),
        'pid-file=%s' % controller.path('galera', 'mysqld.pid'),
        'log-error=%s' % controller.path('galera', 'error.log'),
        'bind-address=127.0.0.1',
        'port=%d' % controller.port('mysql'),
        'skip-name-resolve',
        # What Galera requires of every node.
        'binlog_format=ROW',
        'default_storage_engine=InnoDB',
        'innodb_autoinc_lock_mode=2',
        'innodb_buffer_pool_size=64M',
        'innodb_flush_log_at_trx_commit=2',
        'wsrep_on=ON',
        'wsrep_provider=%s' % GALERA_PROVIDER,
        'wsrep_cluster_name=%s' % CLUSTER_NAME,
        'wsrep_cluster_address=gcomm://%s' % peers,
        'wsrep_node_name=%s' % controller.name,
        'wsrep_node_address=127.0.0.1',
        'wsrep_provider_options="%s"' % options,
        'wsrep_sst_method=rsync',
        'wsrep_sst_receive_address=127.0.0.1:%d' % controller.port('sst'),
        '')) + '\n'


def _galera_user():
    """Who the node runs as: root starts it as Debian's mysql user,
    because the rsync daemon of a joining node's state transfer, started
    as root, would drop to nobody and could not write the data folder."""
    return 'mysql' if os.geteuid() == 0 else pwd.getpwuid(os.getuid())[0]


def _own(path, user):
    entry = pwd.getpwnam(user)
    for where in [path, *path.rglob('*')]:
        os.chown(where, entry.pw_uid, entry.pw_gid, follow_symlinks=False)


def galera_query(controller, *statements):
    """Rows of the last of ``statements``, run in turn as root through
    the node's socket, each committed."""
    import pymysql
    path = str(controller.path('galera', 'mysqld.sock'))
    # PyMySQL leaves its socket open when the connect itself fails, as
    # it does while a node starts: tried first with one closed here.
    with socket.socket(socket.AF_UNIX) as probe:
        probe.settimeout(2)
        probe.connect(path)
    conn = pymysql.connect(unix_socket=path, user='root', connect_timeout=2,
                           read_timeout=5, autocommit=True)
    with conn:
        with conn.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
            return cursor.fetchall()


def galera_status(controller):
    """{wsrep status variable: value}, or {} if the node does not answer."""
    try:
        return dict(galera_query(controller, "SHOW STATUS LIKE 'wsrep_%'"))
    except Exception:  # noqa: BLE001 - any failure: not answering
        return {}


def _galera_synced(controller):
    status = galera_status(controller)
    return (status.get('wsrep_ready') == 'ON'
            and status.get('wsrep_local_state_comment') == 'Synced')


def isolate(controller):
    """Cut the controller's Galera node off from the others, the node
    and everything else of the controller running (Galera's
    gmcast.isolate: it drops its connections to its peers and refuses
    theirs), as a network partition would. Once it has missed them for
    GALERA_SUSPECT_SECONDS it is non-Primary: it refuses reads and writes
    (1047), while the two others carry on as a Primary component of
    two."""
    galera_query(controller, "SET GLOBAL wsrep_provider_options = "
                             "'gmcast.isolate=1'")


def rejoin(controller):
    """End isolate(): the node reconnects, catches up (IST) and is
    synced again; returns once it is."""
    galera_query(controller, "SET GLOBAL wsrep_provider_options = "
                             "'gmcast.isolate=0'")
    _wait('Galera node of %s back' % controller.name,
          lambda: _galera_synced(controller))


def launch_galera(controller, members, bootstrap=False):
    """Start the node; what waits for it to be ready (a call)."""
    data = controller.path('galera', 'data')
    cnf = controller.path('galera', 'my.cnf')
    cnf.parent.mkdir(parents=True, exist_ok=True)
    cnf.write_text(_galera_cnf(controller, members))
    command = ['mariadbd', '--defaults-file=%s' % cnf]
    if bootstrap:
        if not data.exists():
            _own(cnf.parent, _galera_user())
            done = subprocess.run(
                ['mariadb-install-db', '--defaults-file=%s' % cnf,
                 '--auth-root-authentication-method=normal',
                 '--skip-test-db'], capture_output=True, text=True)
            if done.returncode:
                raise ControllerError('mariadb-install-db: %s'
                                      % done.stdout[-500:])
        command.append('--wsrep-new-cluster')
    else:
        # A joiner: rsync fills the folder from a donor.
        data.mkdir(parents=True, exist_ok=True)
    _own(cnf.parent, _galera_user())
    _spawn(controller, 'galera', command)

    def ready():
        _wait('Galera node of %s' % controller.name,
              lambda: _galera_synced(controller))
        if bootstrap:
            # Clients come over TCP from 127.0.0.1, which the socket-only
            # root of a new data folder does not cover. Replicated to the
            # joiners by their state transfer.
            galera_query(controller, "CREATE USER IF NOT EXISTS "
                         "'root'@'127.0.0.1'",
                         "GRANT ALL ON *.* TO 'root'@'127.0.0.1' "
                         "WITH GRANT OPTION")
    return ready


# RabbitMQ.

def _rabbit_env(controller, cookie_home):
    base = controller.path('rabbit')
    return {
        'HOME': str(cookie_home),
        'RABBITMQ_NODENAME': controller.rabbit_node,
        'RABBITMQ_NODE_IP_ADDRESS': '127.0.0.1',
        'RABBITMQ_NODE_PORT': str(controller.port('amqp')),
        'RABBITMQ_DIST_PORT': str(controller.port('rabbit_dist')),
        'RABBITMQ_MNESIA_BASE': str(base / 'mnesia'),
        'RABBITMQ_LOG_BASE': str(base / 'log'),
        'RABBITMQ_PID_FILE': str(base / 'rabbit.pid'),
        'RABBITMQ_CONFIG_FILE': str(base / 'rabbitmq'),
        'RABBITMQ_ADVANCED_CONFIG_FILE': str(base / 'advanced.config'),
        'RABBITMQ_ENABLED_PLUGINS_FILE': str(base / 'enabled_plugins'),
        'RABBITMQ_CONF_ENV_FILE': str(base / 'rabbitmq-env.conf'),
    }


def _cookie_home(root):
    """A HOME whose .erlang.cookie every node and rabbitmqctl share."""
    home = root / 'erlang-home'
    cookie = home / '.erlang.cookie'
    if not cookie.exists():
        home.mkdir(parents=True, exist_ok=True)
        cookie.write_text(os.urandom(16).hex().upper())
        cookie.chmod(0o400)
    return home


def rabbitmqctl(controller, *args, timeout=60):
    env = _rabbit_env(controller, _cookie_home(controller.root))
    return subprocess.run(
        [str(RABBIT_BIN / 'rabbitmqctl'), '-n', controller.rabbit_node,
         *args], capture_output=True, text=True, timeout=timeout,
        env=dict(os.environ, **env))


def queues(controller, vhost='/'):
    """{queue name: (its type, the node that holds it)}, as
    ``controller``'s node sees them: a classic queue's only node, a
    quorum queue's leader (the replica its clients' operations go
    through)."""
    found = {}
    for queue in _listed(controller, 'list_queues', '-p', vhost, 'name',
                         'type', 'leader', 'pid'):
        node = (queue.get('leader') if queue.get('type') == 'quorum'
                else _node_of(queue.get('pid')))
        found[queue['name']] = (queue.get('type'), node)
    return found


def consumers(controller, vhost='/'):
    """{queue name: sorted nodes its consumers' connections are on}."""
    found = {}
    for consumer in _listed(controller, 'list_consumers', '-p', vhost,
                            'queue_name', 'channel_pid'):
        found.setdefault(consumer['queue_name'], []).append(
            _node_of(consumer.get('channel_pid')))
    return {name: sorted(nodes) for name, nodes in found.items()}


def _listed(controller, command, *args):
    """[{column: value}] of ``rabbitmqctl command [-p vhost] columns``.
    Its table, not its JSON: the JSON names a process by numbers local
    to the node asked (#PID<12766.1377.0>), the table by its node."""
    options = list(args[:2]) if args[:1] == ('-p',) else []
    columns = args[len(options):]
    done = rabbitmqctl(controller, command, *options, *columns,
                       '--no-table-headers', '--quiet', timeout=30)
    if done.returncode:
        raise ControllerError('rabbitmqctl %s: %s'
                              % (command, done.stderr.strip()[-300:]))
    # A row has every column, an empty one as an empty field.
    return [dict(zip(columns, [value.strip() for value in line.split('\t')],
                     strict=True))
            for line in done.stdout.splitlines() if line.strip()]


def _node_of(pid):
    """The node of an Erlang process as rabbitmqctl prints it,
    <rabbit@host.1.2.3>."""
    return str(pid or '').strip('<>').rsplit('.', 3)[0]


def launch_rabbit(controller, first=None):
    """Start the node; what waits for it to be ready and joins
    ``first``'s cluster if this is its first start and ``first`` is
    another node (a call)."""
    base = controller.path('rabbit')
    new = not (base / 'mnesia').exists()
    base.mkdir(parents=True, exist_ok=True)
    (base / 'rabbitmq.conf').write_text(
        'listeners.tcp.default = %d\n' % controller.port('amqp')
        + 'loopback_users = none\n'
        # Several brokers: a node that loses its peers pauses rather
        # than serve a split cluster.
        + 'cluster_partition_handling = pause_minority\n')
    (base / 'advanced.config').write_text('[].\n')
    (base / 'enabled_plugins').write_text('[].\n')
    (base / 'rabbitmq-env.conf').write_text('')
    env = _rabbit_env(controller, _cookie_home(controller.root))
    _spawn(controller, 'rabbit', [str(RABBIT_BIN / 'rabbitmq-server')], env)

    def ready():
        _wait('RabbitMQ node of %s' % controller.name,
              lambda: rabbitmqctl(controller, 'await_startup',
                                  timeout=30).returncode == 0)
        if not new or first is None or first == controller:
            return
        for step in (('stop_app',), ('join_cluster', first.rabbit_node),
                     ('start_app',)):
            done = rabbitmqctl(controller, *step)
            if done.returncode:
                raise ControllerError('rabbitmqctl %s: %s' % (
                    ' '.join(step), done.stderr.strip()[-300:]))
    return ready


# etcd.

def _etcd_url(controller, what):
    return 'http://127.0.0.1:%d' % controller.port(what)


def etcd_healthy(controller):
    import requests
    try:
        return requests.get(_etcd_url(controller, 'etcd_client') + '/health',
                            timeout=2).json().get('health') == 'true'
    except (requests.RequestException, ValueError):
        return False


def start_etcd(controller, members):
    data = controller.path('etcd')
    state = 'existing' if data.exists() else 'new'
    cluster = ','.join('%s=%s' % (c.name, _etcd_url(c, 'etcd_peer'))
                       for c in members)
    _spawn(controller, 'etcd', [
        'etcd', '--name', controller.name, '--data-dir', str(data),
        '--listen-client-urls', _etcd_url(controller, 'etcd_client'),
        '--advertise-client-urls', _etcd_url(controller, 'etcd_client'),
        '--listen-peer-urls', _etcd_url(controller, 'etcd_peer'),
        '--initial-advertise-peer-urls', _etcd_url(controller, 'etcd_peer'),
        '--initial-cluster', cluster, '--initial-cluster-token',
        CLUSTER_NAME, '--initial-cluster-state', state])


def _etcd_post(controller, path, body=None):
    import requests
    return requests.post(_etcd_url(controller, 'etcd_client') + path,
                         json=body or {}, timeout=2).json()


def etcd_leader(members):
    """The controller whose etcd member leads, as a live member says;
    None if none answers."""
    for controller in members:
        try:
            status = _etcd_post(controller, '/v3/maintenance/status')
            listed = _etcd_post(controller, '/v3/cluster/member/list')
        except Exception:  # noqa: BLE001, S112 - any failure: ask another
            continue
        names = {m['ID']: m['name'] for m in listed.get('members', ())}
        leader = names.get(status.get('leader'))
        return next((c for c in members if c.name == leader), None)
    return None


# HAProxy: how a controller's daemons reach etcd.

# Seconds between HAProxy's health checks of an etcd member; a member is
# out after two failed ones, in again after two good ones.
HAPROXY_CHECK_SECONDS = 0.5


def _haproxy_cfg(controller, members):
    """tooz's etcd driver talks to one address: the controller's
    HAProxy, in front of every etcd member. Its own member serves while
    healthy (/health answers 200 only while the member has a leader); the
    others are backups, so a member killed, frozen or cut off from the
    majority is left for a healthy one within two checks, and the
    requests already sent to it are retried there (a gateway request is
    a single HTTP exchange; tooz's writes are transactions or idempotent
    puts, which a retry after a lost answer cannot apply twice wrongly)."""
    lines = [
        'global',
        '    stats socket %s mode 600 level admin'
        % controller.path('haproxy', 'admin.sock'),
        'defaults',
        '    mode http',
        '    timeout connect 1s',
        '    timeout client 60s',
        # Longer than the record lifetime tooz asks etcd for, shorter than
        # the time until the others presume a member gone.
        '    timeout server 5s',
        '    retries 2',
        '    option redispatch 1',
        '    retry-on conn-failure empty-response response-timeout 503',
        'frontend etcd',
        '    bind 127.0.0.1:%d' % controller.port('etcd_proxy'),
        '    default_backend etcd_members',
        'backend etcd_members',
        '    option httpchk GET /health',
        '    http-check expect status 200',
        '    default-server inter %dms fall 2 rise 2 '
        'on-marked-down shutdown-sessions'
        % int(HAPROXY_CHECK_SECONDS * 1000),
    ]
    for member in sorted(members, key=lambda c: c != controller):
        lines.append('    server %s 127.0.0.1:%d check%s' % (
            member.name, member.port('etcd_client'),
            '' if member == controller else ' backup'))
    return '\n'.join(lines) + '\n'


def start_haproxy(controller, members):
    cfg = controller.path('haproxy', 'haproxy.cfg')
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(_haproxy_cfg(controller, members))
    _spawn(controller, 'haproxy', ['haproxy', '-db', '-f', str(cfg)])


def _haproxy_listening(controller):
    with contextlib.suppress(OSError), socket.create_connection(
            ('127.0.0.1', controller.port('etcd_proxy')), timeout=1):
        return True
    return False


def haproxy_servers(controller):
    """{etcd member's controller name: UP, DOWN, MAINT...} as the
    controller's HAProxy sees them."""
    with socket.socket(socket.AF_UNIX) as admin:
        admin.settimeout(5)
        admin.connect(str(controller.path('haproxy', 'admin.sock')))
        admin.sendall(b'show servers state etcd_members\n')
        text = b''
        while chunk := admin.recv(65536):
            text += chunk
    states = {}
    for line in text.decode().splitlines()[2:]:
        fields = line.split()
        if len(fields) > 6:
            # srv_op_state: 0 stopped, 1 starting, 2 running, 3 stopping.
            states[fields[3]] = 'UP' if fields[5] == '2' else 'DOWN'
    return states


# Partitions.

def cut(controller, members, backends=tuple(BACKEND_PORTS)):
    """Cut ``controller``'s ``backends`` off from the others' (every
    process of the controller from the others' nodes of those backends,
    and the others from its node), as a network partition would; its own
    daemons still reach its own nodes (tools/partitions.py)."""
    partitions.cut(controller, members, [
        name for backend in backends for name in BACKEND_PORTS[backend]])


def heal(controller):
    partitions.heal(controller)


# The controllers.

def urls(controller, members):
    """What controller's daemons are configured with."""
    return {
        # Its own Galera node, as the write path most likely to race
        # another controller's: every node accepts writes.
        'database': 'mysql+pymysql://root@127.0.0.1:%d/watcher_ha'
                    % controller.port('mysql'),
        # Every broker, its own first: as an operator writes it; the
        # order does not matter to oslo.messaging, which shuffles the
        # hosts of transport_url for each connection, so a controller's
        # daemons use every node, not only their own.
        'transport': 'rabbit://' + ','.join(
            'guest:guest@127.0.0.1:%d' % c.port('amqp')
            for c in sorted(members, key=lambda c: c != controller)) + '/',
        # etcd through the controller's HAProxy (_haproxy_cfg: tooz
        # talks to one address).
        'coordination': 'etcd3+http://127.0.0.1:%d'
                        % controller.port('etcd_proxy'),
    }


# What every daemon of the controllers (and the cloud's services that
# share the brokers: Nova, the simulator standing in for it) sets in
# [oslo_messaging_rabbit], whichever controller it runs on.
RABBIT_OPTIONS = {
    # Named queues (the topic queues of RPC servers, each engine's pool
    # of notifications) replicated on every node by Raft: a broker
    # node's death loses neither the queue nor what it holds, and the
    # consumers of its other replicas carry on (classic mirrored queues
    # are gone from RabbitMQ 4). Durable: the exchanges they bind are
    # declared durable, so every user of an exchange must agree.
    'rabbit_quorum_queue': True,
    # The queues named after a connection (fanout queues of the RPC
    # servers, reply queues of calls) quorum too: a classic one lives on
    # the node its consumer first reached, and dies with it; what was
    # cast to it meanwhile (a fanout cast to every engine) would be lost.
    'rabbit_transient_quorum_queue': True,
    # Not streams for the fanout queues (rabbit_stream_fanout): one
    # stream per topic, kept until it ages out, for casts that the
    # daemons' self-check makes up for anyway.
    #
    # A broker that stops answering without closing its sockets (frozen,
    # or cut off by the network) is given up after this many seconds,
    # not oslo.messaging's 60, and the next host of transport_url tried:
    # below [coordination] member_timeout's multiple a take-over needs.
    'heartbeat_timeout_threshold': 20,
    # When a connection's node fails, kombu tries the next host of
    # transport_url (oslo.messaging shuffled them once, per connection):
    # round-robin goes through every node in turn, where shuffle may try
    # the dead one again.
    'kombu_failover_strategy': 'round-robin',
}


# [oslo_messaging_notifications] retry of every daemon on the
# controllers. Its default, -1 ("for ever"), reaches kombu as
# max_retries=-1 when a new connection for sending is made, and kombu
# then gives up at the first refusal, before it tries the next host: a
# notification sent while that connection's first broker is dead was
# lost (seen in the acceptance run, long after a controller's death).
# A few attempts go round the three brokers (kombu_failover_strategy).
NOTIFICATIONS_RETRY = 5


def rabbit_options():
    """[oslo_messaging_rabbit] of every daemon on the controllers."""
    return dict(RABBIT_OPTIONS)


def up(members):
    """Start every controller's backends, first start or not."""
    for controller in members:
        controller.path().mkdir(parents=True, exist_ok=True)
    for controller in members:
        start_etcd(controller, members)
        start_haproxy(controller, members)
    first_start = not members[0].path('galera', 'data').exists()
    for controller in members:
        # A controller's Galera and RabbitMQ nodes start side by side;
        # each joins its cluster once the one before has.
        for ready in [launch_galera(controller, members, bootstrap=(
                          first_start and controller == members[0])),
                      launch_rabbit(controller, first=members[0])]:
            ready()
    for controller in members:
        _wait('etcd member of %s' % controller.name,
              lambda c=controller: etcd_healthy(c))
        _wait('HAProxy of %s' % controller.name,
              lambda c=controller: _haproxy_listening(c))


def start(controller, members):
    """Start a controller that stopped or was killed: it rejoins."""
    running = _groups(controller)
    if 'etcd' not in running:
        start_etcd(controller, members)
    if 'haproxy' not in running:
        start_haproxy(controller, members)
    ready = []
    if 'galera' not in running:
        ready.append(launch_galera(controller, members))
    if 'rabbit' not in running:
        ready.append(launch_rabbit(controller))
    for each in ready:
        each()
    _wait('etcd member of %s' % controller.name,
          lambda: etcd_healthy(controller))
    _wait('HAProxy of %s' % controller.name,
          lambda: _haproxy_listening(controller))


def down(members):
    for controller in members:
        signal_all(controller, signal.SIGCONT)
        signal_all(controller, signal.SIGTERM)
    for controller in members:
        _wait_gone(controller)
    partitions.remove(members)


def status(controller):
    galera = galera_status(controller)
    rabbit = rabbitmqctl(controller, 'status', timeout=15) if (
        'rabbit' in _groups(controller)) else None
    return {
        'processes': sorted(_groups(controller)),
        'galera': '%s, %s of %s' % (
            galera.get('wsrep_local_state_comment'),
            galera.get('wsrep_cluster_status'),
            galera.get('wsrep_cluster_size')) if galera else 'down',
        'rabbit': 'up' if rabbit is not None and rabbit.returncode == 0
                  else 'down',
        'etcd': 'healthy' if etcd_healthy(controller) else 'down',
        'haproxy': haproxy_servers(controller) if (
            'haproxy' in _groups(controller)) else 'down',
    }


def _kill(controller, backends):
    """SIGKILL ``backends`` of ``controller``, or all of it."""
    if not backends:
        signal_all(controller, signal.SIGKILL)
    for backend in backends or ():
        kill_backend(controller, backend)


def _show(command, controller, members):
    """Print what ``urls`` or ``queues`` tells of ``controller``."""
    if command == 'urls':
        lines = ['%s %s' % item for item in urls(controller,
                                                  members).items()]
        lines += ['oslo_messaging_rabbit.%s %s' % item
                  for item in rabbit_options().items()]
    else:
        lines = ['%s %s %s' % (name, kind, node) for name, (kind, node)
                 in sorted(queues(controller).items())]
    print('\n'.join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--dir', required=True, type=pathlib.Path)
    parser.add_argument('--base-port', type=int, default=DEFAULT_BASE_PORT)
    parser.add_argument('command', choices=(
        'up', 'start', 'stop', 'kill', 'freeze', 'thaw', 'isolate',
        'rejoin', 'cut', 'heal', 'status', 'urls', 'queues', 'down',
        'wipe'))
    parser.add_argument('controller', nargs='?', choices=CONTROLLERS)
    parser.add_argument('--backend', action='append',
                        choices=sorted(BACKEND_PORTS),
                        help='cut: these backends only (default: all); '
                             'kill: these backends alone (default: the '
                             'whole controller)')
    args = parser.parse_args(argv)
    outlive_this_process()
    members = controllers(args.dir.resolve(), args.base_port)
    named = [c for c in members if args.controller in (None, c.name)]
    one = {'start', 'stop', 'kill', 'freeze', 'thaw', 'isolate', 'rejoin',
           'cut', 'heal', 'urls', 'queues'}
    if args.command in one and args.controller is None:
        parser.error('%s needs a controller: %s' % (
            args.command, ', '.join(CONTROLLERS)))
    try:
        if args.command == 'up':
            up(members)
        elif args.command == 'start':
            start(named[0], members)
        elif args.command == 'stop':
            signal_all(named[0], signal.SIGTERM)
            _wait_gone(named[0])
        elif args.command == 'kill':
            _kill(named[0], args.backend)
        elif args.command == 'freeze':
            signal_all(named[0], signal.SIGSTOP)
        elif args.command == 'thaw':
            signal_all(named[0], signal.SIGCONT)
        elif args.command == 'isolate':
            isolate(named[0])
        elif args.command == 'rejoin':
            rejoin(named[0])
        elif args.command == 'cut':
            cut(named[0], members, args.backend or tuple(BACKEND_PORTS))
        elif args.command == 'heal':
            heal(named[0])
        elif args.command in ('urls', 'queues'):
            _show(args.command, named[0], members)
        elif args.command == 'down':
            down(members)
        elif args.command == 'wipe':
            down(members)
            shutil.rmtree(args.dir, ignore_errors=True)
        for controller in named if args.command == 'status' else ():
            print(controller.name, status(controller))
    except (ControllerError, partitions.Unavailable) as err:
        print('controllers: %s' % err, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
