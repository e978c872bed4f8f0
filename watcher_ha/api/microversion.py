"""API microversions: the one list of versions, and header handling.

Clients ask with ``OpenStack-API-Version: infra-optim X.Y`` (or
``latest``); no header means the minimum. The history is told in
doc/source/rest_api_version_history.rst.
"""

import microversion_parse

from watcher_ha.common import exception

SERVICE_TYPE = 'infra-optim'
HEADER = 'OpenStack-API-Version'

VERSIONS = [
    '1.0',  # Initial version.
    '1.1',  # Audits: start_time and end_time for continuous audits.
    '1.2',  # Audits: force, to run despite an ongoing action plan.
    '1.3',  # GET /v1/data_model.
    '1.4',  # POST /v1/webhooks/{audit} triggers EVENT audits.
    '1.5',  # Actions may be PATCHed to SKIPPED; status_message on audits,
            # action plans and actions.
    '1.6',  # data_model: server_flavor_extra_specs and server_pinned_az.
    '1.7',  # Audit templates: default_parameters.
    '1.8',  # Services: status from the coordination group; a decision
            # engine shows the continuous audits it owns.
]

MIN_VERSION = microversion_parse.parse_version_string(VERSIONS[0])
MAX_VERSION = microversion_parse.parse_version_string(VERSIONS[-1])
MIN_VERSION_STRING = VERSIONS[0]
MAX_VERSION_STRING = VERSIONS[-1]


class VersionNotAcceptable(exception.WatcherHAError):
    """The requested version is outside [MIN, MAX]; rendered webob-style."""
    code = 406
    error_code = 'version_not_acceptable'


class InvalidVersionHeader(exception.Invalid):
    error_code = 'invalid_version_header'
    msg_fmt = ('Invalid value for %(header)s header: %(value)s. Use '
               '"%(service)s X.Y" with X.Y between %(min)s and %(max)s, or '
               '"%(service)s latest".')


def parse(headers):
    """Return the microversion_parse.Version asked for by ``headers``."""
    try:
        text = microversion_parse.get_version(headers, SERVICE_TYPE)
    except ValueError as err:
        raise InvalidVersionHeader(header=HEADER, value=str(err),
                                   service=SERVICE_TYPE,
                                   min=MIN_VERSION_STRING,
                                   max=MAX_VERSION_STRING)
    if text is None:
        return MIN_VERSION
    if text.strip().lower() == 'latest':
        return MAX_VERSION
    if text.strip() == '1':
        # Old clients send the bare major version.
        return MIN_VERSION
    try:
        version = microversion_parse.parse_version_string(text)
    except (TypeError, ValueError):
        raise InvalidVersionHeader(header=HEADER, value=text,
                                   service=SERVICE_TYPE,
                                   min=MIN_VERSION_STRING,
                                   max=MAX_VERSION_STRING)
    supported = ('The supported version range is: [%s, %s].'
                 % (MIN_VERSION_STRING, MAX_VERSION_STRING))
    if version.major != MIN_VERSION.major:
        raise VersionNotAcceptable(
            'Mutually exclusive versions requested. Version %s requested '
            'but not supported by this service. %s' % (text, supported))
    if not version.matches(MIN_VERSION, MAX_VERSION):
        raise VersionNotAcceptable(
            'Version %s was requested but the minor version is not '
            'supported by this service. %s' % (text, supported))
    return version


def range_headers():
    return {'OpenStack-API-Minimum-Version': MIN_VERSION_STRING,
            'OpenStack-API-Maximum-Version': MAX_VERSION_STRING,
            'Vary': HEADER}


def version_header(version):
    return '%s %s' % (SERVICE_TYPE, version)


def at_least(version, text):
    return version >= microversion_parse.parse_version_string(text)
