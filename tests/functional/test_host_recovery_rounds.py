"""Four hosts of one segment fail at once, twice over: no reserved host
ever takes servers of two failed hosts (tests/functional/
instance_ha_rounds.py runs as many rounds as asked)."""

from tests.functional import instance_ha_rounds


def test_simultaneous_failures_never_share_a_reserved_host(tmp_path):
    times = []
    instance_ha_rounds.run(tmp_path, 2,
                           lambda number, took: times.append(took))
    assert len(times) == 2
