"""``/healthcheck`` of the API, the decision engine and the applier, on
real processes: each answers 200 while the database (MariaDB, through a
proxy of the test's), the message bus (a RabbitMQ virtual host of the
test's) and the coordination backend (a Redis of the test's) answer, and
503 naming the one it cannot reach once the test stops it. The machine's
shared servers are never stopped."""

import pytest
import requests

from tests.functional import fixtures
from tests.functional import services
from tests.functional import sql_proxy
from tests.functional.fixtures import wait_for

pytestmark = pytest.mark.functional

DATABASE = 'database reachable'
BUS = 'message bus reachable'
COORDINATION = 'coordination backend reachable'


def answer(url):
    """(status, reasons) of a health check."""
    reply = requests.get(url, timeout=30,
                         headers={'Accept': 'application/json'})
    return reply.status_code, reply.json()['reasons']


def test_each_daemon_names_the_service_it_cannot_reach(tmp_path,
                                                       private_redis):
    rabbit, delete_vhost = services.create_rabbit_vhost()
    assert rabbit.rstrip('/').count('/') == 3, (
        'a virtual host of the test\'s own is needed (rabbitmqctl)')
    vhost_deleted = False
    engine_port, applier_port = fixtures.free_port(), fixtures.free_port()
    try:
        with services.database('mysql') as (db_url, _), \
                sql_proxy.SqlProxy(db_url) as proxy, \
                services.cluster(
                    tmp_path, proxy.url, rabbit,
                    coordination={'backend_url': private_redis.url},
                    metrics={'enabled': True, 'host': '127.0.0.1',
                             'api_port': fixtures.free_port(),
                             'decision_engine_port': engine_port,
                             'applier_port': applier_port}) as cluster:
            cluster.start_daemons(engines=['engine-1'],
                                  appliers=['applier-1'])
            urls = {
                'api': cluster.url + '/healthcheck',
                'engine': 'http://127.0.0.1:%d/healthcheck' % engine_port,
                'applier': 'http://127.0.0.1:%d/healthcheck'
                           % applier_port}

            def all_answer(status, reasons, what):
                wait_for(lambda: all(answer(url) == (status, reasons)
                                     for url in urls.values()),
                         60, what, every=0.5)

            all_answer(200, [DATABASE, BUS, COORDINATION], 'all healthy')

            private_redis.stop()
            all_answer(503, [DATABASE, BUS,
                             'coordination backend unreachable'],
                       'coordination backend named')
            private_redis.start()
            all_answer(200, [DATABASE, BUS, COORDINATION], 'healthy again')

            delete_vhost()
            vhost_deleted = True
            all_answer(503, [DATABASE, 'message bus unreachable',
                             COORDINATION], 'message bus named')

            proxy.stop()
            all_answer(503, ['database unreachable',
                             'message bus unreachable', COORDINATION],
                       'database named')
    finally:
        if not vhost_deleted:
            delete_vhost()
