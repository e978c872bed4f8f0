"""A failed host recovered end to end (real daemons, the simulator): the
cloud, its failover segment made through the instance-ha API, the
monitor's report and the wait for the recovery's end."""

import requests
import sqlalchemy as sa

from tests.functional.fixtures import wait_for
from watcher_ha.db import models
from watcher_ha.simulator import scenario


FAILED, OTHER, SPARE, SPARE_2 = ('compute-0000', 'compute-0001',
                                 'compute-0002', 'compute-0003')


def spec(servers=10):
    made = scenario.generate(hosts=4, servers=servers, seed=5)
    for server in made['servers']:
        # The reserved hosts are empty; the failed host has them all.
        if server['host'] in (SPARE, SPARE_2, OTHER):
            server['host'] = FAILED
        server['metadata'] = {'HA_Enabled': 'True'}
        server['state'] = 'active'     # and ACTIVE again at the end
    return made


def ha(cluster, method, path, body=None, version='1.0'):
    resp = requests.request(method, cluster.url + '/instance-ha/v1' + path,
                            json=body, timeout=30, headers={
                                'OpenStack-API-Version':
                                    'instance-ha %s' % version})
    assert resp.status_code < 300, resp.text
    return resp.json() if resp.content else None


def make_segment(cluster, members, reserved=(), name='rack-1'):
    """A reserved_host failover segment of ``members`` (host names), those
    in ``reserved`` its reserved hosts, made through the instance-ha
    API."""
    segment = ha(cluster, 'POST', '/segments', {'segment': {
        'name': name, 'recovery_method': 'reserved_host',
        'service_type': 'COMPUTE'}})['segment']
    for host in members:
        ha(cluster, 'POST', '/segments/%s/hosts' % segment['uuid'],
           {'host': {'name': host, 'type': 'COMPUTE',
                     'control_attributes': '',
                     'reserved': host in reserved}})
    return segment


def segment_of(cluster):
    return make_segment(cluster, (FAILED, OTHER, SPARE, SPARE_2),
                        reserved=(SPARE, SPARE_2))


def report_failure(cluster, sim_url, failed=FAILED):
    """The host ``failed`` fails in the simulator and a monitor reports
    it: the notification's uuid."""
    fail(sim_url, failed)
    return report(cluster, failed)


def fail(sim_url, host):
    """The simulator's ``host`` fails (powered off, its service silent)."""
    requests.post('%s/simulator/hosts/%s/fail' % (sim_url, host),
                  timeout=10).raise_for_status()


def report(cluster, failed, generated_time='2026-11-24T10:00:00'):
    """A monitor's notification that ``failed`` stopped: its uuid."""
    return ha(cluster, 'POST', '/notifications', {'notification': {
        'type': 'COMPUTE_HOST', 'hostname': failed,
        'generated_time': generated_time,
        'payload': {'event': 'STOPPED', 'host_status': 'NORMAL',
                    'cluster_status': 'OFFLINE'}}})['notification'][
        'notification_uuid']


def wait_ended(cluster, uuid, statuses=('finished', 'failed')):
    def ended():
        found = ha(cluster, 'GET', '/notifications/' + uuid)[
            'notification']
        return found if found['status'] in statuses else None
    return wait_for(ended, 120, 'the recovery')


def recovery_owners(engine, notification):
    """(the engine following the recovery ``notification``, the applier
    running its plan), once an evacuation is under way; else None."""
    with engine.connect() as conn:
        row = conn.execute(sa.select(
            models.HostNotification.hostname,
            models.HostNotification.recovery_audit_uuid).where(
                models.HostNotification.uuid == notification)).first()
        if row is None or row.recovery_audit_uuid is None:
            return None
        plan = conn.execute(sa.select(
            models.ActionPlan.hostname, models.ActionPlan.id)
            .join(models.Audit,
                  models.ActionPlan.audit_id == models.Audit.id)
            .where(models.Audit.uuid == row.recovery_audit_uuid)).first()
        if plan is None or plan.hostname is None:
            return None
        evacuating = conn.execute(sa.select(sa.func.count()).where(
            models.Action.action_plan_id == plan.id,
            models.Action.action_type == 'evacuate',
            models.Action.state == 'ONGOING')).scalar()
        return (row.hostname, plan.hostname) if evacuating else None
