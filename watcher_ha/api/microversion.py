"""API microversions: the one list of versions, and header handling.

Clients ask with ``OpenStack-API-Version: infra-optim X.Y`` (or
``latest``); no header means the minimum. ``infra-optim`` versions are
exactly Watcher 17's: what watcher_ha adds to Watcher's API has a
microversion family of its own, ``watcher-ha``, asked in the same
header (``infra-optim 1.7, watcher-ha 1.1``), so that no number of ours
can mean something else in a later Watcher. The history is told in
doc/source/rest_api_version_history.rst.
"""

import functools
import typing

import microversion_parse

from watcher_ha.common import exception

SERVICE_TYPE = 'infra-optim'
EXTENSION_TYPE = 'watcher-ha'
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
]
EXTENSION_VERSIONS = [
    '1.0',  # Watcher's API alone.
    '1.1',  # Services: a decision engine's continuous_audits and
            # data_models; GET /v1/data_model: model (engine, generation,
            # ages).
    '1.2',  # GET /v1/data_model?data_model_type=storage: the storage
            # model (Cinder's backends, pools and volumes).
    '1.3',  # GET /v1/action_plans/{uuid}/what_if: a RECOMMENDED plan run
            # on a copy of a decision engine's compute model.
    '1.4',  # /v1/audit_pipelines (watcher-specs audit-pipeline.rst);
            # action plans: audit_pipeline_uuid, and pipelines' plans
            # listed.
]

MIN_VERSION = microversion_parse.parse_version_string(VERSIONS[0])
MAX_VERSION = microversion_parse.parse_version_string(VERSIONS[-1])
MIN_VERSION_STRING = VERSIONS[0]
MAX_VERSION_STRING = VERSIONS[-1]
MIN_EXTENSION = microversion_parse.parse_version_string(
    EXTENSION_VERSIONS[0])


# Rendering asks the same few versions for every row.
_version_of = functools.lru_cache(maxsize=64)(
    microversion_parse.parse_version_string)


class Requested(typing.NamedTuple):
    """The versions a request asked for: Watcher's API (``api``) and our
    additions (``extension``)."""
    api: microversion_parse.Version
    extension: microversion_parse.Version = MIN_EXTENSION

    def at_least(self, text):
        """``text``: 'X.Y' (infra-optim) or 'watcher-ha X.Y'."""
        family, _, number = text.rpartition(' ')
        asked = self.extension if family == EXTENSION_TYPE else self.api
        return asked >= _version_of(number)


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
    return _parse(headers, SERVICE_TYPE, VERSIONS, bare_major=True)


def parse_extension(headers):
    """The ``watcher-ha`` version asked for by ``headers``, or None if
    none is."""
    return _parse(headers, EXTENSION_TYPE, EXTENSION_VERSIONS, default=None)


def _parse(headers, service, versions, bare_major=False,
           default=MIN_VERSION):
    lowest, highest = versions[0], versions[-1]

    def invalid(value):
        return InvalidVersionHeader(header=HEADER, value=value,
                                    service=service, min=lowest, max=highest)
    try:
        text = microversion_parse.get_version(headers, service)
    except ValueError as err:
        raise invalid(str(err))
    if text is None:
        return default
    if text.strip().lower() == 'latest':
        return microversion_parse.parse_version_string(highest)
    if bare_major and text.strip() == '1':
        # Old clients send the bare major version.
        return microversion_parse.parse_version_string(lowest)
    try:
        version = microversion_parse.parse_version_string(text)
    except (TypeError, ValueError):
        raise invalid(text)
    # Watcher's words for its own family; ours names itself.
    family = '' if service == SERVICE_TYPE else service + ' '
    supported = ('The supported %sversion range is: [%s, %s].'
                 % (family, lowest, highest))
    first = microversion_parse.parse_version_string(lowest)
    if version.major != first.major:
        raise VersionNotAcceptable(
            'Mutually exclusive versions requested. Version %s requested '
            'but not supported by this service. %s' % (text, supported))
    if not version.matches(first, microversion_parse.parse_version_string(
            highest)):
        raise VersionNotAcceptable(
            'Version %s was requested but the minor version is not '
            'supported by this service. %s' % (text, supported))
    return version


def range_headers():
    return {'OpenStack-API-Minimum-Version': MIN_VERSION_STRING,
            'OpenStack-API-Maximum-Version': MAX_VERSION_STRING,
            'Vary': HEADER}


def version_header(version, extension=None):
    """The answer's version header: ours too if the request asked for
    it."""
    text = '%s %s' % (SERVICE_TYPE, version)
    if extension is not None:
        text += ', %s %s' % (EXTENSION_TYPE, extension)
    return text
