#!/usr/bin/env python3
"""Rounds of simultaneous host failures in one failover segment, claimed
by engines racing for its reserved hosts.

    .venv/bin/python -m tests.functional.instance_ha_rounds --rounds 100

A segment of eight hosts: four hold the servers, four are reserved (kept
disabled in Nova), each reserved host with room for one failed host's
servers and not two. Every round, the four loaded hosts lose power at
the same moment and their monitor reports each one; the API's casts
spread the four recoveries over two decision engines, whose plans run on
two appliers (separate processes on RabbitMQ, MariaDB and Redis, the
simulator sending Nova's notifications). A round passes when every
report is finished, the servers of each failed host are together on one
reserved host, no reserved host took servers of two failed hosts, every
server is ACTIVE, and none ever ran twice. Then the failed hosts are
repaired, as an operator would (powered on, their compute service no
longer forced down and disabled again, off maintenance, reserved): the
next round fails the hosts that took the servers.

The functional test runs two rounds (test_host_recovery_rounds.py); this
command runs as many as asked and prints each round's time.
"""

import argparse
import datetime
import pathlib
import sys
import tempfile
import time

import requests

from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.cloud import nova_sections
from tests.helpers.failed_host import ha
from tests.helpers.failed_host import wait_ended

LOADED = ['c%d' % n for n in range(4)]
RESERVED = ['r%d' % n for n in range(4)]
SERVERS_PER_HOST = 3
EPOCH = datetime.datetime(2026, 11, 25)


def spec():
    # Three m1.small (1 vCPU) per loaded host; a host has 4 vCPUs and no
    # overcommit: one failed host's servers fill three of them.
    hosts = [{'name': name, 'vcpus': 4, 'vcpu_ratio': 1.0,
              'memory_mb': 65536, 'disk_gb': 2000}
             for name in LOADED + RESERVED]
    return {'evacuate_seconds': 2, 'boot_seconds': 1, 'hosts': hosts,
            'servers': [{'name': '%s-vm-%d' % (host, n),
                         'flavor': 'm1.small', 'host': host,
                         'state': 'active',
                         'metadata': {'HA_Enabled': 'True'}}
                        for host in LOADED
                        for n in range(SERVERS_PER_HOST)]}


def _state(sim_url):
    return requests.get(sim_url + '/simulator/state', timeout=10).json()


class Rounds:
    """The segment, and the rounds run on it."""

    def __init__(self, cluster, sim_url):
        self.cluster = cluster
        self.sim_url = sim_url
        self.compute = nova(sim_url)
        self.loaded, self.reserved = list(LOADED), list(RESERVED)
        self.segment = ha(cluster, 'POST', '/segments', {'segment': {
            'name': 'rack', 'recovery_method': 'reserved_host',
            'service_type': 'COMPUTE'}})['segment']['uuid']
        for name in LOADED + RESERVED:
            ha(cluster, 'POST', '/segments/%s/hosts' % self.segment,
               {'host': {'name': name, 'type': 'COMPUTE',
                         'control_attributes': '',
                         'reserved': name in RESERVED}})
        for host in RESERVED:
            self._service(host, disabled=True)

    def _service(self, host, disabled=None, forced_down=None):
        [service] = [s for s in self.compute.services.list(
            binary='nova-compute') if s.host == host]
        if forced_down is not None and service.forced_down != forced_down:
            self.compute.services.force_down(service.id, forced_down)
        if disabled:
            self.compute.services.disable_log_reason(service.id,
                                                     'reserved host')

    def run(self, number):
        """One round; its time in seconds, from the failures to the last
        recovery finished. AssertionError if it does not pass."""
        before = _state(self.sim_url)['servers']
        started = time.monotonic()
        for host in self.loaded:
            requests.post('%s/simulator/hosts/%s/fail'
                          % (self.sim_url, host),
                          timeout=10).raise_for_status()
        reports = [ha(self.cluster, 'POST', '/notifications', {
            'notification': {
                'type': 'COMPUTE_HOST', 'hostname': host,
                # Ten minutes apart: not duplicates of the round before.
                'generated_time': (EPOCH + datetime.timedelta(
                    minutes=10 * number)).isoformat(),
                'payload': {'event': 'STOPPED', 'host_status': 'NORMAL',
                            'cluster_status': 'OFFLINE'}}})[
            'notification']['notification_uuid'] for host in self.loaded]
        ended = [wait_ended(self.cluster, uuid) for uuid in reports]
        took = time.monotonic() - started
        assert [e['status'] for e in ended] == ['finished'] * 4, ended
        after = _state(self.sim_url)
        took_from = {}
        for failed in self.loaded:
            mine = [u for u, s in before.items() if s['host'] == failed]
            assert len(mine) == SERVERS_PER_HOST, (failed, mine)
            landed = {after['servers'][u]['host'] for u in mine}
            assert len(landed) == 1, (failed, landed)
            [dest] = landed
            assert dest in self.reserved, (failed, dest)
            assert dest not in took_from, (
                'reserved host %s took servers of %s and %s'
                % (dest, took_from[dest], failed))
            took_from[dest] = failed
            assert {after['servers'][u]['vm_state'] for u in mine} == {
                'active'}, failed
        assert after['split_brain'] == [], after['split_brain']
        self._repair()
        return took

    def _repair(self):
        """The failed hosts come back as the reserved hosts; the hosts
        that took their servers are the next round's loaded ones."""
        for host in self.loaded:
            requests.post('%s/simulator/hosts/%s/recover'
                          % (self.sim_url, host),
                          timeout=10).raise_for_status()
            self._service(host, disabled=True, forced_down=False)
            ha(self.cluster, 'PUT', '/segments/%s/hosts/%s' % (
                self.segment, self._uuid(host)), {'host': {
                    'on_maintenance': False, 'reserved': True}})
        self.loaded, self.reserved = self.reserved, self.loaded

    def _uuid(self, name):
        [found] = [h['uuid'] for h in ha(
            self.cluster, 'GET', '/segments/%s/hosts' % self.segment)[
            'hosts'] if h['name'] == name]
        return found


def cluster_for(tmp_path, db_url, rabbit, sim_url):
    sections = nova_sections(sim_url)
    # The servers move back and forth every round, on purpose: the guard
    # against a server that brings host after host down
    # ([instance_ha] max_evacuations) would stop them at the fourth.
    sections['instance_ha'] = {'max_evacuations': 0}
    return services.cluster(
        tmp_path, db_url, rabbit,
        coordination={'backend_url': services.redis_coordination_url()},
        **sections)


def run(tmp_path, rounds, report=lambda number, took: None):
    """Run ``rounds`` rounds on a cloud and daemons of their own."""
    with services.rabbit_vhost() as rabbit, \
            services.database('mysql') as (db_url, _), \
            services.simulator(tmp_path / 'sim', spec(),
                               transport_url=rabbit) as sim_url, \
            cluster_for(tmp_path, db_url, rabbit, sim_url) as cluster:
        cluster.start_daemons(engines=['engine-1', 'engine-2'],
                              appliers=['applier-1', 'applier-2'])
        segment = Rounds(cluster, sim_url)
        for number in range(1, rounds + 1):
            report(number, segment.run(number))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rounds', type=int, default=100)
    args = parser.parse_args()
    times = []

    def report(number, took):
        times.append(took)
        print('round %3d: 4 recoveries finished in %.1f s' % (number, took),
              flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        run(pathlib.Path(tmp), args.rounds, report)
    print('%d rounds passed; slowest %.1f s' % (len(times), max(times)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
