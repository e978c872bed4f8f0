#!/usr/bin/env python3
"""OpenStack Watcher 17's strategies on one cluster, for
bench_strategies.py: runs inside a virtualenv with python-watcher==17.0.0
and imports nothing from watcher_ha.

    .bench/watcher17-venv/bin/python \\
        tests/benchmarks/watcher17_strategies.py \\
        CLUSTER.json STRATEGY [--timeout 300]

CLUSTER.json is a cluster description as bench_strategies.py writes it
(a reference cluster or one of cluster_generator.py's, with the readings
of hardware_metrics.py). From it this builds Watcher's own compute model
(its ModelRoot, nodes and instances mapped as its collector maps them)
and a datasource that answers Watcher's datasource calls with the
description's static values; the strategy gets its JSON-schema default
parameters (host_maintenance: the first host), as the decision engine
gives them.

The strategy runs in a child process with a time cap; prints one JSON
object: ``status`` (ok, timeout, error), ``seconds`` (execute() alone,
also for an error: how long it ran before), ``cpu_seconds`` (the CPU
time of execute(), when it ended) and ``actions`` (action_type
and input_parameters of each action of the solution), so that the caller
applies them and measures the outcome as it does its own.

noisy_neighbor in Watcher 17 asks the datasource
``get_instance_l3_cache_usage(instance, meter_name, period, aggregate,
granularity=...)``, one argument more than its own datasources take
(``resource, period, aggregate, granularity``): with Gnocchi that raises
TypeError, which the strategy logs and takes for "no data", so it never
finds a noisy neighbour. The datasource here accepts both calls, so that
the strategy's algorithm is measured rather than that slip.
"""

import argparse
import gc
import importlib.util
import json
import logging
import multiprocessing
import pathlib
import random
import sys
import time
import types
import warnings

HERE = pathlib.Path(__file__).resolve().parent
# Our name -> the class in watcher.decision_engine.strategy.strategies.
STRATEGIES = {
    'vm_workload_consolidation': 'VMWorkloadConsolidation',
    'basic': 'BasicConsolidation',
    'workload_balance': 'WorkloadBalance',
    'host_maintenance': 'HostMaintenance',
    'workload_stabilization': 'WorkloadStabilization',
    'node_resource_consolidation': 'NodeResourceConsolidation',
    'outlet_temperature': 'OutletTempControl',
    'uniform_airflow': 'UniformAirflow',
    'noisy_neighbor': 'NoisyNeighbor',
}


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hardware_metrics = _load('hardware_metrics', HERE / 'hardware_metrics.py')


def configure_watcher():
    """Watcher's options registered and parsed from nothing, its objects
    registered, its per-server logging silenced."""
    warnings.filterwarnings('ignore')
    from oslo_config import cfg
    from watcher import conf  # noqa: F401 - registers the options
    from watcher import objects
    try:
        cfg.CONF([], project='watcher', default_config_files=[])
    except cfg.Error:
        pass  # already parsed
    objects.register_all()
    logging.disable(logging.CRITICAL)


def compute_model(cluster):
    """Watcher's ModelRoot of the description's hosts and servers."""
    from watcher.decision_engine.model import element
    from watcher.decision_engine.model import model_root
    model = model_root.ModelRoot()
    nodes = {}
    for number, host in enumerate(cluster['hosts']):
        node = element.ComputeNode(
            id=number, uuid=host['uuid'], hostname=host['name'],
            vcpus=host['vcpus'], vcpu_reserved=host['vcpu_reserved'],
            vcpu_ratio=host['vcpu_ratio'], memory=host['memory_mb'],
            memory_mb_reserved=host['memory_mb_reserved'],
            memory_ratio=host['memory_ratio'], disk=host['disk_gb'],
            disk_gb_reserved=host['disk_gb_reserved'],
            disk_ratio=host['disk_ratio'], state=host['state'],
            status=host['status'],
            disabled_reason=host['disabled_reason'])
        model.add_node(node)
        nodes[host['name']] = node
    for server in cluster['instances']:
        instance = element.Instance(
            uuid=server['uuid'], name=server['name'], state=server['state'],
            vcpus=server['vcpus'], memory=server['memory_mb'],
            disk=server['disk_gb'], project_id=server['project_id'],
            host=server['host'], hypervisor_hostname=server['host'],
            metadata={}, locked=False, pinned_az='',
            flavor_extra_specs={}, watcher_exclude=False)
        model.add_instance(instance)
        model.map_instance(instance, nodes[server['host']])
    return model


class StaticDatasource:
    """Watcher's datasource calls answered from the description: every
    reading is the same whatever the period, except the L3 cache use,
    whose mean over a period longer than the last change mixes the value
    before it (hardware_metrics.cache_mean)."""

    NAME = 'static'

    def __init__(self, cluster):
        self.servers = cluster['metrics']['instances']
        self.hosts = cluster['metrics']['hosts']
        self.before = cluster['metrics'].get('instances_before', {})

    def _server(self, resource, metric):
        return self.servers[resource.uuid][metric]

    def _host(self, resource, metric):
        return self.hosts[resource.hostname][metric]

    def _cache(self, resource, period):
        return hardware_metrics.cache_mean(
            self._server(resource, hardware_metrics.L3_CACHE),
            self.before[resource.uuid][hardware_metrics.L3_CACHE], period)

    def statistic_aggregation(self, resource=None, resource_type=None,
                              meter_name=None, period=300,
                              aggregate='mean', granularity=300):
        if meter_name == hardware_metrics.L3_CACHE:
            return self._cache(resource, period)
        if meter_name.startswith('instance_'):
            return self._server(resource, meter_name)
        return self._host(resource, meter_name)

    def get_instance_l3_cache_usage(self, resource, *args,
                                    granularity=None):
        # (period, aggregate), as Watcher's datasources declare it, or
        # (meter_name, period, aggregate), as noisy_neighbor calls it.
        return self._cache(resource, args[-2])

    def check_availability(self):
        return 'available'


def _reader(kind, metric):
    def read(self, resource, period=None, aggregate=None,
             granularity=None):
        if kind == 'instance':
            return self._server(resource, metric)
        return self._host(resource, metric)
    return read


for _metric in ('instance_cpu_usage', 'instance_ram_usage',
                'instance_ram_allocated', 'instance_root_disk_size'):
    setattr(StaticDatasource, 'get_' + _metric, _reader('instance', _metric))
for _metric in ('host_cpu_usage', 'host_ram_usage', 'host_outlet_temp',
                'host_inlet_temp', 'host_airflow', 'host_power'):
    setattr(StaticDatasource, 'get_' + _metric, _reader('host', _metric))


def strategy(name, cluster, model):
    """The Watcher strategy ``name``, with its default parameters, on
    ``model`` and the static datasource."""
    from watcher.common import utils
    from watcher.decision_engine.strategy import strategies
    cls = getattr(strategies, STRATEGIES[name])
    runner = cls(config=types.SimpleNamespace(
        datasources=None, check_optimize_metadata=False), osc=object())
    parameters = ({'maintenance_node': cluster['hosts'][0]['name']}
                  if name == 'host_maintenance' else {})
    schema = cls.get_schema()
    if schema:
        # Fills in the defaults, as the decision engine's validation does.
        utils.StrictDefaultValidatingDraft4Validator(schema).validate(
            parameters)
    runner.input_parameters.update(parameters)
    runner.audit_scope = []
    runner._compute_model = model
    runner._datasource_backend = StaticDatasource(cluster)
    return runner


def _run(cluster_path, name, queue):
    started = None
    try:
        configure_watcher()
        with open(cluster_path) as f:
            cluster = json.load(f)
        runner = strategy(name, cluster, compute_model(cluster))
        # workload_stabilization samples at random: seeded, so that a run
        # can be repeated.
        random.seed(0)
        # Loading the cluster leaves garbage, and a full collection over
        # the model when the strategy begins to allocate: not the
        # strategy's time, on either side (bench_strategies.run_ours).
        gc.collect()
        started = time.perf_counter()
        cpu_started = time.process_time()
        solution = runner.execute(audit=None)
        seconds = time.perf_counter() - started
        queue.put({'status': 'ok', 'seconds': seconds,
                   'cpu_seconds': time.process_time() - cpu_started,
                   'actions': [{'action_type': a['action_type'],
                                'input_parameters': a['input_parameters']}
                               for a in solution.actions]})
    except Exception as err:  # noqa: BLE001 - reported to the caller
        result = {'status': 'error', 'error': repr(err)}
        if started is not None:
            result['seconds'] = time.perf_counter() - started
        queue.put(result)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('cluster')
    parser.add_argument('strategy', choices=sorted(STRATEGIES))
    parser.add_argument('--timeout', type=float, default=300.0)
    args = parser.parse_args()
    context = multiprocessing.get_context('fork')
    queue = context.Queue()
    child = context.Process(target=_run,
                            args=(args.cluster, args.strategy, queue))
    child.start()
    # Read before joining: a large result would block the child's exit.
    try:
        result = queue.get(timeout=args.timeout)
    except Exception:  # noqa: BLE001 - queue.Empty: the time cap
        child.terminate()
        result = {'status': 'timeout', 'seconds': args.timeout}
    child.join()
    json.dump(result, sys.stdout)


if __name__ == '__main__':
    main()
