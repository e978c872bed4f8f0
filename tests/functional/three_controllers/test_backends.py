"""The three controllers' backends behave as a deployment's do: one
Galera cluster that every node writes to, one RabbitMQ cluster, one etcd
cluster; a controller killed whole, or frozen, leaves the other two a
working majority, and rejoins when it comes back."""

import signal
import time
import uuid

import pytest

from tools import controllers

pytestmark = [pytest.mark.functional, pytest.mark.three_controllers]

# Out of Galera's view once silent for its inactive timeout; a joining
# node's state transfer and a broker's start take longer.
VIEW_CHANGE_SECONDS = 3 * controllers.GALERA_INACTIVE_SECONDS
REJOIN_SECONDS = controllers.READY_TIMEOUT


def _until(what, check, seconds):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, '%s not within %.0f s' % (
            what, seconds)
        time.sleep(0.5)


def _cluster_size(controller):
    status = controllers.galera_status(controller)
    if status.get('wsrep_cluster_status') != 'Primary':
        return None
    return int(status['wsrep_cluster_size'])


def _write(controller, value):
    controllers.galera_query(
        controller, 'CREATE DATABASE IF NOT EXISTS probe')
    controllers.galera_query(
        controller, 'CREATE TABLE IF NOT EXISTS probe.rows '
                    '(value VARCHAR(64) PRIMARY KEY)')
    controllers.galera_query(
        controller, "INSERT INTO probe.rows VALUES ('%s')" % value)


def _has(controller, value):
    # A node applies the others' commits a little after they return:
    # the read waits for what the cluster committed before it.
    return bool(controllers.galera_query(
        controller, 'SET SESSION wsrep_sync_wait = 1',
        "SELECT 1 FROM probe.rows WHERE value = '%s'" % value))


def _rabbit_nodes(controller):
    import json
    done = controllers.rabbitmqctl(controller, 'cluster_status',
                                   '--formatter', 'json')
    return sorted(json.loads(done.stdout)['running_nodes']) if (
        done.returncode == 0) else []


def test_each_backend_is_one_cluster_of_three(three_controllers):
    c1, c2, c3 = three_controllers
    assert [_cluster_size(c) for c in three_controllers] == [3, 3, 3]
    assert _rabbit_nodes(c2) == sorted(c.rabbit_node
                                       for c in three_controllers)
    assert all(controllers.etcd_healthy(c) for c in three_controllers)
    value = uuid.uuid4().hex
    _write(c1, value)
    assert _has(c3, value)
    urls = controllers.urls(c2, three_controllers)
    assert urls['transport'].startswith(
        'rabbit://guest:guest@127.0.0.1:%d,' % c2.port('amqp'))


def test_a_controller_killed_whole_leaves_a_majority_and_rejoins(
        three_controllers):
    c1, c2, c3 = three_controllers
    controllers.signal_all(c2, signal.SIGKILL)
    _until('Galera views of two', lambda: [
        _cluster_size(c1), _cluster_size(c3)] == [2, 2],
        VIEW_CHANGE_SECONDS)
    assert not controllers.etcd_healthy(c2)
    assert controllers.etcd_healthy(c1)
    missed = uuid.uuid4().hex
    _write(c3, missed)
    controllers.start(c2, three_controllers)
    _until('c2 back in the Galera view', lambda: _cluster_size(c2) == 3,
           REJOIN_SECONDS)
    # What it missed comes with its rejoin (IST from a donor).
    assert _has(c2, missed)
    _until('c2 back in the RabbitMQ cluster',
           lambda: c2.rabbit_node in _rabbit_nodes(c1), REJOIN_SECONDS)


def test_a_frozen_controller_drops_out_and_comes_back_thawed(
        three_controllers):
    c1, c2, c3 = three_controllers
    controllers.signal_all(c3, signal.SIGSTOP)
    try:
        _until('Galera views of two', lambda: [
            _cluster_size(c1), _cluster_size(c2)] == [2, 2],
            VIEW_CHANGE_SECONDS)
    finally:
        controllers.signal_all(c3, signal.SIGCONT)
    _until('c3 back in the Galera view', lambda: _cluster_size(c3) == 3,
           REJOIN_SECONDS)


def test_an_isolated_galera_node_goes_non_primary_and_rejoins(
        three_controllers):
    """isolate: the node's group communication cut, the rest of the
    controller running; the other two carry on as a Primary component of
    two, the isolated node refuses reads (1047) until it rejoins."""
    c1, c2, c3 = three_controllers
    _write(c1, 'before-isolation')
    controllers.isolate(c3)
    try:
        _until('Galera views of two', lambda: [
            _cluster_size(c1), _cluster_size(c2)] == [2, 2],
            VIEW_CHANGE_SECONDS)
        _until('c3 non-Primary', lambda: controllers.galera_status(c3).get(
            'wsrep_cluster_status') == 'non-Primary', VIEW_CHANGE_SECONDS)
        with pytest.raises(Exception, match='1047'):
            controllers.galera_query(c3, 'SELECT * FROM probe.rows')
        _write(c2, 'while-isolated')
    finally:
        controllers.rejoin(c3)
    assert _cluster_size(c3) == 3
    assert _has(c3, 'while-isolated')
