"""What the tests of the command-line tools share."""

import pytest

from tests import served
from tests.helpers import what_if
from watcher_ha.conf import CONF
from watcher_ha.policies import policy


@pytest.fixture
def url(db, monkeypatch):
    """The URL of the API, served on a loopback port (noauth), the
    engine's what-if and data model answering in this process
    (tests/helpers/what_if.py)."""
    from watcher_ha.api import app
    what_if.serve(monkeypatch)
    policy.reset()
    with served.app_serving(app.setup_app(CONF)) as found:
        yield found
    policy.reset()
