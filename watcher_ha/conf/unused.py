"""Options written in the configuration files that no part of watcher_ha
reads: Watcher's options that mean nothing here (conf/watcher_ignored.py)
and names nobody knows (a typo, another service's option). oslo.config
itself passes over both in silence; ``watcher-ha-status upgrade check``
lists them.

What is read is what the sample file documents: the options of the
oslo.config namespaces below (etc/watcher-ha/config-generator.conf lists
the same, a test checks it), under their names and their deprecated
names, plus the options of the keystoneauth plugin that each
``auth_type`` set in the files names (auth_url, password...), which the
plugin registers only when it loads.
"""

import dataclasses
import glob
import os
from importlib import metadata

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from watcher_ha.conf import watcher_ignored

NAMESPACES = (
    'watcher_ha',
    'oslo.concurrency',
    'oslo.db',
    'oslo.log',
    'oslo.messaging',
    'oslo.middleware.cors',
    'oslo.middleware.healthcheck',
    'oslo.middleware.http_proxy_to_wsgi',
    'oslo.middleware.sizelimit',
    'oslo.policy',
    'oslo.service.service',
    'keystonemiddleware.auth_token',
)

UNKNOWN = 'not an option of watcher-ha (mistyped, or another service\'s)'

# Options of ours that are gone, with what took their place.
REMOVED = {
    ('instance_ha', 'recovery_poll_interval'):
        'removed: the end of a recovery\'s plan reaches the engine that '
        'owns its notification by a message; [watcher_decision_engine] '
        'sweep_interval paces the safety net for a lost one',
}


@dataclasses.dataclass(frozen=True)
class Unused:
    group: str
    name: str
    why: str


def _group_name(section):
    # oslo.config's own rule: DEFAULT in any case, other groups lowered.
    return 'DEFAULT' if section.upper() == 'DEFAULT' else section.lower()


def _option_name(key):
    return key.replace('-', '_')


def config_files(conf):
    """The files ``conf`` read, in its order: --config-file, then the
    *.conf of each --config-dir."""
    files = list(conf.config_file or ())
    dirs = conf.config_dir or ()
    for directory in [dirs] if isinstance(dirs, str) else dirs:
        files.extend(sorted(glob.glob(os.path.join(directory, '*.conf'))))
    return files


def set_options(conf):
    """{group: {name: last value}} of what the files of ``conf`` set."""
    found = {}
    for path in config_files(conf):
        sections = {}
        cfg.ConfigParser(path, sections).parse()
        for section, keys in sections.items():
            group = found.setdefault(_group_name(section), {})
            for key, values in keys.items():
                group[_option_name(key)] = values[-1]
    return found


def _names(group, opt):
    """(group, name) pairs under which ``opt`` of ``group`` is read."""
    yield group, opt.dest
    for old in opt.deprecated_opts:
        yield (_group_name(old.group) if old.group else group,
               _option_name(old.name) if old.name else opt.dest)


def known_options():
    """{(group, name)} of every option of NAMESPACES, deprecated names
    included."""
    known = set()
    for entry_point in metadata.entry_points(group='oslo.config.opts'):
        if entry_point.name not in NAMESPACES:
            continue
        for group, opts in entry_point.load()():
            group = getattr(group, 'name', group) or 'DEFAULT'
            for opt in opts:
                known.update(_names(_group_name(group), opt))
    return known


def _plugin_options(group, auth_type):
    """{(group, name)} of the options of keystoneauth's ``auth_type``
    plugin, read from ``group``; none for a plugin nobody installed."""
    try:
        opts = ks_loading.get_auth_plugin_conf_options(auth_type)
    except ks_exc.NoMatchingPlugin:
        return set()
    return {pair for opt in opts for pair in _names(group, opt)}


def unused_options(conf):
    """[Unused] for every option the files of ``conf`` set that nothing
    reads, in the files' group and name order."""
    found = set_options(conf)
    known = known_options()
    for group, values in found.items():
        # Only where we read auth_type: a plugin named in a group of
        # Watcher's that we ignore loads nowhere.
        if values.get('auth_type') and (group, 'auth_type') in known:
            known |= _plugin_options(group, values['auth_type'])
    unused = []
    for group in sorted(found):
        for name in sorted(found[group]):
            if (group, name) in known:
                continue
            why = (REMOVED.get((group, name))
                   or watcher_ignored.why_ignored(group, name))
            unused.append(Unused(group, name, why or UNKNOWN))
    return unused
