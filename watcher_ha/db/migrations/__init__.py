"""The alembic environment and revisions of watcher_ha's schema, shipped
inside the package so that an installed watcher-ha finds them
(``watcher_ha.db.migration`` drives them; nothing imports them)."""
