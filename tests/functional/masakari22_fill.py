"""Fill a Masakari 22 database as Masakari itself would, and print what
Masakari's API then shows.

Run with the python of a virtualenv where masakari 22 is installed (never
with ours): ``python masakari22_fill.py CONFIG_DIR``, CONFIG_DIR holding
the masakari.conf (noauth2, its [database] connection) and api-paste.ini
of a deployment. Segments, hosts and notifications are created through
Masakari's own WSGI application (what masakari-api serves, loaded as its
``masakari-wsgi`` entry point does), deleted through it too; what only
Masakari's engine writes (a notification's status as its recovery goes,
the server moves of a host recovery) through Masakari's versioned
objects, as its engine does.

The one stand-in: the Nova lookup masakari-api makes before it accepts a
host (is there a nova-compute of that name?) answers yes for the hosts
made here.

Prints, as JSON, Masakari's own answers at API 1.3 once the fill is
done: {"segments": [...], "hosts": {segment uuid: [...]},
"notifications": [...], "vmoves": {notification uuid: [...]}}.
"""

import datetime
import json
import os
import sys

HEADERS = {'X-Auth-Token': 'admin:admin', 'X-User-Id': 'admin',
           'X-Project-Id': 'admin',
           'OpenStack-API-Version': 'instance-ha 1.3',
           'Content-Type': 'application/json'}
GENERATED = datetime.datetime(2026, 5, 4, 12, 0, 0)


def _app(config_dir):
    os.environ['OS_MASAKARI_CONFIG_DIR'] = config_dir
    # It reads the command line again once it has read the directory's
    # files, and only the command line's files then.
    sys.argv = [sys.argv[0], '--config-file',
                os.path.join(config_dir, 'masakari.conf')]
    from masakari.cmd import api
    return api.initialize_application()


def _accept_hosts(names):
    """Nova, as masakari-api asks it, knows a compute host of each
    name."""
    from masakari.compute import nova
    from masakari import exception

    def find_compute_service(self, context, compute_name):
        if compute_name not in names:
            raise exception.ComputeNotFoundByName(compute_name=compute_name)

    nova.API.find_compute_service = find_compute_service


class Masakari:

    def __init__(self, app):
        import webob
        from masakari import context
        from masakari import objects
        self.webob = webob
        self.app = app
        self.objects = objects
        self.ctx = context.get_admin_context()

    def call(self, method, path, body=None, expect=(200, 201, 202, 204)):
        request = self.webob.Request.blank('/v1' + path, method=method,
                                           headers=HEADERS)
        if body is not None:
            request.body = json.dumps(body).encode()
        response = request.get_response(self.app)
        if response.status_int not in expect:
            raise SystemExit('%s %s answered %s: %s' % (
                method, path, response.status, response.text))
        return response.json if response.body else None

    def segment(self, name, recovery_method, **fields):
        body = dict(name=name, recovery_method=recovery_method,
                    service_type='COMPUTE', **fields)
        return self.call('POST', '/segments', {'segment': body})['segment']

    def host(self, segment, name, **fields):
        body = dict({'type': 'COMPUTE', 'control_attributes': 'SSH'},
                    name=name, **fields)
        return self.call('POST', '/segments/%s/hosts' % segment['uuid'],
                         {'host': body})['host']

    def notification(self, hostname, kind, payload, minutes, status):
        """A monitor's report, then its status as Masakari's engine
        leaves it."""
        generated = GENERATED + datetime.timedelta(minutes=minutes)
        made = self.call('POST', '/notifications', {'notification': {
            'hostname': hostname, 'type': kind, 'payload': payload,
            'generated_time': generated.isoformat()}})['notification']
        if status != 'new':
            notification = self.objects.Notification.get_by_uuid(
                self.ctx, made['notification_uuid'])
            notification.status = status
            notification.save()
        return made['notification_uuid']

    def vmove(self, notification_uuid, instance, source, dest, status,
              message=None):
        vmove = self.objects.VMove(context=self.ctx)
        vmove.instance_uuid = instance
        vmove.instance_name = 'vm-%s' % instance[:8]
        vmove.notification_uuid = notification_uuid
        vmove.source_host = source
        vmove.type = 'evacuation'
        vmove.status = 'pending'
        vmove.create()
        vmove.status = status
        vmove.dest_host = dest
        vmove.start_time = GENERATED + datetime.timedelta(minutes=1)
        vmove.end_time = GENERATED + datetime.timedelta(minutes=2)
        vmove.message = message
        vmove.save()

    def shown(self):
        segments = self.call('GET', '/segments')['segments']
        notifications = self.call('GET', '/notifications')['notifications']
        return {
            'segments': segments,
            'hosts': {s['uuid']: self.call(
                'GET', '/segments/%s/hosts' % s['uuid'])['hosts']
                for s in segments},
            'notifications': notifications,
            'vmoves': {n['notification_uuid']: self.call(
                'GET', '/notifications/%s/vmoves'
                % n['notification_uuid'])['vmoves']
                for n in notifications if n['type'] == 'COMPUTE_HOST'},
        }


def fill(masakari):
    auto = masakari.segment('seg-auto', 'auto',
                            description='made by Masakari 22')
    reserved = masakari.segment('seg-reserved', 'reserved_host',
                                enabled=False)
    priority = masakari.segment('seg-rh-priority', 'rh_priority',
                                description='reserved hosts first')
    gone = masakari.segment('seg-gone', 'auto_priority')

    masakari.host(auto, 'compute-1')
    masakari.host(auto, 'compute-2', on_maintenance=True)
    masakari.host(reserved, 'compute-3', reserved=True,
                  control_attributes='{"ipmi_address": "10.0.0.3"}')
    masakari.host(reserved, 'compute-4')
    masakari.host(priority, 'compute-5', reserved=True, on_maintenance=True,
                  type='BAREMETAL')
    masakari.host(priority, 'compute-8')
    masakari.host(gone, 'compute-6')
    deleted = masakari.host(auto, 'compute-7')
    masakari.call('DELETE', '/segments/%s/hosts/%s' % (
        auto['uuid'], deleted['uuid']))
    # Its hosts are deleted with it.
    masakari.call('DELETE', '/segments/%s' % gone['uuid'])

    down = {'event': 'STOPPED', 'host_status': 'NORMAL',
            'cluster_status': 'OFFLINE'}
    recovered = masakari.notification('compute-1', 'COMPUTE_HOST', down, 0,
                                      'finished')
    masakari.vmove(recovered, '1b0c3a48-8d7e-4e7a-9a0e-0d3a6c2f1e01',
                   'compute-1', 'compute-3', 'succeeded')
    masakari.vmove(recovered, '1b0c3a48-8d7e-4e7a-9a0e-0d3a6c2f1e02',
                   'compute-1', 'compute-3', 'succeeded')
    masakari.vmove(recovered, '1b0c3a48-8d7e-4e7a-9a0e-0d3a6c2f1e03',
                   'compute-1', None, 'failed',
                   message='No valid host was found.')
    masakari.notification('compute-4', 'PROCESS', _process('STOPPED'), 5,
                          'failed')
    masakari.notification('compute-1', 'VM', _server_down('04'), 10,
                          'finished')
    masakari.notification('compute-8', 'PROCESS', _process('STARTED'), 15,
                          'ignored')
    # Not finished: Masakari's engine was still at them.
    masakari.notification('compute-4', 'COMPUTE_HOST', down, 20, 'running')
    masakari.notification('compute-8', 'VM', _server_down('05'), 25, 'new')
    masakari.notification('compute-1', 'PROCESS', _process('STOPPED'), 30,
                          'error')


def _process(event):
    """A process monitor's report on nova-compute."""
    return {'event': event, 'process_name': 'nova-compute'}


def _server_down(last_digits):
    """An instance monitor's report of a server that failed."""
    return {'event': 'LIFECYCLE', 'vir_domain_event': 'STOPPED_FAILED',
            'instance_uuid': '1b0c3a48-8d7e-4e7a-9a0e-0d3a6c2f1e'
                             + last_digits}


def main():
    app = _app(sys.argv[1])
    _accept_hosts({'compute-%d' % n for n in range(1, 9)})
    masakari = Masakari(app)
    fill(masakari)
    json.dump(masakari.shown(), sys.stdout, indent=1, sort_keys=True)


if __name__ == '__main__':
    main()
