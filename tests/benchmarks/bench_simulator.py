#!/usr/bin/env python3
"""The simulator at scale, and a full sync of the data model from it.

    .venv/bin/python tests/benchmarks/bench_simulator.py [--hosts 1000]
        [--servers 50000]

Generates a --hosts / --servers scenario, starts watcher-ha-simulator on
it as a real process, then:
* lists every server with details in pages of 1,000 through novaclient
  (targets: start-up under 20 s, full list under 10 s, simulator RSS
  under 1.5 GB);
* runs the compute collector's full sync (Nova and Placement, auth_type
  none) into a fresh model (target under 15 s).
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.functional import fixtures  # noqa: E402
from watcher_ha.conf import CONF  # noqa: E402
from watcher_ha.decision_engine.model.collector import manager  # noqa: E402
from watcher_ha.simulator import scenario  # noqa: E402


def rss_mb(pid):
    with open('/proc/%d/status' % pid) as status:
        for line in status:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--servers', type=int, default=50000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'scenario.yaml')
        started = time.perf_counter()
        scenario.dump(scenario.generate(args.hosts, args.servers, 42), path)
        generate_seconds = time.perf_counter() - started
        port = fixtures.free_port()
        url = 'http://127.0.0.1:%d' % port
        started = time.perf_counter()
        proc = subprocess.Popen(
            [os.path.join(fixtures.BIN, 'watcher-ha-simulator'),
             '--scenario', path, '--port', str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while True:
                try:
                    if requests.get(url + '/compute/v2.1/',
                                    timeout=1).status_code == 200:
                        break
                except requests.RequestException:
                    pass
                if proc.poll() is not None:
                    raise SystemExit('the simulator exited')
                time.sleep(0.05)
            start_seconds = time.perf_counter() - started

            from keystoneauth1 import loading
            from keystoneauth1 import session
            from novaclient import client
            auth = loading.get_plugin_loader('password').load_from_options(
                auth_url=url + '/identity/v3', username='admin',
                password='admin', project_name='admin',
                user_domain_name='Default', project_domain_name='Default')
            nova = client.Client('2.96',
                                 session=session.Session(auth=auth))
            started = time.perf_counter()
            listed, marker = 0, None
            while True:
                page = nova.servers.list(search_opts={'all_tenants': True},
                                         marker=marker, limit=1000)
                listed += len(page)
                if len(page) < 1000:
                    break
                marker = page[-1].id
            list_seconds = time.perf_counter() - started
            assert listed == args.servers, listed
            rss = rss_mb(proc.pid)

            for group, prefix in (('nova', '/compute/v2.1'),
                                  ('placement', '/placement')):
                CONF.set_override('auth_type', 'none', group=group)
                CONF.set_override('endpoint_override', url + prefix,
                                  group=group)
            collectors = manager.CollectorManager(['compute'])
            started = time.perf_counter()
            collectors.resync('compute')
            sync_seconds = time.perf_counter() - started
            model = collectors.model('compute').snapshot()
            assert len(model.instances) == args.servers
            assert len(model.nodes) == args.hosts
        finally:
            proc.terminate()
            proc.wait(30)
    print('simulator, %d hosts / %d servers' % (args.hosts, args.servers))
    print('%-40s %10s %10s' % ('measure', 'value', 'target'))
    for row in (
            ('generate the scenario, s', '%.1f' % generate_seconds, ''),
            ('start-up until it answers, s', '%.1f' % start_seconds,
             '< 20'),
            ('list all servers (detail, pages of 1,000), s',
             '%.1f' % list_seconds, '< 10'),
            ('simulator RSS, MB', '%.0f' % rss, '< 1536'),
            ('data model full sync (Nova + Placement), s',
             '%.1f' % sync_seconds, '< 15')):
        print('%-40s %10s %10s' % row)


if __name__ == '__main__':
    main()
