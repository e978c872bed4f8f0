#!/usr/bin/env python3
"""watcher17_strategies.py, plus Watcher 17's outlet_temperature,
uniform_airflow and noisy_neighbor: runs inside the virtualenv with
python-watcher==17.0.0 and imports nothing from watcher_ha.

    .bench/watcher17-venv/bin/python \\
        tests/benchmarks/watcher17_hardware.py \\
        CLUSTER.json STRATEGY [--timeout 300]

The shared script's static datasource (../shared/tools/watcher17-bench/,
left as it is) is extended with the readings hardware_metrics.py adds to
the cluster description: host_outlet_temp, host_inlet_temp,
host_airflow, host_power per host and instance_l3_cache_usage per server,
whose mean depends on the period asked (hardware_metrics.cache_mean).

noisy_neighbor in Watcher 17 asks the datasource
``get_instance_l3_cache_usage(instance, meter_name, period, aggregate,
granularity=...)``, one argument more than its own datasources take
(``resource, period, aggregate, granularity``): with Gnocchi that raises
TypeError, which the strategy logs and takes for "no data", so it never
finds a noisy neighbour. This datasource accepts both calls, so that the
strategy's algorithm is measured rather than that slip.

A strategy that raises is reported with the seconds it ran before.
"""

import importlib.util
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
STRATEGIES = {'outlet_temperature': ('OutletTempControl', {}),
              'uniform_airflow': ('UniformAirflow', {}),
              'noisy_neighbor': ('NoisyNeighbor', {})}


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hardware_metrics = _load('hardware_metrics', HERE / 'hardware_metrics.py')
driver = _load('watcher17_strategies', HERE / 'watcher17_strategies.py')


def extended(bench):
    """The shared script's module, with the hardware readings in its
    datasource and the three strategies in its table."""
    base = bench.FakeDatasource

    class HardwareDatasource(base):
        def __init__(self, cluster):
            super().__init__(cluster)
            self.before = cluster['metrics'].get('instances_before', {})

        def _cache(self, resource, period):
            self.calls += 1
            uuid = resource.uuid
            return hardware_metrics.cache_mean(
                self.inst[uuid][hardware_metrics.L3_CACHE],
                self.before[uuid][hardware_metrics.L3_CACHE], period)

        def get_host_outlet_temp(self, resource, period=None,
                                 aggregate=None, granularity=None):
            return self._h(resource, 'host_outlet_temp')

        def get_host_inlet_temp(self, resource, period=None,
                                aggregate=None, granularity=None):
            return self._h(resource, 'host_inlet_temp')

        def get_host_airflow(self, resource, period=None, aggregate=None,
                             granularity=None):
            return self._h(resource, 'host_airflow')

        def get_host_power(self, resource, period=None, aggregate=None,
                           granularity=None):
            return self._h(resource, 'host_power')

        def get_instance_l3_cache_usage(self, resource, *args,
                                        granularity=None):
            # (period, aggregate), as declared by Watcher's datasources,
            # or (meter_name, period, aggregate), as noisy_neighbor calls.
            period = args[-2]
            return self._cache(resource, period)

        def statistic_aggregation(self, resource=None, resource_type=None,
                                  meter_name=None, period=300,
                                  aggregate='mean', granularity=300):
            if meter_name == hardware_metrics.L3_CACHE:
                return self._cache(resource, period)
            return super().statistic_aggregation(
                resource, resource_type, meter_name, period, aggregate,
                granularity)

    bench.FakeDatasource = HardwareDatasource
    bench.STRATEGIES.update(STRATEGIES)
    make_strategy = bench.make_strategy

    def timed_make_strategy(name, cluster, model):
        runner, params = make_strategy(name, cluster, model)
        execute = runner.execute

        def execute_timed(audit=None):
            started = time.perf_counter()
            try:
                return execute(audit=audit)
            except Exception as err:
                raise RuntimeError('%r after %.3f s' % (
                    err, time.perf_counter() - started)) from err
        runner.execute = execute_timed
        return runner, params
    bench.make_strategy = timed_make_strategy
    return bench


def main():
    shared_bench = driver.shared_bench
    driver.shared_bench = lambda: extended(shared_bench())
    driver.main()


if __name__ == '__main__':
    sys.exit(main())
