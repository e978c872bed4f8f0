"""Send the three failure reports of masakari-monitors with the monitors'
own code, as its host, process and instance monitors build and send them.

    python masakari_monitor.py CONFIG_FILE FAILED_HOST INSTANCE_UUID

Run in a process of its own: masakari-monitors is an eventlet program,
which watcher_ha and its tests are not. Its configuration points [api] at
the API under test. The host monitor reports FAILED_HOST offline (its
IPMI check off, as without a BMC); the process monitor reports
nova-compute stopped, and the instance monitor a server stopped by
failure, both from this machine (whose host name the monitors send).
"""

import sys

import masakarimonitors.conf
from masakarimonitors.ha import masakari
from masakarimonitors.hostmonitor.host_handler import handle_host
from masakarimonitors.instancemonitor.libvirt_handler import callback
from masakarimonitors.processmonitor.process_handler import handle_process
from oslo_utils import timeutils

CONF = masakarimonitors.conf.CONF


def main(config_file, failed_host, instance_uuid):
    CONF(['--config-file', config_file], project='masakarimonitors')
    sender = masakari.SendNotification()
    retries, interval = 0, 0
    # Built without their monitoring loops (which need pacemaker,
    # libvirt and a process list): only the reports they would send.
    host_monitor = handle_host.HandleHost.__new__(handle_host.HandleHost)
    sender.send_notification(retries, interval,
                             host_monitor._make_event(failed_host,
                                                      'offline'))
    process_monitor = handle_process.HandleProcess.__new__(
        handle_process.HandleProcess)
    sender.send_notification(retries, interval,
                             process_monitor._make_event(
                                 '/usr/bin/nova-compute'))
    instance_monitor = callback.Callback()
    instance_monitor.notifier = sender
    instance_monitor.libvirt_event_callback(
        'LIFECYCLE', 'STOPPED_FAILED', instance_uuid, 'VM', CONF.hostname,
        timeutils.utcnow())


if __name__ == '__main__':
    main(*sys.argv[1:])
