"""The sample configuration and policy files generate from our entry
points, and say what an operator needs."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent


def test_sample_config_generates(tmp_path):
    output = tmp_path / 'watcher-ha.conf.sample'
    subprocess.run(
        [BIN / 'oslo-config-generator', '--config-file',
         ROOT / 'etc/watcher-ha/config-generator.conf',
         '--output-file', output], check=True, capture_output=True)
    sample = output.read_text()
    for expected in ('#transport_url = fake://',
                     '#auth_strategy = keystone',
                     '#host = <hostname>',
                     '[api]', '#port = 9322', '#max_limit = 1000',
                     '#workers = 1',
                     '#connection = sqlite:///$state_path/watcher_ha.sqlite',
                     '[keystone_authtoken]',
                     '[oslo_middleware]', '#max_request_body_size = 262144'):
        assert expected in sample, expected


def test_sample_policy_generates(tmp_path):
    output = tmp_path / 'policy.yaml.sample'
    subprocess.run(
        [BIN / 'oslopolicy-sample-generator', '--config-file',
         ROOT / 'etc/watcher-ha/policy-generator.conf',
         '--output-file', output], check=True, capture_output=True)
    sample = output.read_text()
    assert '#"audit:create": "rule:admin_api"' in sample
    assert '#"audit:get_all": "rule:reader_api"' in sample
    assert '#"webhook:trigger": "rule:admin_or_service_api"' in sample


def test_every_console_script_imports():
    import importlib.metadata
    scripts = [ep for ep in importlib.metadata.entry_points(
        group='console_scripts') if ep.value.startswith('watcher_ha.')]
    assert {ep.name for ep in scripts} >= {'watcher-ha-api',
                                          'watcher-ha-db-manage'}
    for ep in scripts:
        assert callable(ep.load())


def test_the_rabbit_queue_managers_lock_is_under_lock_path(config, tmp_path,
                                                            monkeypatch):
    """With ``[oslo_messaging_rabbit] use_queue_manager``, oslo.messaging
    names its reply queues under an inter-process lock of
    oslo.concurrency's, in ``[oslo_concurrency] lock_path``: by default
    ``$state_path/lock``, so that the option works without it."""
    from oslo_messaging._drivers import amqpdriver
    from watcher_ha.conf import CONF
    # The counter the queue manager keeps in /dev/shm: a name of its own.
    name = 'watcher-ha-test-%d' % id(tmp_path)
    manager = amqpdriver.QManager(name, 'lock-path')
    # The manager tells a restarted service by the start time of its
    # process group's leader, read from /proc: a test run started in the
    # background may have no leader left (it failed so under CI), and
    # that is not what this test is about.
    monkeypatch.setattr(amqpdriver.QManager, '_service_identity',
                        staticmethod(lambda: (os.getpgrp(), 0)))
    try:
        assert CONF.oslo_concurrency.lock_path == str(
            pathlib.Path(CONF.state_path) / 'lock')
        manager.get()
        assert list((pathlib.Path(CONF.state_path) / 'lock').glob(
            '*%s*' % name))
        config.config(lock_path=str(tmp_path), group='oslo_concurrency')
        manager.get()
        assert list(tmp_path.glob('*%s*' % name))
    finally:
        pathlib.Path(manager.file_name).unlink(missing_ok=True)
