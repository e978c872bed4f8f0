"""Action plans of one long sleep, made straight in the test's database
(the Galera cluster's, galera_database), what became of them, and two
appliers of two controllers running them: what the three controllers'
tests watch while they break things."""

import contextlib

from tests import factories
from tests.functional import daemons
from tests.functional import fixtures
from tools import controllers
from watcher_ha.common import context
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import engine as db_engine
from watcher_ha.db import plan_runs


def make(count, seconds):
    """``count`` PENDING plans, each of one sleep of ``seconds``."""
    engine = db_engine.get_engine()
    return [factories.action_plan(
        engine, factories.audit(engine), state=ActionPlanState.PENDING,
        kinds=[('sleep', {'duration': seconds})])[0]['uuid']
        for _ in range(count)]


def rows(uuids):
    return {uuid: plan_runs.get(context.admin_context(), uuid)
            for uuid in uuids}


def owners(uuids):
    return {uuid: plan['hostname'] for uuid, plan in rows(uuids).items()}


def wait_running(uuids, host, seconds=60):
    fixtures.wait_for(lambda: all(
        plan['state'] == ActionPlanState.ONGOING and plan['hostname'] == host
        for plan in rows(uuids).values()), seconds,
        '%s running %s' % (host, uuids))


def wait_succeeded(uuids, seconds):
    fixtures.wait_for(lambda: all(
        plan['state'] == ActionPlanState.SUCCEEDED
        for plan in rows(uuids).values()), seconds, 'every plan SUCCEEDED')


@contextlib.contextmanager
def on_two_appliers(members, database_urls, tmp_path, seconds):
    """Appliers on controllers 1 and 3, each configured as a deployment's
    would be (its own controller's Galera node, all the brokers, its own
    controller's etcd HAProxy; [watcher_applier] recovery = resume, so
    that a plan taken over runs to its end), two plans of a sleep of
    ``seconds`` running on each. Yields (cluster, {name: metrics port,
    'api' included}, {applier: its plans}).

    Controller 3's applier takes two plans, then controller 1's the next
    two (controller 3's is full: max_plans); controller 1's has room for
    controller 3's too (an adoption waits for a free worker)."""
    c1, _c2, c3 = members
    ports = {name: fixtures.free_port()
             for name in ('api', 'applier-1', 'applier-3')}

    def urls(controller):
        return controllers.urls(controller, members)

    with daemons.cluster(
            tmp_path, database_urls['c1'], urls(c1)['transport'],
            DEFAULT={'auth_strategy': 'noauth'},
            coordination={'backend_url': urls(c1)['coordination']},
            # The brokers' queues as every daemon on the controllers
            # declares them: the cluster is shared by the folder's tests,
            # and an exchange keeps the kind its first user gave it.
            oslo_messaging_rabbit=controllers.rabbit_options(),
            metrics={'enabled': True, 'api_port': ports['api']},
            watcher_applier={'recovery': 'resume'}
    ) as cluster:
        plans = {}
        for name, controller, room in (('applier-3', c3, 2),
                                       ('applier-1', c1, 4)):
            cluster.start('applier', name, database={
                'connection': database_urls[controller.name]},
                coordination={
                    'backend_url': urls(controller)['coordination']},
                metrics={'applier_port': ports[name]},
                watcher_applier={'max_plans': room})
            cluster.wait_registered(name, 'watcher-ha-applier')
            plans[name] = make(2, seconds)
            wait_running(plans[name], name)
        yield cluster, ports, plans
