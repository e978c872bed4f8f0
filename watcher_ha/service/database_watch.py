"""A daemon whose database refuses it stops acting, and says so (issue
30).

A Galera node cut off from the others, or left alone when they stopped,
goes non-Primary: it refuses every read and write (db/readiness.py),
while the other nodes carry on without it. A daemon writing through it
can neither see what the others do nor record what it does; staying in
its coordination group, it would keep its audits and plans from the
others, stuck, as long as the partition lasts.

So every ``[coordination] membership_refresh`` the daemon reads its
database (``DatabaseWatch.look``). Refused, it steps out of its group
(coordination.Group.step_out): its ownership engines take, adopt, hand
over and re-examine nothing from then on, its other periodic tasks are
skipped (service/daemon.py), and the others take its rows over once they
have seen it absent for ``member_timeout``, as if it had died. Its jobs
already running find every write refused, and an applier's fence
refuses every call to the cloud (applier/fencing.py). Served again, it
steps in: its next look stops the jobs on rows the others took meanwhile,
then joins the group again.

A database it cannot reach at all changes nothing here: that may be the
whole cluster restarting, or a slow network, for every daemon at once,
and the work stays where it is (the health check says it).

``watcher_ha_database_ready`` (1 or 0) shows the last answer; the health
check's database backend says "database not ready" meanwhile.
"""

import prometheus_client
from oslo_log import log

from watcher_ha.common import context as watcher_context
from watcher_ha.db import engine as db_engine
from watcher_ha.db import readiness

LOG = log.getLogger(__name__)

READY = prometheus_client.Gauge(
    'watcher_ha_database_ready',
    '1 while the database serves this daemon; 0 while it refuses to (a '
    'Galera node outside the Primary component): the daemon is out of '
    'its coordination group and acts on nothing meanwhile.')


class DatabaseWatch:
    """Whether the database serves ``group``'s member, and the group
    stepped out of while it does not."""

    def __init__(self, group):
        self.group = group
        # It served the daemon's start (the catalog sync, the rows held).
        self.ready = True
        READY.set(1)

    def look(self):
        try:
            readiness.check(watcher_context.admin_context())
        except readiness.NotReady as err:
            if self.ready:
                LOG.error('%s: %s. Stepping out of group %s: this daemon '
                          'takes, adopts and hands over nothing until its '
                          'database serves it again, and the others take '
                          'its work over.', self.group.member, err,
                          self.group.group.decode())
                self.ready = False
                READY.set(0)
            # Again while refused, if an earlier leave failed.
            self.group.step_out()
            return
        except db_engine.DB_ERRORS as err:
            LOG.debug('Database unreachable: %s', err)
            return
        if not self.ready:
            LOG.warning('The database serves %s again: joining group %s '
                        'again', self.group.member,
                        self.group.group.decode())
            self.ready = True
            READY.set(1)
            self.group.step_in()
