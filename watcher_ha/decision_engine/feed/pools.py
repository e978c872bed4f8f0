"""Removing the notification queue of a decision engine gone for good.

Each engine consumes Nova's notifications from a queue of its own (its
pool). While an engine is away its queue keeps filling, which is what lets
it catch up after a restart; but an engine that never comes back would
leave a queue that grows forever. So every engine looks, now and then,
for engines registered in the services registry that have been out of the
coordination group (and silent in the registry) for longer than
``[watcher_decision_engine] notification_pool_expiry``, and deletes their
queue on RabbitMQ. Deleting a queue that is gone already is harmless, so
any number of engines may do it.
"""

import datetime
import urllib.parse

import kombu
from oslo_config import cfg
from oslo_log import log

from watcher_ha.common import context as watcher_context
from watcher_ha.db import models
from watcher_ha.db import services as services_db
from watcher_ha.decision_engine.feed import listener

CONF = cfg.CONF
LOG = log.getLogger(__name__)

ENGINE = 'watcher-ha-decision-engine'
RABBIT_SCHEMES = ('rabbit', 'amqp')


def broker_urls(conf=CONF):
    """kombu URLs of the notification transport's brokers, or [] when it
    is not RabbitMQ."""
    url = listener.notification_transport_url(conf)
    if url.transport not in RABBIT_SCHEMES:
        return []
    vhost = urllib.parse.quote(url.virtual_host or '', safe='')
    return ['amqp://%s:%s@%s:%s/%s' % (
        urllib.parse.quote(host.username or 'guest', safe=''),
        urllib.parse.quote(host.password or 'guest', safe=''),
        host.hostname, host.port or 5672, vhost) for host in url.hosts]


def gone_engines(members, expiry, context=None):
    """Hosts of registered engines out of the group and silent for
    ``expiry`` seconds."""
    context = context or watcher_context.admin_context()
    cutoff = models.utcnow() - datetime.timedelta(seconds=expiry)
    return sorted(
        row['host'] for row in services_db.all_services(context)
        if row['name'] == ENGINE and row['host'] not in members
        and (row['last_seen_up'] or row['created_at']) < cutoff)


def delete_pools(hosts, conf=CONF):
    """Delete the notification queues of ``hosts``; returns those deleted
    (or already gone)."""
    urls = broker_urls(conf)
    if not urls or not hosts:
        return []
    done = []
    with kombu.Connection(';'.join(urls), connect_timeout=10) as conn:
        channel = conn.channel()
        for host in hosts:
            channel.queue_delete(listener.pool_name(host))
            LOG.warning('Deleted the notification queue %s of decision '
                        'engine %s, gone for good',
                        listener.pool_name(host), host)
            done.append(host)
    return done
