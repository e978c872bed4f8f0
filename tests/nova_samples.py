"""Nova's notification samples (tests/data/reference/nova-notifications):
``live/`` captured from a real Nova 34, ``samples/`` from Nova's docs (with
``{"$ref": "file#"}`` objects standing for that file's content, the
object's other keys merged over it)."""

import json
import pathlib

from tests import reference_data

REFERENCE = reference_data.ROOT / 'nova-notifications'
LIVE = REFERENCE / 'live'
DOCUMENTED = REFERENCE / 'samples'


def _merge(base, over):
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _resolve(value, directory):
    if isinstance(value, dict):
        if '$ref' in value:
            target = directory / value['$ref'].split('#')[0]
            base = _resolve(json.loads(target.read_text()), target.parent)
            rest = {k: v for k, v in value.items() if k != '$ref'}
            return _merge(base, _resolve(rest, directory))
        return {k: _resolve(v, directory) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(item, directory) for item in value]
    return value


def load(path):
    path = pathlib.Path(path)
    return _resolve(json.loads(path.read_text()), path.parent)


def live():
    """{event_type: notification} captured from a real Nova."""
    return {load(p)['event_type']: load(p)
            for p in reference_data.files(LIVE, '*.json')}


def documented():
    """[(file stem, notification)] of Nova's documented samples."""
    return [(p.stem, load(p))
            for p in reference_data.files(DOCUMENTED, '*.json')]
