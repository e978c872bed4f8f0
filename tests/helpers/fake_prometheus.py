"""A fake Prometheus HTTP API (served by the datasource tests' fake
server) and the hosts and servers it reports on."""

from watcher_ha.decision_engine.model import elements


NODES = [elements.ComputeNode(hostname=name)
         for name in ('compute-1', 'compute-2', 'compute-3')]


SERVERS = [elements.Instance(uuid='u-%d' % i, vcpus=i, memory_mb=512 * i,
                             disk_gb=10 * i) for i in (1, 2, 4)]


def targets(*fqdns):
    return {'status': 'success', 'data': {'activeTargets': [
        {'labels': {'fqdn': fqdn, 'job': 'node'}} for fqdn in fqdns] + [
        {'labels': {'job': 'ceilometer'}}]}}


def vector(label, values):
    return {'status': 'success', 'data': {'resultType': 'vector', 'result': [
        {'metric': {label: key, 'job': 'x'}, 'value': [1700000000.0,
                                                       str(value)]}
        for key, value in values.items()]}}


class FakePrometheus:
    """Targets with the ``fqdns`` given; every query answers
    ``answers[label]`` (the values of the series it keys by)."""

    def __init__(self, fqdns, answers=None, failures=()):
        self.fqdns = list(fqdns)
        self.answers = answers or {}
        self.failures = list(failures)

    def __call__(self, method, path, query, body):
        if self.failures:
            return self.failures.pop(0)
        if path == '/api/v1/targets':
            return 200, targets(*self.fqdns)
        if path == '/api/v1/status/runtimeinfo':
            return 200, {'status': 'success', 'data': {}}
        text = body['query'][0]
        label = 'fqdn' if 'fqdn=~' in text else 'resource'
        return 200, vector(label, self.answers.get(label, {}))
