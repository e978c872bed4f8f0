"""Something slow to make, made by one process and shared: by the
processes of a test run (pytest-xdist workers) or by the runs after it.
Whoever asks takes an exclusive lock, and finds it made when its stamp,
written last, is there and says it was made as now wanted."""

import fcntl
import pathlib


def exclusive(path):
    """The file ``path`` opened and locked exclusively (flock): processes
    asking at once take turns. Closing it (a with block) releases it."""
    lock = open(path, 'w')
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
    except OSError:
        lock.close()
        raise
    return lock


class Stamp:
    """The file ``path``, written when what it stands for is complete,
    holding ``content``: what it was made with."""

    def __init__(self, path, content=''):
        self.path = pathlib.Path(path)
        self.content = content

    def current(self):
        """Whether it was made, and with ``content``."""
        return self.path.exists() and self.path.read_text() == self.content

    def write(self):
        self.path.write_text(self.content)
