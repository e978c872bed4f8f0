"""Faults to inject into the simulated cloud, by the admin API or by a
scenario's timeline: failed live migrations and volume migrations,
failing or slow API calls, dropped or delayed notifications, unreachable
BMCs, cinder-volume backends down, guests' activation endpoints
restarting. Host failures are nova/hosts.py."""

import random
import re
import threading


class Faults:

    def __init__(self, seed=0):
        self._lock = threading.Lock()
        self._random = random.Random(seed)
        # Server uuids whose next live migration fails ('*': any).
        self.failing_migrations = set()
        # [{'method', 'path' (regex), 'status' (None: answer normally),
        #   'delay' (seconds first), 'count' (None: forever)}]
        self.api_failures = []
        self.api_delay = 0.0
        self.drop_notifications = 0.0      # probability
        self.notification_delay_seconds = 0.0
        # Hosts whose BMC does not answer: their power actions fail
        # ('*': every host).
        self.unreachable_bmcs = set()
        # Volume ids whose next migration (or retype's migration) fails
        # ('*': any).
        self.failing_volume_migrations = set()
        # cinder-volume services (host@backend) down ('*': all).
        self.storage_backends_down = set()
        # Deliveries the guests' activation endpoint answers 503 first.
        self.activation_failures = 0

    def configure(self, spec):
        """Apply a JSON/YAML fault description (see doc/source/
        simulator.rst); unknown keys are an error."""
        known = {'fail_migrations', 'api_failures', 'api_delay',
                 'drop_notifications', 'notification_delay',
                 'bmc_unreachable', 'fail_volume_migrations',
                 'storage_backends_down', 'activation_failures'}
        unknown = set(spec) - known
        if unknown:
            raise ValueError('unknown fault(s) %s; known: %s'
                             % (', '.join(sorted(unknown)),
                                ', '.join(sorted(known))))
        with self._lock:
            if 'fail_migrations' in spec:
                self.failing_migrations = set(spec['fail_migrations'])
            if 'api_failures' in spec:
                for failure in spec['api_failures']:
                    re.compile(failure.get('path', '.*'))
                    if 'status' not in failure and 'delay' not in failure:
                        raise ValueError('api_failures: give a status (an '
                                         'HTTP error code), a delay '
                                         '(seconds), or both')
                    if ('status' in failure
                            and not 400 <= int(failure['status']) <= 599):
                        raise ValueError('api_failures: status must be an '
                                         'HTTP error code')
                    if float(failure.get('delay', 0)) < 0:
                        raise ValueError('api_failures: delay is a number '
                                         'of seconds, 0 or more')
                self.api_failures = [dict(f) for f in spec['api_failures']]
            if 'api_delay' in spec:
                self.api_delay = float(spec['api_delay'])
            if 'drop_notifications' in spec:
                ratio = float(spec['drop_notifications'])
                if not 0 <= ratio <= 1:
                    raise ValueError('drop_notifications is a probability '
                                     'between 0 and 1')
                self.drop_notifications = ratio
            if 'notification_delay' in spec:
                self.notification_delay_seconds = float(
                    spec['notification_delay'])
            if 'bmc_unreachable' in spec:
                hosts = spec['bmc_unreachable']
                if not isinstance(hosts, list):
                    raise ValueError('bmc_unreachable is a list of host '
                                     'names')
                self.unreachable_bmcs = {str(host) for host in hosts}
            if 'activation_failures' in spec:
                count = int(spec['activation_failures'])
                if count < 0:
                    raise ValueError('activation_failures is a number of '
                                     'deliveries, 0 or more')
                self.activation_failures = count
            for key, attribute in (
                    ('fail_volume_migrations', 'failing_volume_migrations'),
                    ('storage_backends_down', 'storage_backends_down')):
                if key in spec:
                    if not isinstance(spec[key], list):
                        raise ValueError('%s is a list of names' % key)
                    setattr(self, attribute, {str(n) for n in spec[key]})

    def take_migration_failure(self, uuid):
        return self._take_failure('failing_migrations', uuid)

    def take_volume_migration_failure(self, volume_id):
        return self._take_failure('failing_volume_migrations', volume_id)

    def _take_failure(self, failing, ident):
        """Whether the migration of ``ident`` fails: once when the set of
        ``failing`` (an attribute's name) names it, always when it holds
        '*'."""
        with self._lock:
            names = getattr(self, failing)
            if ident in names:
                names.discard(ident)
                return True
            return '*' in names

    def api_fault(self, method, path):
        """(status to answer or None, seconds to wait first)."""
        with self._lock:
            for failure in self.api_failures:
                if (failure.get('method', method).upper() == method
                        and re.search(failure.get('path', '.*'), path)):
                    if failure.get('count') is not None:
                        failure['count'] -= 1
                        if failure['count'] <= 0:
                            self.api_failures.remove(failure)
                    status = failure.get('status')
                    return (None if status is None else int(status),
                            self.api_delay + float(failure.get('delay', 0)))
            return None, self.api_delay

    def take_activation_failure(self):
        """Whether the guests' activation endpoint fails this delivery
        (the count of those to fail goes down)."""
        with self._lock:
            if self.activation_failures > 0:
                self.activation_failures -= 1
                return True
            return False

    def bmc_reachable(self, host):
        with self._lock:
            return not ({host, '*'} & self.unreachable_bmcs)

    def drop_notification(self):
        with self._lock:
            return (self.drop_notifications > 0
                    and self._random.random() < self.drop_notifications)

    def notification_delay(self):
        return self.notification_delay_seconds

    def state(self):
        with self._lock:
            return {'fail_migrations': sorted(self.failing_migrations),
                    'api_failures': [dict(f) for f in self.api_failures],
                    'api_delay': self.api_delay,
                    'drop_notifications': self.drop_notifications,
                    'notification_delay': self.notification_delay_seconds,
                    'bmc_unreachable': sorted(self.unreachable_bmcs),
                    'fail_volume_migrations':
                        sorted(self.failing_volume_migrations),
                    'storage_backends_down':
                        sorted(self.storage_backends_down),
                    'activation_failures': self.activation_failures}
