"""Scenarios: the cloud a simulator starts with, from YAML.

    credentials: {username: admin, password: admin, project: admin,
                  domain: Default}
    users:                            # more Keystone users (keystone/)
      - {name: watcher, password: x, project: service,
         roles: [admin, service]}
    catalog:                          # more catalog services
      - {type: infra-optim, url: 'http://127.0.0.1:9322'}
    token_expiration: 3600            # a token's life, seconds (Keystone)
    bandwidth_mb_per_s: 1000          # live migration speed
    max_concurrent_live_migrations: 1 # per source host, 0: no limit (Nova)
    evacuate_seconds: 5               # an evacuation's rebuild
    power_seconds: 5                  # a power action at a BMC (Ironic)
    shelve_seconds: 0                 # a shelve's snapshot upload
    reboot_seconds: 0                 # a server's reboot
    nova_service_token: true          # Nova's deletes pass Cinder's guard
    activation_secret: null           # the guests' activation key
                                      # (POST /simulator/activations)
    boot_seconds: 120                 # power on until nova-compute reports
    service_down_time: 0              # a silent service's grace (Nova: 60)
    rpc_response_timeout: 60          # nova-api's wait for a silent compute
    heat_poll_seconds: 1              # Heat's poll of resources under way
    networks:                         # Neutron's (nova/networks.py);
      - {id: 4f3e..., name: private,  # one, private, when none given;
         cidr: 10.0.0.0/16}           # servers created through the API
                                      # get ports, the scenario's none
    flavors:
      - {id: '1', name: m1.small, vcpus: 1, ram: 2048, disk: 20,
         ephemeral: 0, swap: 0, extra_specs: {}}
    hosts:
      - {name: compute-0001, vcpus: 32, memory_mb: 131072, disk_gb: 1000,
         availability_zone: nova, aggregates: [rack-1], reserved: false,
         vcpu_ratio: 16.0, memory_ratio: 1.5, disk_ratio: 1.0,
         vcpu_reserved: 0, memory_mb_reserved: 512, disk_gb_reserved: 0,
         status: enabled, disabled_reason: null,  # its nova-compute
         forced_down: false,
         inventory: {CUSTOM_GPU: 4}}  # more classes on its provider
    servers:                          # a flavor's 'resources:CUSTOM_GPU':
                                      # '1' extra spec allocates one
      - {name: vm-1, flavor: m1.small, host: compute-0001, state: active,
         uuid: null, project_id: admin, locked: false,
         metadata: {HA_Enabled: 'True'}, boot_from_volume: false,
         pinned_availability_zone: null,      # the zone it was booted in
         age: 0,                      # seconds since it was created
         load: {profile: diurnal, cpu: 0.4, seed: 7}}
    timeline:
      - {at: 60, fail_host: compute-0001}       # power loss
      - {at: 60, crash_host: compute-0002}      # power on, nothing runs
      - {at: 60, partition_host: compute-0003}  # guests run, Nova deaf
      - {at: 120, recover_host: compute-0001}
      - {at: 30, faults: {drop_notifications: 0.5}}
    storage:                          # Cinder (see cinder/storage.py)
      default_volume_type: lvm-fast
      volume_migration_seconds_per_gb: 0.05
      volume_create_seconds: 1
      backends:
        - {host: stor1, backend: lvm-fast, zone: nova,  # stor1@lvm-fast
           pools: [{name: pool1, total_capacity_gb: 1000,
                    reserved_percentage: 0, thin: false,
                    max_over_subscription_ratio: 20.0}]}
      volume_types:
        - {name: lvm-fast, extra_specs: {volume_backend_name: lvm-fast}}
        - {name: any}                   # fits every pool
      volumes:
        - {name: data-1, size: 10, type: lvm-fast,
           pool: stor1@lvm-fast#pool1, project: admin, bootable: false,
           attached_to: vm-1}           # a server's name or uuid

``generate`` writes deterministic scenarios of any size from a seed;
``from_cluster`` reads the reference cluster files (hosts, instances,
metrics) that OpenStack Watcher 17 was benchmarked on; ``from_data_model``
imports what a decision engine's model shows through ``GET
/v1/data_model`` (the what-if's replay, doc/source/what_if.rst).
"""

import datetime
import gzip
import json
import random
import uuid as uuidlib

import yaml

from watcher_ha.simulator.cinder import storage as cinder_storage
from watcher_ha.simulator.nova import aggregates
from watcher_ha.simulator.nova import cloud as cloud_mod
from watcher_ha.simulator.nova import model as nova_model
from watcher_ha.simulator.nova import networks

DEFAULT_CREDENTIALS = {'username': 'admin', 'password': 'admin',
                       'project': 'admin', 'domain': 'Default'}
FLAVORS = [
    {'id': '1', 'name': 'm1.tiny', 'vcpus': 1, 'ram': 512, 'disk': 1},
    {'id': '2', 'name': 'm1.small', 'vcpus': 1, 'ram': 2048, 'disk': 20},
    {'id': '3', 'name': 'm1.medium', 'vcpus': 2, 'ram': 4096, 'disk': 40},
    {'id': '4', 'name': 'm1.large', 'vcpus': 4, 'ram': 8192, 'disk': 80},
]
PROFILES = ('steady', 'diurnal', 'spiky')
SERVER_STATES = ('active', 'stopped')
# A host's amounts kept from its guests (Placement's ``reserved``): the
# simulator's defaults (nova/model.py Host) unless the scenario says.
HOST_RESERVED = ('vcpu_reserved', 'memory_mb_reserved', 'disk_gb_reserved')
# Nova's power state of a server in each vm_state (libvirt's: running 1,
# paused 3, shutdown 4, suspended 7); any other: shut down.
POWER_STATES = {'active': 1, 'paused': 3, 'suspended': 7}
SHUTDOWN = 4


class ScenarioError(ValueError):
    pass


# libyaml's parser when PyYAML was built with it: ten times faster on the
# 50,000-server scenarios.
_LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
_DUMPER = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)


def load(path):
    with open(path) as stream:
        spec = yaml.load(stream, Loader=_LOADER) or {}  # noqa: S506 (safe)
    if not isinstance(spec, dict):
        raise ScenarioError('%s: a scenario is a mapping' % path)
    return spec


def _uuid(rng):
    return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))


# How long the cloud's operations take (the keys of a scenario, and their
# defaults): the speed of a migration, an evacuation's rebuild, a power
# action, a host's boot, a shelve's upload, a reboot; how many live
# migrations one source host runs at once (0: no limit).
TIMINGS = {
    'bandwidth_mb_per_s': 1000.0,
    'evacuate_seconds': cloud_mod.EVACUATE_SECONDS,
    'power_seconds': cloud_mod.POWER_SECONDS,
    'boot_seconds': cloud_mod.BOOT_SECONDS,
    'shelve_seconds': 0.0,
    'reboot_seconds': 0.0,
    'max_concurrent_live_migrations':
        cloud_mod.MAX_CONCURRENT_LIVE_MIGRATIONS,
}


def timings(spec):
    """{key of TIMINGS: its value in ``spec``, or the default}."""
    return {key: type(default)(spec.get(key, default))
            for key, default in TIMINGS.items()}


def build(spec, cloud=None, clock=None):
    """A Cloud holding what ``spec`` describes, on ``clock`` (real time
    when None)."""
    timed = timings(spec)
    cloud = cloud or cloud_mod.Cloud(
        bandwidth_mb_per_s=timed['bandwidth_mb_per_s'],
        evacuate_seconds=timed['evacuate_seconds'],
        power_seconds=timed['power_seconds'],
        boot_seconds=timed['boot_seconds'],
        service_down_time=float(spec.get('service_down_time', 0)),
        max_concurrent_live_migrations=timed[
            'max_concurrent_live_migrations'],
        rpc_response_timeout=float(spec.get(
            'rpc_response_timeout', cloud_mod.RPC_RESPONSE_TIMEOUT)),
        clock=clock)
    cloud.shelve_seconds = timed['shelve_seconds']
    cloud.reboot_seconds = timed['reboot_seconds']
    cloud.nova_service_token = bool(spec.get('nova_service_token', True))
    if spec.get('networks'):
        cloud.networks = networks.Networks(spec['networks'])
    rng = random.Random(spec.get('seed', 0))
    for item in spec.get('flavors') or FLAVORS:
        cloud.add_flavor(nova_model.Flavor(
            id=str(item['id']), name=item['name'], vcpus=int(item['vcpus']),
            ram=int(item['ram']), disk=int(item['disk']),
            ephemeral=int(item.get('ephemeral', 0)),
            swap=int(item.get('swap', 0)),
            extra_specs=dict(item.get('extra_specs') or {})))
    for item in spec.get('hosts') or ():
        try:
            cloud.add_host(nova_model.Host(
                name=item['name'], vcpus=int(item['vcpus']),
                memory_mb=int(item['memory_mb']),
                disk_gb=int(item['disk_gb']), uuid=_uuid(rng),
                service_id=_uuid(rng),
                availability_zone=item.get('availability_zone', 'nova'),
                aggregates=list(item.get('aggregates') or ()),
                reserved=bool(item.get('reserved', False)),
                vcpu_ratio=float(item.get('vcpu_ratio', 16.0)),
                memory_ratio=float(item.get('memory_ratio', 1.5)),
                disk_ratio=float(item.get('disk_ratio', 1.0)),
                inventory={str(cls): int(total) for cls, total in (
                    item.get('inventory') or {}).items()},
                status=item.get('status', 'enabled'),
                disabled_reason=item.get('disabled_reason'),
                forced_down=bool(item.get('forced_down', False)),
                created_at=cloud.clock.now(),
                **{key: int(item[key]) for key in HOST_RESERVED
                   if key in item}))
            aggregates.register(cloud, cloud.hosts[item['name']])
        except KeyError as err:
            raise ScenarioError('host %s lacks %s' % (item, err))
    for index, item in enumerate(spec.get('servers') or ()):
        flavor = cloud.flavor(item['flavor'])
        host = item.get('host')
        if host is not None and host not in cloud.hosts:
            raise ScenarioError('server %s: unknown host %s'
                                % (item.get('name'), host))
        state = item.get('state', 'active')
        created = cloud.clock.now() - datetime.timedelta(
            seconds=float(item.get('age', 0)))
        cloud.add_server(nova_model.Server(
            uuid=item.get('uuid') or _uuid(rng),
            name=item.get('name') or 'vm-%06d' % index, flavor=flavor,
            host=host, vm_state=state,
            power_state=POWER_STATES.get(state, SHUTDOWN),
            tenant_id=item.get('project_id', 'admin'),
            metadata=dict(item.get('metadata') or {}),
            locked=bool(item.get('locked', False)),
            root_volume=(_uuid(rng) if item.get('boot_from_volume')
                         else None),
            pinned_availability_zone=item.get('pinned_availability_zone'),
            availability_zone=(cloud.hosts[host].availability_zone
                               if host else None),
            created_at=created, launched_at=created, updated_at=created,
            load=dict(item.get('load') or {'profile': 'steady',
                                            'cpu': 0.3})))
    try:
        cloud.storage = cinder_storage.build(spec.get('storage'), cloud, rng)
    except (KeyError, ValueError, nova_model.Refused) as err:
        raise ScenarioError('storage: %s' % err)
    return cloud


def generate(hosts, servers, seed, volumes=0):
    """A deterministic scenario: ``hosts`` hosts in two zones and racks of
    16, ``servers`` servers placed where they fit; with ``volumes``, a
    Block Storage of three backends (two of type ``lvm``, one ``ceph``)
    holding that many volumes, a third of them attached to servers."""
    rng = random.Random(seed)
    spec = {'seed': seed, 'credentials': dict(DEFAULT_CREDENTIALS),
            'flavors': FLAVORS, 'hosts': [], 'servers': []}
    free = {}
    for index in range(hosts):
        name = 'compute-%04d' % index
        spec['hosts'].append({
            'name': name, 'vcpus': 64, 'memory_mb': 262144, 'disk_gb': 4000,
            'availability_zone': 'az-%d' % (index % 2),
            'aggregates': ['rack-%d' % (index // 16)],
            'reserved': False})
        free[name] = [64 * 16, int((262144 - 512) * 1.5), 4000]
    names = sorted(free)
    for index in range(servers):
        flavor = rng.choice(FLAVORS)
        for _ in range(len(names)):
            host = names[rng.randrange(len(names))]
            room = free[host]
            if (room[0] >= flavor['vcpus'] and room[1] >= flavor['ram']
                    and room[2] >= flavor['disk']):
                room[0] -= flavor['vcpus']
                room[1] -= flavor['ram']
                room[2] -= flavor['disk']
                break
        else:
            raise ScenarioError('%d servers do not fit on %d hosts'
                                % (servers, hosts))
        spec['servers'].append({
            'name': 'vm-%06d' % index, 'flavor': flavor['name'],
            'host': host, 'state': 'active' if rng.random() < 0.9
            else 'stopped',
            'metadata': {'HA_Enabled': 'True'} if rng.random() < 0.5
            else {},
            'load': {'profile': rng.choice(PROFILES),
                     'cpu': round(rng.uniform(0.05, 0.9), 2),
                     'seed': rng.randrange(10 ** 6)}})
    if volumes:
        spec['storage'] = _generated_storage(rng, volumes, spec['servers'])
    return spec


def _generated_storage(rng, volumes, servers):
    backends = [('stor-0', 'lvm', 'az-0'), ('stor-1', 'lvm', 'az-1'),
                ('stor-2', 'ceph', 'az-0')]
    per_pool = max(1000, volumes * 50)
    storage = {
        'default_volume_type': 'lvm',
        'backends': [{'host': host, 'backend': backend, 'zone': zone,
                      'pools': [{'name': 'pool-0',
                                 'total_capacity_gb': per_pool,
                                 'thin': backend == 'ceph'}]}
                     for host, backend, zone in backends],
        'volume_types': [
            {'name': 'lvm', 'extra_specs': {'volume_backend_name': 'lvm'}},
            {'name': 'ceph', 'extra_specs': {'volume_backend_name': 'ceph'}}],
        'volumes': []}
    for index in range(volumes):
        host, backend, _zone = rng.choice(backends)
        item = {'name': 'volume-%06d' % index, 'size': rng.choice(
            (1, 5, 10, 20, 40)), 'type': backend,
            'pool': '%s@%s#pool-0' % (host, backend),
            'project': 'admin'}
        if servers and rng.random() < 1 / 3:
            item['attached_to'] = rng.choice(servers)['name']
        storage['volumes'].append(item)
    return storage


def from_cluster(path):
    """A scenario from a reference cluster file (hosts, instances and
    their metrics), so that the same cloud can be audited by watcher_ha
    and by OpenStack Watcher 17. A path ending in .gz is read gzipped,
    as the repository keeps its reference clusters."""
    opener = gzip.open if str(path).endswith('.gz') else open
    with opener(path, 'rt') as stream:
        cluster = json.load(stream)
    spec = {'seed': cluster.get('seed', 0),
            'credentials': dict(DEFAULT_CREDENTIALS), 'hosts': [],
            'servers': []}
    flavors = {}
    for host in cluster['hosts']:
        spec['hosts'].append({
            'name': host['name'], 'vcpus': host['vcpus'],
            'memory_mb': host['memory_mb'], 'disk_gb': host['disk_gb'],
            'availability_zone': host.get('availability_zone', 'nova'),
            'vcpu_ratio': host.get('vcpu_ratio', 1.0),
            'memory_ratio': host.get('memory_ratio', 1.0),
            'disk_ratio': host.get('disk_ratio', 1.0)})
    # Percent of the instance's vcpus, per instance uuid.
    cpu = {uuid: metrics.get('instance_cpu_usage') for uuid, metrics in
           ((cluster.get('metrics') or {}).get('instances') or {}).items()}
    for instance in cluster['instances']:
        key = (instance['vcpus'], instance['memory_mb'], instance['disk_gb'])
        if key not in flavors:
            flavors[key] = {'id': str(len(flavors) + 1),
                            'name': instance.get('flavor')
                            or 'flavor-%d' % (len(flavors) + 1),
                            'vcpus': key[0], 'ram': key[1], 'disk': key[2]}
        usage = cpu.get(instance['uuid'])
        spec['servers'].append({
            'uuid': instance['uuid'], 'name': instance['name'],
            'flavor': flavors[key]['name'], 'host': instance['host'],
            'state': instance.get('state', 'active'),
            'project_id': instance.get('project_id', 'admin'),
            'load': {'profile': 'steady',
                     'cpu': round((usage if usage is not None else 30)
                                  / 100.0, 3)}})
    spec['flavors'] = list(flavors.values())
    return spec


# The server states of a decision engine's model that the simulator
# takes as they are. Any other is imported as active: a resize waiting
# for its confirmation ('resized'; the API shows neither its old flavor
# nor its source), or a state a server the model places on a host cannot
# be in for Nova.
IMPORTED_STATES = ('active', 'stopped', 'paused', 'suspended', 'error',
                   'shelved')


def from_data_model(entries):
    """A scenario of the cloud a decision engine's compute model shows:
    ``entries``, the ``context`` of ``GET /v1/data_model`` (Watcher's
    format, numbers as strings; one entry per server with its node's
    fields, one per node without servers). Each host with its capacity,
    reserved amounts, allocation ratios, service status (and reason) and
    state (down: forced down); each server with its uuid, name, project,
    metadata, lock and state, on the same host; one flavor per size
    (vCPUs, RAM, disk) of server, which is all the API tells of a
    flavor. What the API does not show is not carried over: availability
    zones and aggregates (every host is in Nova's default zone, no server
    is pinned to one), flavors' names and extra specs, what Placement
    holds beyond the servers' flavors, metrics (every server's load is
    steady), volumes, networks, server groups, failover segments."""
    hosts, servers, flavors = {}, [], {}
    for entry in entries:
        name = entry['node_hostname']
        if name not in hosts:
            hosts[name] = _imported_host(entry)
        if entry.get('server_uuid') is None:
            continue
        size = tuple(_integer(entry[key]) for key in (
            'server_vcpus', 'server_memory', 'server_disk'))
        if size not in flavors:
            flavors[size] = {'id': str(len(flavors) + 1),
                             'name': 'imported-%d-%d-%d' % size,
                             'vcpus': size[0], 'ram': size[1],
                             'disk': size[2]}
        state = entry.get('server_state') or 'active'
        servers.append({
            'uuid': entry['server_uuid'],
            'name': entry.get('server_name') or entry['server_uuid'],
            'flavor': flavors[size]['name'], 'host': name,
            'state': state if state in IMPORTED_STATES else 'active',
            'project_id': entry.get('server_project_id') or 'admin',
            'metadata': dict(entry.get('server_metadata') or {}),
            'locked': bool(entry.get('server_locked')),
            'load': {'profile': 'steady', 'cpu': 0.3}})
    return {'credentials': dict(DEFAULT_CREDENTIALS),
            'flavors': list(flavors.values()),
            'hosts': [hosts[name] for name in sorted(hosts)],
            'servers': servers}


def _imported_host(entry):
    return {
        'name': entry['node_hostname'],
        'vcpus': _integer(entry['node_vcpus']),
        'memory_mb': _integer(entry['node_memory']),
        'disk_gb': _integer(entry['node_disk']),
        'vcpu_reserved': _integer(entry.get('node_vcpu_reserved')),
        'memory_mb_reserved': _integer(entry.get('node_memory_mb_reserved')),
        'disk_gb_reserved': _integer(entry.get('node_disk_gb_reserved')),
        'vcpu_ratio': float(entry.get('node_vcpu_ratio') or 1.0),
        'memory_ratio': float(entry.get('node_memory_ratio') or 1.0),
        'disk_ratio': float(entry.get('node_disk_ratio') or 1.0),
        'status': entry.get('node_status') or 'enabled',
        'disabled_reason': entry.get('node_disabled_reason'),
        'forced_down': entry.get('node_state') == 'down'}


def _integer(value):
    """A number of the data model's (a string: '8', '16384.0'), or 0."""
    return int(float(value)) if value not in (None, '') else 0


def dump(spec, path):
    with open(path, 'w') as stream:
        yaml.dump(spec, stream, Dumper=_DUMPER, sort_keys=False)
