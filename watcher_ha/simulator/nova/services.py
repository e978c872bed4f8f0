"""The simulated Nova's compute services as nova-api changes them
(enable, disable, force down), with the call it makes to the host's
nova-compute and the wait when nothing answers. A part of the cloud
(cloud.Cloud), under its lock."""

from watcher_ha.simulator.nova import model


class Services:
    """Mixed into cloud.Cloud: its hosts' compute services."""

    def update_service(self, host_name, status=None, disabled_reason=None,
                       forced_down=None):
        """Change the host's compute service as nova-api does: the
        record first (with its service.update notification); then, if the
        request set a status (changed or not: Nova syncs the
        COMPUTE_STATUS_DISABLED trait of the host's provider whenever the
        field is written), a call to the host's nova-compute
        (set_host_enabled), made only while Nova counts the service up.
        Forced down (by this very request too), it is down: no call. A
        nova-compute that does not run, or cannot reach the bus, never
        answers: nova-api logs the timeout after rpc_response_timeout and
        then answers the request as if all went well. Returns the host
        and how long the request waits for that answer (0: no call, or
        one answered at once)."""
        with self.lock:
            host = self.host(host_name)
            if forced_down is False:
                self._check_for_evacuations(host)
            if status is not None:
                host.status = status
                host.disabled_reason = (disabled_reason
                                        if status == 'disabled' else None)
            if forced_down is not None:
                host.forced_down = forced_down
            host.updated_at = self.clock.now()
            self.events.emit('service.update', 'nova-compute:%s' % host.name,
                             host=host)
            if (status is None or host.state != 'up'
                    or host.reporting):
                return host, 0.0
            self.rpc_timeouts.append({'host': host.name,
                                      'method': 'set_host_enabled',
                                      'at': self.clock.now().isoformat()})
            return host, self.rpc_response_timeout

    def _check_for_evacuations(self, host):
        """Nova will not force a service back up while evacuations from
        its host are ``done``: its nova-compute has not restarted to
        destroy the guests left there and release their allocations."""
        if any(m.kind == 'evacuation' and m.source == host.name
               and m.status == 'done' for m in self.migrations.values()):
            raise model.Refused(400, 'Unable to force up host %s as `done` '
                                     'evacuation migration records remain '
                                     'associated with the host. Ensure the '
                                     'compute service has been restarted, '
                                     'allowing these records to move to '
                                     '`completed` before retrying this '
                                     'request.' % host.name)
