"""Hardware readings for the reference clusters, so that the thermal,
airflow and noisy-neighbour strategies have work to do in
bench_strategies.py: derived from each cluster's hosts and servers, with
seeded noise, and added to the cluster description that both sides read.

Standard library only: Watcher's side (watcher17_hardware.py, run with
Watcher's python) loads this file too, for ``cache_mean``.

Per host, from its CPU load L (host_cpu_usage / 100):

- host_inlet_temp: 20 to 30 C, whatever the load (the room's air);
- host_outlet_temp: inlet + 14 L, +- 1.5 C; at Watcher's default
  threshold (35 C) about one host in six is hot;
- host_power: 120 + 300 L W, +- 15 W (threshold 350 W);
- host_airflow: 200 + 250 L (0.1 CFM), +- 20, and 200 more on one host
  in twenty (a fan stuck high: the hardware issue uniform_airflow
  empties a host for, when its inlet temperature and power are low).

Per server, instance_l3_cache_usage (MB) over the last CHANGED_AGO
seconds and over the CHANGED_AGO seconds before: the same, +- 10 %, for
most; fallen to 30-60 % for one in twenty-five (hurt); grown 1.5 to 3
times for another one in twenty-five (noisy). The second value is kept
apart, in ``metrics['instances_before']``, and ``cache_mean`` gives the
mean over any window, as a time series datasource would.
"""

import random

L3_CACHE = 'instance_l3_cache_usage'
# Seconds since the cache use changed: noisy_neighbor's default period.
CHANGED_AGO = 100.0
HOST_METRICS = ('host_inlet_temp', 'host_outlet_temp', 'host_power',
                'host_airflow')
# The defaults of Watcher 17 (and ours) these readings are made against.
THRESHOLDS = {'outlet_temperature': ('host_outlet_temp', 35.0),
              'uniform_airflow': ('host_airflow', 400.0)}
CACHE_THRESHOLD = 0.35


def add(cluster, seed=42):
    """Add the readings to ``cluster`` (a reference cluster description)
    in place; the same cluster and seed give the same readings."""
    rng = random.Random('hardware-%d-%d-%d' % (
        seed, cluster['n_nodes'], cluster['n_instances']))
    hosts = cluster['metrics']['hosts']
    for host in cluster['hosts']:
        values = hosts[host['name']]
        load = values['host_cpu_usage'] / 100.0
        inlet = rng.uniform(20.0, 30.0)
        fan_stuck = rng.random() < 0.05
        values.update({
            'host_inlet_temp': round(inlet, 1),
            'host_outlet_temp': round(inlet + 14.0 * load
                                      + rng.gauss(0.0, 1.5), 1),
            'host_power': round(120.0 + 300.0 * load
                                + rng.gauss(0.0, 15.0), 1),
            'host_airflow': round(200.0 + 250.0 * load
                                  + rng.gauss(0.0, 20.0)
                                  + (200.0 if fan_stuck else 0.0), 1),
        })
    servers = cluster['metrics']['instances']
    before = cluster['metrics'].setdefault('instances_before', {})
    for server in cluster['instances']:
        now = rng.uniform(1.0, 20.0)
        kind = rng.random()
        if kind < 0.04:
            earlier = now / rng.uniform(0.3, 0.6)
        elif kind < 0.08:
            earlier = now / rng.uniform(1.5, 3.0)
        else:
            earlier = now * rng.uniform(0.9, 1.1)
        servers[server['uuid']][L3_CACHE] = round(now, 3)
        before[server['uuid']] = {L3_CACHE: round(earlier, 3)}
    return cluster


def cache_mean(now, earlier, period):
    """The mean L3 cache use over the last ``period`` seconds: ``now``
    for the last CHANGED_AGO seconds, ``earlier`` before them."""
    if period <= CHANGED_AGO:
        return now
    return (now * CHANGED_AGO + earlier * (period - CHANGED_AGO)) / period


def hot_hosts(cluster, strategy):
    """{hostname: reading} of the hosts at or above the default threshold
    of ``strategy`` (outlet_temperature or uniform_airflow), and the
    threshold."""
    metric, threshold = THRESHOLDS[strategy]
    return {name: values[metric]
            for name, values in cluster['metrics']['hosts'].items()
            if values[metric] >= threshold}, threshold


def noisy_pairs(cluster):
    """{hostname: set of its noisy servers} of the hosts where a server's
    cache use fell by more than 35 % (Watcher's default cache_threshold)
    next to one whose use grew by more than that: the hosts
    noisy_neighbor should relieve."""
    servers = cluster['metrics']['instances']
    before = cluster['metrics']['instances_before']
    hurt, noisy = set(), {}
    for server in cluster['instances']:
        change = (servers[server['uuid']][L3_CACHE]
                  / before[server['uuid']][L3_CACHE] - 1.0)
        if change < -CACHE_THRESHOLD:
            hurt.add(server['host'])
        elif change > CACHE_THRESHOLD:
            noisy.setdefault(server['host'], set()).add(server['uuid'])
    return {host: uuids for host, uuids in noisy.items() if host in hurt}
