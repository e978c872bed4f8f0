"""Plugins are imported once per process, and of the namespaces the
configuration chooses from (planners, datasources), only the plugins it
names."""

import subprocess
import sys

import pytest

from watcher_ha.common import plugins


def _modules_after(code):
    """The watcher_ha modules loaded once ``code`` ran, in a fresh
    interpreter."""
    found = subprocess.run(
        [sys.executable, '-c', code + '\nimport sys\nprint(" ".join('
         'm for m in sys.modules if m.startswith("watcher_ha.")))'],
        capture_output=True, text=True, check=True)
    return set(found.stdout.split())


def test_only_the_configured_datasources_are_imported():
    loaded = _modules_after(
        'from oslo_config import cfg\n'
        'import watcher_ha.conf\n'
        'from watcher_ha.decision_engine.datasources import loader\n'
        'conf = cfg.ConfigOpts()\n'
        'watcher_ha.conf.register_opts(conf)\n'
        'conf([])\n'
        'conf.set_override("datasources", ["prometheus"],'
        ' group="watcher_datasources")\n'
        'conf.set_override("host", "127.0.0.1", group="prometheus_client")\n'
        'assert [type(d).__name__ for d in loader.load(conf)] == '
        '["PrometheusDatasource"]\n')
    assert 'watcher_ha.decision_engine.datasources.prometheus' in loaded
    assert 'watcher_ha.decision_engine.datasources.gnocchi' not in loaded
    assert 'watcher_ha.decision_engine.datasources.aetos' not in loaded


def test_only_the_planners_in_use_are_imported():
    loaded = _modules_after(
        'from oslo_config import cfg\n'
        'import watcher_ha.conf\n'
        'from watcher_ha.decision_engine.planner import loader\n'
        'conf = cfg.ConfigOpts()\n'
        'watcher_ha.conf.register_opts(conf)\n'
        'conf([])\n'
        'planners = loader.load(conf, {})\n'
        'assert sorted(planners.planners) == ["weight"]\n')
    assert 'watcher_ha.decision_engine.planner.weight' in loaded
    assert 'watcher_ha.decision_engine.planner.workload_stabilization' \
        not in loaded


def test_a_name_not_installed_is_refused_naming_what_is():
    with pytest.raises(plugins.PluginLoadError) as caught:
        plugins.load_named(plugins.DATASOURCES, ['prometheus', 'grafana'])
    assert 'grafana' in caught.value.message
    assert 'installed: aetos, gnocchi, prometheus' in caught.value.message


def test_a_namespace_is_read_from_the_entry_points_once(monkeypatch):
    made = []
    real = plugins.stevedore.ExtensionManager

    def counting(*args, **kwargs):
        made.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(plugins.stevedore, 'ExtensionManager', counting)
    monkeypatch.setattr(plugins, '_loaded', {})
    first = plugins.load_classes(plugins.GOALS)
    second = plugins.load_classes(plugins.GOALS)
    assert first == second and first is not second
    assert made == [plugins.GOALS]
