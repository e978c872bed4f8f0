project = 'watcher_ha'
copyright = '2026, watcher_ha developers'
# The configuration and policy references (configuration.rst, policy.rst)
# are rendered from the installed code's entry points, so they cannot
# drift from what the daemons read.
extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
]
master_doc = 'index'
exclude_patterns = []
html_theme = 'alabaster'
