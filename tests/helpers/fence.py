"""A stand-in for the applier's fence (watcher_ha/applier/fencing.py)."""

from watcher_ha.applier import fencing


class Fence:
    """Counts the writes it lets through; refuses them all once shut."""

    def __init__(self):
        self.passed = 0
        self.shut = False

    def __call__(self):
        if self.shut:
            raise fencing.Fenced('shut')
        self.passed += 1
