"""Writers on different nodes of one Galera cluster: a process per node,
each the product's database layer (enginefacade, db/engine.py's set-up)
on that node's port only, released together to race through the nodes.

A race through two nodes is not one through one: each node locks rows
for its own transactions only, and a conflicting commit of another node
is found at COMMIT, by certification, where the loser gets a deadlock
(1213) for a transaction it believed held every lock it took.

The functions a writer runs are named by module and name (the writers
are spawned processes): ``Writers.race([(func, args), ...])`` runs the
n-th call in the n-th writer, all released at once, and returns what
each returned, or ``Failed`` for what it raised.
"""

import dataclasses
import importlib
import multiprocessing

# How long a writer may take to answer a call.
CALL_TIMEOUT = 60.0


@dataclasses.dataclass(frozen=True)
class Failed:
    """What a call raised, as its writer saw it: the exception's class
    name and its message."""
    error: str
    message: str


def _caught_up(db_engine):
    """Wait until this writer's node has applied every commit the
    cluster made so far (a causal read): what the test wrote before the
    race, through another node, is there to be read, and the race is
    between the writers only."""
    from watcher_ha.common import context
    with db_engine.reader.connection.using(
            context.admin_context()) as conn:
        conn.exec_driver_sql('SET SESSION wsrep_sync_wait = 1')
        conn.exec_driver_sql('SELECT 1')
        conn.exec_driver_sql('SET SESSION wsrep_sync_wait = 0')


def _serve(url, conn, barrier):
    # Imported here: the writer is a process of its own, spawned.
    from oslo_config import cfg

    from watcher_ha import conf as _registered  # noqa: F401
    from watcher_ha.db import engine as db_engine

    cfg.CONF([], project='watcher-ha', default_config_files=[])
    cfg.CONF.set_override('connection', url, group='database')
    # The daemons' own way to their database.
    db_engine.configure(cfg.CONF)
    while True:
        call = conn.recv()
        if call is None:
            break
        module, name, args = call
        func = getattr(importlib.import_module(module), name)
        _caught_up(db_engine)
        barrier.wait(CALL_TIMEOUT)
        try:
            outcome = func(*args)
        except Exception as err:  # noqa: BLE001 - reported to the test
            outcome = Failed(type(err).__name__, str(err)[:500])
        conn.send(outcome)
    db_engine.dispose()


class Writers:
    """One writer process per URL in ``urls`` (each a database URL on
    another Galera node), started; ``close()`` ends them."""

    def __init__(self, urls):
        spawn = multiprocessing.get_context('spawn')
        self._barrier = spawn.Barrier(len(urls))
        self._writers = []
        for url in urls:
            mine, theirs = spawn.Pipe()
            process = spawn.Process(target=_serve,
                                    args=(url, theirs, self._barrier),
                                    daemon=True)
            process.start()
            self._writers.append((process, mine))

    def race(self, calls):
        """Run ``calls`` ([(func, args)], one per writer, in order) at
        once; what each returned or raised (Failed), in order."""
        assert len(calls) == len(self._writers)
        for (_process, conn), (func, args) in zip(self._writers, calls):
            conn.send((func.__module__, func.__name__, tuple(args)))
        outcomes = []
        for process, conn in self._writers:
            if not conn.poll(CALL_TIMEOUT):
                raise TimeoutError('writer %d did not answer within %s s'
                                   % (process.pid, CALL_TIMEOUT))
            outcomes.append(conn.recv())
        return outcomes

    def close(self):
        for process, conn in self._writers:
            conn.send(None)
        for process, _conn in self._writers:
            process.join(10)
            if process.is_alive():
                process.kill()

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()
