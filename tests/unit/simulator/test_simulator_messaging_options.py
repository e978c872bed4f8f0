"""The simulator's notifications go out with the messaging options of
the configuration files it is given, as the services it stands in for
read theirs (services sharing a RabbitMQ cluster must agree on
rabbit_quorum_queue)."""

from watcher_ha.simulator import notifications
from watcher_ha.simulator.cinder import notifications as cinder_notifications


def test_the_transport_takes_the_files_messaging_options(tmp_path):
    path = tmp_path / 'nova.conf'
    path.write_text('[oslo_messaging_notifications]\nretry = 3\n')
    transport = notifications.nova_transport('fake://', [path])
    try:
        assert transport.conf.oslo_messaging_notifications.retry == 3
        assert transport.conf.control_exchange == notifications.NOVA_EXCHANGE
    finally:
        transport.cleanup()


def test_without_files_the_defaults_apply():
    transport = cinder_notifications.cinder_transport('fake://')
    try:
        assert transport.conf.oslo_messaging_notifications.retry == -1
        assert transport.conf.control_exchange == (
            cinder_notifications.CINDER_EXCHANGE)
    finally:
        transport.cleanup()
