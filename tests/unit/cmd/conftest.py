"""What the tests of the command-line tools share."""

import pytest

from tests import served
from tests.helpers import what_if
from watcher_ha.conf import CONF
from watcher_ha.policies import policy


@pytest.fixture
def compute():
    """What makes the compute model of ``url``'s engine (a test may
    parametrize it)."""
    return what_if.model


@pytest.fixture
def url(db, monkeypatch, compute):
    """The URL of the API, served on a loopback port (noauth), the
    engine's what-if and data model answering in this process on the
    model ``compute`` makes (tests/helpers/what_if.py)."""
    from watcher_ha.api import app
    what_if.serve(monkeypatch, compute=compute)
    policy.reset()
    with served.app_serving(app.setup_app(CONF)) as found:
        yield found
    policy.reset()
