"""Alembic environment: runs migrations on watcher_ha's configured database.

``watcher-ha-db-manage`` hands in an open connection through
``config.attributes['connection']``; the plain ``alembic`` command builds
one from the config file named by WATCHER_HA_CONFIG_FILE.
"""

import os

from alembic import context
from oslo_config import cfg

from watcher_ha.db import engine
from watcher_ha.db import models

target_metadata = models.Base.metadata


def _run(connection):
    context.configure(connection=connection,
                      target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == 'sqlite')
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online():
    connection = context.config.attributes.get('connection')
    if connection is not None:
        _run(connection)
        return
    # Run by the plain alembic command: only [database] is needed.
    import watcher_ha.conf  # noqa: F401  (registers our options)
    config_file = os.environ.get('WATCHER_HA_CONFIG_FILE')
    cfg.CONF(['--config-file', config_file] if config_file else [],
             project='watcher-ha', prog='alembic')
    # The embedded SQLite database lives there.
    os.makedirs(cfg.CONF.state_path, exist_ok=True)
    engine.configure(cfg.CONF)
    with engine.get_engine().connect() as connection:
        _run(connection)


run_migrations_online()
