"""What an operator runs before starting the services, in one process.

``watcher-ha-db-manage upgrade`` and then ``sync``, through the same
calls, for a test's fresh database: one interpreter start-up instead of
two (about a second per test). tests/functional/test_db_manage.py runs
the commands themselves.

Usage: python tests/functional/prepare_db.py --config-file FILE
"""

import sys

from watcher_ha.common import context
from watcher_ha.db import installed_plugins
from watcher_ha.db import migration
from watcher_ha.service import service


def main(argv):
    service.prepare_service(argv, program='watcher-ha-db-manage')
    migration.upgrade()
    installed_plugins.sync(context.admin_context())


if __name__ == '__main__':
    main(sys.argv[1:])
