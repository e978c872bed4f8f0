"""The Grafana dashboard the project ships (etc/grafana/watcher-ha.json)."""

import json
import pathlib


DASHBOARD = (pathlib.Path(__file__).parents[2] / 'etc' / 'grafana'
             / 'watcher-ha.json')


def load():
    return json.loads(DASHBOARD.read_text())


def queries(dashboard=None):
    dashboard = dashboard or load()
    return [target['expr'] for panel in dashboard['panels']
            for target in panel.get('targets', ())]
