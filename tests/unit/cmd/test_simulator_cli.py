"""watcher-ha-simulator's command line: its subcommands and their help."""

import re

import pytest

from watcher_ha.cmd import simulator


def help_of(capsys, *argv):
    with pytest.raises(SystemExit) as stopped:
        simulator.main(list(argv))
    assert stopped.value.code == 0
    return capsys.readouterr().out


def test_help_lists_every_subcommand_with_what_it_does(capsys):
    out = help_of(capsys, '--help')
    listed = re.findall(r'^    (\S+)', out, re.MULTILINE)
    assert listed == ['serve', 'generate', 'import-cluster'], out
    said = ' '.join(out.split())
    for says in ('serve the simulated cloud of a scenario file',
                 'write a random scenario of N hosts and M servers',
                 'write the scenario of a reference cluster JSON file'):
        assert says in said, out


def test_each_subcommand_has_its_own_help(capsys):
    assert '--scenario' in help_of(capsys, 'serve', '--help')
    assert '--hosts' in help_of(capsys, 'generate', '--help')
    assert '--cluster' in help_of(capsys, 'import-cluster', '--help')


def test_serving_needs_no_subcommand_name(monkeypatch):
    """``watcher-ha-simulator --scenario FILE`` serves, as before."""
    served = []
    monkeypatch.setattr(simulator, '_serve', served.append)
    simulator.main(['--scenario', 'cloud.yaml', '--port', '9000'])
    [args] = served
    assert (args.scenario, args.port) == ('cloud.yaml', 9000)


def test_generate_writes_a_scenario(tmp_path):
    out = tmp_path / 'cloud.yaml'
    simulator.main(['generate', '--hosts', '2', '--servers', '3',
                    '--output', str(out)])
    from watcher_ha.simulator import scenario
    assert len(scenario.load(str(out))['servers']) == 3


def test_import_cluster_reads_the_repositorys_gzipped_clusters(tmp_path):
    """The guide's command, on the reference cluster the repository
    keeps (gzipped, tests/data/reference/clusters)."""
    from tests import reference_data
    from watcher_ha.simulator import scenario
    cluster = reference_data.ROOT / 'clusters' / 'cluster_20_200.json.gz'
    out = tmp_path / 'cloud.yaml'
    simulator.main(['import-cluster', '--cluster', str(cluster),
                    '--output', str(out)])
    made = scenario.load(str(out))
    assert (len(made['hosts']), len(made['servers'])) == (20, 200)
