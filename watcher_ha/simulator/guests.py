"""What runs inside the simulated guests that a failover speaks to: the
activation endpoint an application's agent serves (doc/source/
app_failover.rst, activation ``webhook``), at ``POST
/simulator/activations``.

It checks each delivery's signature (``X-Watcher-HA-Signature:
sha256=<HMAC-SHA256 of the body>``) under the scenario's
``activation_secret`` and refuses a bad one (401: a receiver must not
act on what anybody could send); it acts on the first delivery of a
delivery id (``X-Watcher-HA-Delivery``) and acknowledges the others
(200), as the receiver the docs describe; while the faults'
``activation_failures`` count is positive it answers 503 instead
(an agent restarting). Every delivery is recorded, in order: the state's
``activations``."""

import hashlib
import hmac
import json
import threading


class Activations:
    """The activations the guests received."""

    def __init__(self, faults, clock, secret=None):
        self.faults = faults
        self.clock = clock
        self.secret = secret
        self.deliveries = []
        self._acted = set()
        self._lock = threading.Lock()

    def receive(self, body, delivery, signature):
        """(status, what was recorded) of one delivery."""
        try:
            fields = json.loads(body)
        except ValueError:
            fields = {}
        signed = self.secret is not None and hmac.compare_digest(
            'sha256=' + hmac.new(self.secret.encode(), body,
                                 hashlib.sha256).hexdigest(),
            signature or '')
        with self._lock:
            if self.secret is not None and not signed:
                status, acted = 401, False
            elif self.faults.take_activation_failure():
                status, acted = 503, False
            else:
                status, acted = 200, delivery not in self._acted
                self._acted.add(delivery)
            record = {
                'delivery': delivery, 'signed': signed, 'status': status,
                'acted': acted, 'server': fields.get('server'),
                'replaces': fields.get('replaces'),
                'server_group': fields.get('server_group'),
                'at': self.clock.now().isoformat()}
            self.deliveries.append(record)
        return status, record

    def state(self):
        with self._lock:
            return [dict(d) for d in self.deliveries]
