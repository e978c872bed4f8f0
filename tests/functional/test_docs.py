"""The documentation builds with ``sphinx-build -W``, and its references
list every configuration option and every policy rule the code has.

doc/source/configuration.rst and policy.rst render them from the
installed entry points, through the namespaces of
etc/watcher-ha/{config,policy}-generator.conf. The expected names are
read here on another path: straight from the entry points those files
name (``watcher_ha`` is watcher_ha.conf.opts.list_opts and
watcher_ha.policies.list_rules), then looked for in the built HTML as
the anchors and terms the references give them. A reference that no
longer renders a namespace, or a page gone from the build, fails here.
"""

import html.parser
import pathlib
import re
import subprocess
import sys
from importlib import metadata

import pytest
from oslo_config import cfg

pytestmark = pytest.mark.functional

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCE = REPO / 'doc' / 'source'
ETC = REPO / 'etc' / 'watcher-ha'
# The whole tree takes under 10 s on two cores.
BUILD_TIMEOUT = 300
# How Sphinx reports a problem ("<file>:<line>: WARNING: ..."); Python's
# own warnings (an EventletDeprecationWarning on import) are no concern.
SPHINX_PROBLEM = re.compile(r'\b(WARNING|ERROR|CRITICAL|SEVERE):')


def generator_namespaces(config_file):
    """The ``namespace`` values of a generator's configuration file, in
    order (the key repeats, which configparser does not keep)."""
    found = []
    for line in config_file.read_text().splitlines():
        key, sep, value = line.partition('=')
        if sep and key.strip() == 'namespace':
            found.append(value.strip())
    return found


def load_entry_point(group, name):
    [entry_point] = metadata.entry_points(group=group, name=name)
    return entry_point.load()


def expected_options():
    """{(group, option)} over the namespaces of config-generator.conf."""
    options = set()
    for namespace in generator_namespaces(ETC / 'config-generator.conf'):
        listed = load_entry_point('oslo.config.opts', namespace)()
        for group, opts in listed:
            if isinstance(group, cfg.OptGroup):
                group = group.name
            for opt in opts:
                options.add((group or 'DEFAULT', opt.dest))
    return options


def expected_rules():
    rules = set()
    for namespace in generator_namespaces(ETC / 'policy-generator.conf'):
        rules.update(rule.name for rule in load_entry_point(
            'oslo.policy.policies', namespace)())
    return rules


class PageReader(html.parser.HTMLParser):
    """The element ids of a page, and the literals that are the terms of
    its definition lists (``<dt><code>`` with the text split into
    spans): oslo.policy's extension puts each rule's name there."""

    def __init__(self):
        super().__init__()
        self.ids = set()
        self.terms = set()
        self._in_term = False
        self._text = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get('id'):
            self.ids.add(attrs['id'])
        if tag == 'dt':
            self._in_term = True
        elif tag == 'code' and self._in_term:
            self._text = []

    def handle_endtag(self, tag):
        if tag == 'dt':
            self._in_term = False
        elif tag == 'code' and self._text is not None:
            self.terms.add(''.join(self._text))
            self._text = None

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)


def read_page(path):
    reader = PageReader()
    reader.feed(path.read_text())
    reader.close()
    return reader


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    """The HTML of the whole tree; the build's output, warnings
    included."""
    out = tmp_path_factory.mktemp('html')
    # From the top of the tree, as tox -e docs: the references name the
    # generator files by their path from there.
    found = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-j', '2',
         '-q', '-b', 'html', str(SOURCE), str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    assert found.returncode == 0, 'sphinx-build failed:\n%s\n%s' % (
        found.stdout, found.stderr)
    return out, found.stderr


def test_the_docs_build_without_a_warning(built):
    # -W makes Sphinx's warnings errors, except those the oslo extensions
    # let through from the texts they render (bad RST in an option's help
    # or a rule's description): those are ours to fix too.
    _, stderr = built
    assert not SPHINX_PROBLEM.search(stderr), stderr


def test_every_option_is_in_the_configuration_reference(built):
    out, _ = built
    assert 'watcher_ha' in generator_namespaces(
        ETC / 'config-generator.conf')
    options = expected_options()
    # Ours and a library's: the expected list itself is not empty.
    assert {('watcher_decision_engine', 'max_audit_workers'),
            ('database', 'connection')} <= options, sorted(options)
    anchors = read_page(out / 'configuration.html').ids
    # oslo.config's anchor: the group (lower case, but DEFAULT) and the
    # option's name in lower case.
    missing = sorted(
        (group, name) for group, name in options
        if '%s.%s' % (group if group == 'DEFAULT' else group.lower(),
                      name.lower()) not in anchors)
    assert not missing, 'not in configuration.html: %s' % missing


def test_every_policy_rule_is_in_the_policy_reference(built):
    out, _ = built
    assert 'watcher_ha' in generator_namespaces(
        ETC / 'policy-generator.conf')
    rules = expected_rules()
    assert {'admin_api', 'audit:get_all',
            'os_masakari_api:segments:index'} <= rules, sorted(rules)
    terms = read_page(out / 'policy.html').terms
    missing = sorted(rules - terms)
    assert not missing, 'not in policy.html: %s' % missing
