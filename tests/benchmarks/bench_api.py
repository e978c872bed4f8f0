#!/usr/bin/env python3
"""API throughput and latency with many audits stored.

    .venv/bin/python tests/benchmarks/bench_api.py

For each database (SQLite, MariaDB) and worker count (1, 2), it starts a
real watcher-ha-api, stores --audits audits, then for --duration seconds
each runs GET /v1/audits?limit=50 and POST /v1/audits from --clients
keep-alive connections, and prints requests/s with p50/p99 latency.
Target on a 2-core machine: >= 300 GET/s with 2 workers, p99 under 100 ms.

The load comes from wrk when it is installed (apt install wrk): a Python
client needs about as much CPU per request as the server, so on two cores
it measures itself as much as the API. Without wrk a Python client in a
separate process is used, and the table says so.
"""

import argparse
import http.client
import json
import multiprocessing
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import sqlalchemy as sa

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import servers  # noqa: E402
from tests.functional import fixtures  # noqa: E402
from watcher_ha.db import models  # noqa: E402


def seed_audits(url, count):
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        goal_id = conn.execute(sa.select(models.Goal.id).where(
            models.Goal.name == 'dummy')).scalar_one()
        strategy_id = conn.execute(sa.select(models.Strategy.id).where(
            models.Strategy.name == 'dummy')).scalar_one()
        now = models.utcnow()
        rows = [dict(uuid='%08x-0000-4000-8000-%012x' % (i, i),
                     name='bench-%06d' % i, audit_type='ONESHOT',
                     state='SUCCEEDED', parameters={'para1': 3.2,
                                                    'para2': 'hello'},
                     goal_id=goal_id, strategy_id=strategy_id, scope=[],
                     auto_trigger=False, force=False, version=1,
                     created_at=now) for i in range(count)]
        for start in range(0, count, 1000):
            conn.execute(sa.insert(models.Audit), rows[start:start + 1000])
    engine.dispose()


def _client(port, method, duration, results, offset):
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    latencies, errors, serial = [], 0, 0
    deadline = time.monotonic() + duration
    while time.monotonic() < deadline:
        if method == 'GET':
            args = ('GET', '/v1/audits?limit=50', None, {})
        else:
            serial += 1
            body = json.dumps({'goal': 'dummy', 'strategy': 'dummy',
                               'audit_type': 'EVENT',
                               'name': 'post-%d-%d' % (offset, serial)})
            args = ('POST', '/v1/audits', body,
                    {'Content-Type': 'application/json'})
        started = time.perf_counter()
        try:
            conn.request(*args)
            resp = conn.getresponse()
            resp.read()
            ok = resp.status in (200, 201)
        except (OSError, http.client.HTTPException):
            ok = False
            conn.close()
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
        latencies.append(time.perf_counter() - started)
        errors += not ok
    results.put((latencies, errors))


def load(port, method, duration, clients, run_id):
    """Run ``clients`` connections in one separate process."""
    results = multiprocessing.Queue()

    def run_all():
        threads = [threading.Thread(target=_client, args=(
            port, method, duration, results, run_id * 1000 + i))
            for i in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    proc = multiprocessing.Process(target=run_all)
    proc.start()
    latencies, errors = [], 0
    for _ in range(clients):
        lat, err = results.get()
        latencies += lat
        errors += err
    proc.join()
    latencies.sort()
    return {
        'rps': len(latencies) / duration,
        'p50': statistics.median(latencies) * 1000,
        'p99': latencies[int(len(latencies) * 0.99) - 1] * 1000,
        'errors': errors,
    }


WRK_POST = """
counter = 0
function setup(thread)
   thread:set("id", tostring(math.random(1, 1000000000)))
end
function init(args)
   prefix = "post-" .. id .. "-"
end
function request()
   counter = counter + 1
   local body = '{"goal": "dummy", "strategy": "dummy", ' ..
                '"audit_type": "EVENT", "name": "' .. prefix .. counter ..
                '"}'
   return wrk.format("POST", "/v1/audits",
                     {["Content-Type"] = "application/json"}, body)
end
"""

_UNITS = {'us': 0.001, 'ms': 1.0, 's': 1000.0}


def _wrk_ms(text):
    value, unit = re.match(r'([\d.]+)(us|ms|s)', text).groups()
    return float(value) * _UNITS[unit]


def wrk_load(port, method, duration, clients, workdir):
    command = ['wrk', '-t2', '-c%d' % clients, '-d%ds' % duration,
               '--latency']
    if method == 'POST':
        script = workdir / 'post.lua'
        script.write_text(WRK_POST)
        command += ['-s', str(script)]
    out = subprocess.run(
        command + ['http://127.0.0.1:%d/v1/audits%s' % (
            port, '?limit=50' if method == 'GET' else '')],
        capture_output=True, text=True, check=True).stdout
    errors = re.search(r'Non-2xx or 3xx responses: (\d+)', out)
    return {
        'rps': float(re.search(r'Requests/sec:\s+([\d.]+)', out).group(1)),
        'p50': _wrk_ms(re.search(r'\s50%\s+(\S+)', out).group(1)),
        'p99': _wrk_ms(re.search(r'\s99%\s+(\S+)', out).group(1)),
        'errors': int(errors.group(1)) if errors else 0,
    }


def bench(kind, workers, args, run_id):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix='bench-api-'))
    if kind == 'sqlite':
        url, drop = 'sqlite:///%s/bench.sqlite' % tmp, (lambda: None)
    else:
        url, drop = servers.create_database(kind)
    port = fixtures.free_port()
    config = fixtures.write_config(tmp / 'watcher-ha.conf',
                                   fixtures.base_config(
                                       tmp, database_url=url, port=port,
                                       api={'workers': workers},
                                       DEFAULT={**fixtures.NOAUTH,
                                                'log_file': tmp / 'api.log',
                                                'default_log_levels':
                                                'watcher_ha=WARNING'}))
    try:
        fixtures.prepare_database(config)
        with fixtures.api_process(config, port):
            seed_audits(url, args.audits)
            if args.generator == 'wrk':
                wrk_load(port, 'GET', 1, args.clients, tmp)     # warm-up
                get = wrk_load(port, 'GET', args.duration, args.clients, tmp)
                post = wrk_load(port, 'POST', args.duration, args.clients,
                                tmp)
            else:
                load(port, 'GET', 1, args.clients, run_id)      # warm-up
                get = load(port, 'GET', args.duration, args.clients, run_id)
                post = load(port, 'POST', args.duration, args.clients,
                            run_id)
        return get, post
    finally:
        drop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--audits', type=int, default=10000)
    parser.add_argument('--duration', type=int, default=10)
    parser.add_argument('--clients', type=int, default=8)
    parser.add_argument('--databases', default='sqlite,mysql')
    parser.add_argument('--workers', default='1,2')
    parser.add_argument('--generator', choices=('auto', 'wrk', 'python'),
                        default='auto')
    args = parser.parse_args()
    if args.generator == 'auto':
        args.generator = 'wrk' if shutil.which('wrk') else 'python'
    print('%d audits stored; %d keep-alive clients (%s); %.0f s per figure'
          % (args.audits, args.clients, args.generator, args.duration))
    header = ('%-8s %7s  %-26s  %s' % ('database', 'workers',
                                       'GET /v1/audits?limit=50',
                                       'POST /v1/audits'))
    print(header)
    print('%-8s %7s  %-26s  %s' % ('', '', 'req/s   p50 ms   p99 ms',
                                   'req/s   p50 ms   p99 ms'))
    run_id = 0
    for kind in args.databases.split(','):
        for workers in [int(w) for w in args.workers.split(',')]:
            run_id += 1
            get, post = bench(kind, workers, args, run_id)
            print('%-8s %7d  %6.0f %8.1f %8.1f  %6.0f %8.1f %8.1f%s' % (
                kind, workers, get['rps'], get['p50'], get['p99'],
                post['rps'], post['p50'], post['p99'],
                '  (errors: GET %d, POST %d)' % (get['errors'],
                                                  post['errors'])
                if get['errors'] or post['errors'] else ''), flush=True)


if __name__ == '__main__':
    main()
