"""Write tests/data/watcher17_options.json: every (group, name) of
OpenStack Watcher's own configuration options (its ``watcher``
oslo.config namespace, what its sample file lists beside the libraries').

Run it with the Python of a virtualenv where python-watcher is installed::

    python3 -m venv /tmp/w17
    /tmp/w17/bin/pip install python-watcher==17.0.0
    /tmp/w17/bin/python tools/watcher17_options.py \
        > tests/data/watcher17_options.json

tests/unit/conf/test_watcher_options.py checks that each of them is ours under
the same name, an alias of ours, or in watcher_ha/conf/watcher_ignored.py.
"""

import json
import sys
import warnings


def watcher_options():
    # Importing Watcher pulls in eventlet and its deprecation warnings.
    warnings.simplefilter('ignore')
    from importlib import metadata

    from watcher.conf import opts
    options = []
    for group, group_opts in opts.list_opts():
        group = group if isinstance(group, str) else group.name
        options.extend({'group': group, 'name': opt.dest}
                       for opt in group_opts)
    options.sort(key=lambda o: (o['group'], o['name']))
    return {'watcher_version': metadata.version('python-watcher'),
            'options': options}


if __name__ == '__main__':
    json.dump(watcher_options(), sys.stdout, indent=1)
    sys.stdout.write('\n')
