#!/usr/bin/env python3
"""OpenStack Watcher 17's strategies on one cluster, for
bench_strategies.py: runs inside a virtualenv with python-watcher==17.0.0
and imports nothing from watcher_ha.

    .bench/watcher17-venv/bin/python \\
        tests/benchmarks/watcher17_strategies.py \\
        CLUSTER.json STRATEGY [--timeout 300]

The model, the static datasource and the strategy's default parameters
are set up by ../shared/tools/watcher17-bench/bench_watcher_strategies.py
(loaded from there, so that Watcher is driven exactly as its published
figures were measured). The strategy runs in a child process with a
time cap; prints one JSON object: ``status`` (ok, timeout, error),
``seconds`` (execute() alone) and ``actions`` (action_type and
input_parameters of each action of the solution), so that the caller
can apply them and measure the outcome the same way as its own.
"""

import argparse
import importlib.util
import json
import multiprocessing
import pathlib
import random
import sys
import time

SHARED_BENCH = (pathlib.Path(__file__).resolve().parents[3] / 'shared'
                / 'tools' / 'watcher17-bench' / 'bench_watcher_strategies.py')


def shared_bench():
    spec = importlib.util.spec_from_file_location('watcher17_bench',
                                                  SHARED_BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(cluster_path, strategy, queue):
    try:
        bench = shared_bench()
        bench._setup_watcher()
        with open(cluster_path) as f:
            cluster = json.load(f)
        model = bench.build_model(cluster)
        runner, _ = bench.make_strategy(strategy, cluster, model)
        # workload_stabilization samples at random: seeded as the
        # published figures were.
        random.seed(0)
        started = time.perf_counter()
        solution = runner.execute(audit=None)
        seconds = time.perf_counter() - started
        queue.put({'status': 'ok', 'seconds': seconds,
                   'actions': [{'action_type': a['action_type'],
                                'input_parameters': a['input_parameters']}
                               for a in solution.actions]})
    except Exception as err:  # noqa: BLE001 - reported to the caller
        queue.put({'status': 'error', 'error': repr(err)})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('cluster')
    parser.add_argument('strategy')
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
