"""clock.ScaledClock: real time, run N times faster (the what-if's replay
at a speedup). Real waits, so bounds are loose on a busy machine."""

import threading
import time

import pytest

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import simulator

SPEED = 10


def test_a_timer_fires_n_times_sooner():
    clock = clock_mod.ScaledClock(SPEED)
    fired = threading.Event()
    began = time.monotonic()
    clock.later(2.0, fired.set)
    assert fired.wait(5)
    took = time.monotonic() - began
    assert 0.18 <= took < 1.5


def test_a_wait_is_n_times_shorter_and_the_time_n_times_faster():
    clock = clock_mod.ScaledClock(SPEED)
    at, now = clock.time(), clock.now()
    began = time.monotonic()
    clock.sleep(2.0)
    took = time.monotonic() - began
    assert 0.19 <= took < 1.5
    # The clock moved on N times the real time that passed.
    assert clock.time() - at == pytest.approx(took * SPEED, abs=0.5)
    assert (clock.now() - now).total_seconds() == pytest.approx(
        took * SPEED, abs=0.5)
    assert clock.elapsed() >= 2.0


def test_at_speed_one_it_is_real_time():
    clock = clock_mod.ScaledClock()
    assert clock.time() == pytest.approx(time.time(), abs=0.05)
    began = time.monotonic()
    clock.sleep(0.2)
    assert time.monotonic() - began >= 0.2


def test_a_clock_runs_forwards():
    for speed in (0, -1):
        with pytest.raises(ValueError):
            clock_mod.ScaledClock(speed)


def test_a_live_migration_takes_its_time_n_times_sooner():
    # 1024 MB at 102.4 MB/s: 10 s of the cloud's time.
    spec = {'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8,
                       'memory_mb': 32768, 'disk_gb': 500}
                      for i in range(2)],
            'flavors': [{'id': '1', 'name': 'small', 'vcpus': 1,
                         'ram': 1024, 'disk': 10}],
            'servers': [{'name': 'vm-a', 'flavor': 'small',
                         'host': 'compute-0'}],
            'bandwidth_mb_per_s': 102.4}
    clock = clock_mod.ScaledClock(SPEED)
    sim = simulator.Simulator(spec, clock=clock)
    try:
        [server] = sim.cloud.servers.values()
        began = clock.elapsed()
        sim.cloud.live_migrate(server.uuid, 'compute-1')
        deadline = time.monotonic() + 10
        while server.host != 'compute-1' and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.host == 'compute-1'
        assert 10 <= clock.elapsed() - began < 20
    finally:
        sim.stop()
