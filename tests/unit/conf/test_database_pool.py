"""The daemons' database pool keeps as many connections as an applier
uses at once, so that they are reused: an applier running a recovery's
evacuations side by side passes a fence and writes for each, and with
oslo.db's pool of 5 every other connection was opened and closed again
for one transaction (a TCP connect, a login and, with PyMySQL, a TLS
context built from the system's certificates: most of the applier's
time in a recovery of a hundred servers)."""

from oslo_config import cfg

from watcher_ha.conf import database
from watcher_ha.conf import planner


def test_the_pool_holds_the_widest_step_of_a_plan():
    conf = cfg.ConfigOpts()
    database.register_opts(conf)
    conf([])
    widest = max(planner.WEIGHT_PARALLELIZATION.values())
    assert conf.database.max_pool_size >= widest
