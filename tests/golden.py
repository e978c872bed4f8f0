"""Reading the request/response pairs captured from OpenStack Watcher 17
and from Masakari 22."""

import dataclasses
import json

from tests import reference_data

GOLDEN_DIR = reference_data.ROOT / 'watcher-api-golden'
MASAKARI_GOLDEN_DIR = reference_data.ROOT / 'masakari-api-golden'


@dataclasses.dataclass
class Exchange:
    name: str
    method: str
    path: str
    request_headers: dict
    request_body: str
    status: int
    response_headers: dict
    response_body: object   # parsed JSON, or None when empty


def _headers(lines):
    headers = {}
    for line in lines:
        if ':' in line:
            key, value = line.split(':', 1)
            headers[key.strip().lower()] = value.strip()
    return headers


def load(path):
    text = path.read_text()
    request_part, response_part = text.split('### RESPONSE\n', 1)
    # Pretty-printed copies of the bodies follow, under '### ' headings.
    response_part = response_part.split('\n### ')[0]
    request_lines = request_part.split('### REQUEST\n', 1)[1].split('\n')
    method, target, _ = request_lines[0].split(' ')
    blank = request_lines.index('') if '' in request_lines else len(
        request_lines)
    request_headers = _headers(request_lines[1:blank])
    request_body = '\n'.join(request_lines[blank + 1:]).strip()
    response_lines = response_part.strip('\n').split('\n')
    status = int(response_lines[0].split(' ')[1])
    blank = (response_lines.index('') if '' in response_lines
             else len(response_lines))
    response_headers = _headers(response_lines[1:blank])
    body = '\n'.join(response_lines[blank + 1:]).strip()
    return Exchange(path.stem, method, target, request_headers,
                    request_body, status, response_headers,
                    json.loads(body) if body else None)


def exchanges(directory=GOLDEN_DIR, pattern='[0-9][0-9]_*.txt'):
    return [load(p) for p in reference_data.files(directory, pattern)]
