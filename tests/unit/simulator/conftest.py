"""What the simulator's unit tests share."""

import pytest

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import simulator


@pytest.fixture
def sim(request):
    """A simulator of the test module's ``SPEC``, in process, on a fake
    clock (its ``advance`` moves time on); a module may define its own."""
    found = simulator.Simulator(request.module.SPEC,
                                clock=clock_mod.FakeClock())
    yield found
    found.stop()
