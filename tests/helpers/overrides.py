"""Options of the process's CONF set for a while, then put back.

oslo.config's fixture (oslo_config.fixture.Config) does this for a
ConfigOpts made for a test; on the process's CONF its clean-up would
reset everything, the configuration the session parsed
(tests/conftest.py's ``conf``) included. The tests' settings are that
parsed file, never overrides, so clearing an override returns an option
to them."""

from watcher_ha.conf import CONF


class Overrides:
    """config(group=None, **options) as oslo.config's fixture's; clear()
    takes back every override made, and only those, newest first: an
    option a module-scoped Overrides had set gets that value back after
    a test's."""

    def __init__(self, conf=CONF):
        self.conf = conf
        self.made = []

    def config(self, group=None, **options):
        for name, value in options.items():
            # oslo.config keeps one override per option and has no public
            # reader for it: its option info holds it (None: none).
            before = self.conf._get_opt_info(name, group).get('override')
            self.conf.set_override(name, value, group)
            self.made.append((name, group, before))

    def clear(self):
        for name, group, before in reversed(self.made):
            if before is None:
                self.conf.clear_override(name, group)
            else:
                self.conf.set_override(name, before, group)
        self.made.clear()
