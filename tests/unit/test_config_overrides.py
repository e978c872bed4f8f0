"""The tests' way of setting options (tests/helpers/overrides.py, the
``config`` fixture): each override is taken back, to the file's value or
to an enclosing override's, so that nothing leaks from a test."""

from oslo_config import cfg

from tests.helpers.overrides import Overrides


def _conf(tmp_path):
    conf = cfg.ConfigOpts()
    conf.register_opt(cfg.IntOpt('size', default=1), group='box')
    path = tmp_path / 'box.conf'
    path.write_text('[box]\nsize = 5\n')
    conf(['--config-file', str(path)], default_config_files=[])
    return conf


def test_a_cleared_override_returns_the_files_value(tmp_path):
    conf = _conf(tmp_path)
    made = Overrides(conf)
    made.config(group='box', size=7)
    assert conf.box.size == 7
    made.clear()
    assert conf.box.size == 5


def test_an_inner_override_gives_the_outer_ones_value_back(tmp_path):
    conf = _conf(tmp_path)
    module, test = Overrides(conf), Overrides(conf)
    module.config(group='box', size=7)
    test.config(group='box', size=9)
    test.config(group='box', size=11)
    assert conf.box.size == 11
    test.clear()
    assert conf.box.size == 7
    module.clear()
    assert conf.box.size == 5


def test_the_config_fixture_overrides_conf(config, conf):
    before = conf.watcher_applier.poll_interval
    config.config(group='watcher_applier', poll_interval=before + 1)
    assert conf.watcher_applier.poll_interval == before + 1
