"""The instance-ha API's microversions and version documents.

One entry per version, oldest first; the newest is what ``latest`` asks
for. The history is in doc/source/instance_ha_api.rst.
"""

import re

import microversion_parse

from watcher_ha.common import exception

SERVICE_TYPE = 'instance-ha'

VERSIONS = [
    '1.0',  # Segments, hosts and notifications.
    '1.1',  # A notification shows its recovery_workflow_details.
    '1.2',  # A segment may be created or updated with "enabled".
    '1.3',  # The server moves of a notification (vmoves).
]
MIN_VERSION = microversion_parse.Version(*map(int, VERSIONS[0].split('.')))
MAX_VERSION = microversion_parse.Version(*map(int, VERSIONS[-1].split('.')))

# Masakari accepts no zero major version and no leading zero minor.
_FORMAT = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')

MEDIA_TYPE = 'application/vnd.openstack.masakari+json;version=1'
UPDATED = '2016-07-01T11:33:21Z'


class InvalidVersionString(exception.Invalid):
    error_code = 'invalid_version_string'
    msg_fmt = ('API Version String %(version)s is of invalid format. Must '
               'be of format MajorNum.MinorNum.')


class VersionNotSupported(exception.NotAcceptable):
    error_code = 'version_not_supported'
    msg_fmt = ('Version %(version)s is not supported by the API. Minimum '
               'is %(min)s and maximum is %(max)s.')


def text(version):
    return '%d.%d' % (version.major, version.minor)


def negotiate(headers):
    """The version a request asks for (``OpenStack-API-Version:
    instance-ha X.Y``), 1.0 when it names none."""
    asked = microversion_parse.get_version(headers, SERVICE_TYPE)
    if asked is None:
        return MIN_VERSION
    asked = asked.strip()
    if asked.lower() == 'latest':
        return MAX_VERSION
    match = _FORMAT.match(asked)
    if match is None:
        raise InvalidVersionString(version=asked)
    version = microversion_parse.Version(int(match.group(1)),
                                         int(match.group(2)))
    if not version.matches(MIN_VERSION, MAX_VERSION):
        raise VersionNotSupported(version=asked, min=text(MIN_VERSION),
                                  max=text(MAX_VERSION))
    return version


def response_headers(version):
    return {'OpenStack-API-Version': '%s %s' % (SERVICE_TYPE, text(version)),
            'Vary': 'OpenStack-API-Version'}


def _entry(base_url):
    return {'id': 'v1.0', 'status': 'CURRENT',
            'version': VERSIONS[-1], 'min_version': VERSIONS[0],
            'updated': UPDATED}


def versions_document(base_url):
    """The document at the API's root."""
    entry = _entry(base_url)
    entry['links'] = [{'rel': 'self', 'href': base_url + '/v1/'}]
    return {'versions': [entry]}


def version_document(base_url):
    """The document at /v1."""
    entry = _entry(base_url)
    entry['links'] = [
        {'rel': 'self', 'href': base_url + '/v1/'},
        {'rel': 'describedby', 'type': 'text/html',
         'href': 'https://docs.openstack.org/'}]
    entry['media-types'] = [{'base': 'application/json',
                             'type': MEDIA_TYPE}]
    return {'version': entry}


def choices_document(base_url, path):
    """Masakari's 300 for a path outside /v1: /v1 is the only choice."""
    return {'choices': [{
        'id': 'v1.0', 'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': base_url + '/v1' + path}],
        'media-types': [{'base': 'application/json',
                         'type': MEDIA_TYPE}]}]}
