project = 'watcher_ha'
copyright = '2026, watcher_ha developers'
extensions = []
master_doc = 'index'
exclude_patterns = []
html_theme = 'alabaster'
