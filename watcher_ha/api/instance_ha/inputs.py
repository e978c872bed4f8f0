"""Request bodies of the instance-ha API: each input field declared once,
the create and update schemas of every version derived from the
declarations, and Masakari's error messages.

A field is required on create or not, updatable or not, and exists from
a version on. Update bodies must carry at least one field.
"""

import dataclasses
import string

import jsonschema
from oslo_utils import strutils
from oslo_utils import timeutils
from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.common.instance_ha import statuses

NAME_RULE = ("An invalid 'name' value was provided. The name must be: "
             "printable characters. Can not start or end with whitespace.")

# Masakari's order, which its error messages list.
BOOLEAN_VALUES = [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on',
                  'YES', 'Yes', 'yes', False, 'False', 'FALSE', 'false',
                  '0', 'OFF', 'Off', 'off', 'NO', 'No', 'no']

NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'format': 'name'}
BOOLEAN = {'type': ['boolean', 'string'], 'enum': BOOLEAN_VALUES}


@dataclasses.dataclass(frozen=True)
class Input:
    name: str
    schema: dict
    required: bool = False      # on create
    updatable: bool = True
    since: tuple = (1, 0)


@dataclasses.dataclass(frozen=True)
class Body:
    wrapper: str                # the one key of the body
    inputs: tuple

    def _properties(self, version, inputs):
        return {i.name: i.schema for i in inputs
                if (version.major, version.minor) >= i.since}

    def _wrapped(self, inner):
        return {'type': 'object', 'properties': {self.wrapper: inner},
                'required': [self.wrapper], 'additionalProperties': False}

    def create_schema(self, version):
        properties = self._properties(version, self.inputs)
        return self._wrapped({
            'type': 'object', 'properties': properties,
            'required': [i.name for i in self.inputs
                         if i.required and i.name in properties],
            'additionalProperties': False})

    def update_schema(self, version):
        properties = self._properties(
            version, [i for i in self.inputs if i.updatable])
        return self._wrapped({
            'type': 'object', 'properties': properties,
            'additionalProperties': False,
            'anyOf': [{'required': [name]} for name in properties]})


SEGMENT = Body('segment', (
    Input('name', NAME, required=True),
    Input('description', {'type': ['string', 'null'], 'minLength': 0,
                          'maxLength': 255}),
    Input('recovery_method', {'type': 'string',
                              'enum': list(statuses.RECOVERY_METHODS)},
          required=True),
    Input('service_type', {'type': 'string', 'minLength': 1,
                           'maxLength': 255}, required=True),
    Input('enabled', BOOLEAN, since=(1, 2)),
))

HOST = Body('host', (
    Input('name', NAME, required=True),
    Input('type', {'type': 'string', 'minLength': 1, 'maxLength': 255,
                   'pattern': '^[a-zA-Z0-9]*$'}, required=True),
    Input('control_attributes', {'type': 'string', 'minLength': 0,
                                 'maxLength': 255}, required=True),
    Input('reserved', BOOLEAN),
    Input('on_maintenance', BOOLEAN),
))

NOTIFICATION = Body('notification', (
    Input('type', {'type': 'string',
                   'enum': tuple(statuses.NOTIFICATION_TYPES)},
          required=True, updatable=False),
    Input('hostname', {'type': 'string', 'minLength': 1, 'maxLength': 255,
                       'pattern': '^[a-zA-Z0-9-._]*$'},
          required=True, updatable=False),
    Input('generated_time', {'type': 'string', 'format': 'date-time'},
          required=True, updatable=False),
    Input('payload', {'type': 'object'}, required=True, updatable=False),
))

# Each notification type's payload, checked once the body is valid:
# what masakari-monitors sends.
_EVENTS = ('STARTED', 'STOPPED')
PAYLOADS = {
    statuses.COMPUTE_HOST: {
        'type': 'object',
        'properties': {
            'event': {'type': 'string', 'enum': _EVENTS},
            'host_status': {'type': 'string',
                            'enum': ('NORMAL', 'UNKNOWN')},
            'cluster_status': {'type': 'string',
                               'enum': ('ONLINE', 'OFFLINE')}},
        'required': ['event'], 'additionalProperties': False},
    statuses.VM: {
        'type': 'object',
        'properties': {
            'instance_uuid': {'type': 'string', 'format': 'uuid'},
            'vir_domain_event': {'type': 'string', 'minLength': 1,
                                 'maxLength': 255},
            'event': {'type': 'string', 'minLength': 1,
                      'maxLength': 255}},
        'required': ['instance_uuid', 'vir_domain_event', 'event'],
        'additionalProperties': False},
    statuses.PROCESS: {
        'type': 'object',
        'properties': {
            'process_name': {'type': 'string', 'minLength': 1,
                             'maxLength': 255},
            'event': {'type': 'string', 'enum': _EVENTS}},
        'required': ['process_name', 'event'],
        'additionalProperties': False},
}

FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks('date-time', raises=ValueError)
def _date_time(value):
    if isinstance(value, str):
        timeutils.parse_isotime(value)
    return True


@FORMATS.checks('uuid')
def _uuid(value):
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


@FORMATS.checks('name')
def _name(value):
    if not isinstance(value, str):
        return True
    return value == value.strip() and all(
        char in string.printable or not char.isascii() and char.isprintable()
        for char in value)


def _message(error):
    if error.validator == 'format' and error.validator_value == 'name':
        return NAME_RULE
    if error.path:
        return ('Invalid input for field/attribute %s. Value: %s. %s'
                % (error.path[-1], error.instance, error.message))
    return error.message


def validate(schema, body):
    """Raise a 400 with Masakari's message for the first problem of
    ``body`` (in the schema's order, as Masakari reports it)."""
    validator = jsonschema.Draft4Validator(schema, format_checker=FORMATS)
    for error in validator.iter_errors(body):
        raise exception.Invalid(_message(error))


def boolean(value):
    """A boolean field as given: a JSON boolean or one of its strings."""
    if isinstance(value, bool):
        return value
    return strutils.bool_from_string(value, strict=True)


def create_values(body_spec, version, body):
    validate(body_spec.create_schema(version), body)
    return dict(body[body_spec.wrapper])


def update_values(body_spec, version, body):
    validate(body_spec.update_schema(version), body)
    return dict(body[body_spec.wrapper])


def notification_values(version, body):
    values = create_values(NOTIFICATION, version, body)
    validate(PAYLOADS[values['type']], values['payload'])
    values['generated_time'] = timeutils.normalize_time(
        timeutils.parse_isotime(values['generated_time']))
    return values
