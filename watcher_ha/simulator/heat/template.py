"""The subset of HOT (Heat Orchestration Template) the simulated Heat
serves, with Heat's refusals.

Served: ``heat_template_version`` from 2016-10-14 (newton) to 2021-04-16
(wallaby), dates or release names; ``description``;
``parameter_groups`` (Heat only shows them); ``parameters`` of Heat's
five types with ``default``, ``label``, ``description``, ``hidden``,
``immutable``, ``tags``; ``resources`` with ``type``, ``properties``,
``metadata``, ``depends_on``, ``description`` and ``deletion_policy:
Delete``; ``outputs``; the intrinsic functions ``get_param`` (and the
pseudo parameters ``OS::stack_id``, ``OS::stack_name``,
``OS::project_id``), ``get_resource``, ``get_attr`` (with a path),
``str_replace`` and ``list_join``.

Refused rather than ignored: any other template version (Heat's
InvalidTemplateVersion), an unknown section (InvalidTemplateSection),
``conditions``, parameter ``constraints``, the resource keys
``update_policy``, ``condition``, ``external_id``, a deletion policy
other than Delete, and Heat's other intrinsic functions (``repeat``,
``if``, ``yaql``...): 400 in Heat's shape, saying the simulator does not
serve it. A one-key map whose key is no function of Heat's is data, as
in Heat.
"""

import json

import yaml

from watcher_ha.simulator.heat import errors

VERSION_KEY = 'heat_template_version'
# Heat's heat.templates entry points (setup.cfg) served here.
VERSIONS = ('2016-10-14', 'newton', '2017-02-24', 'ocata', '2017-09-01',
            'pike', '2018-03-02', 'queens', '2018-08-31', 'rocky',
            '2021-04-16', 'wallaby')
SECTIONS = (VERSION_KEY, 'description', 'parameter_groups', 'parameters',
            'resources', 'outputs', 'conditions')
RESOURCE_KEYS = ('type', 'properties', 'metadata', 'depends_on',
                 'deletion_policy', 'update_policy', 'description',
                 'condition', 'external_id')
UNSERVED_RESOURCE_KEYS = ('update_policy', 'condition', 'external_id')
PARAMETER_KEYS = ('type', 'label', 'description', 'default', 'hidden',
                  'constraints', 'immutable', 'tags')
PARAMETER_TYPES = ('string', 'number', 'comma_delimited_list', 'json',
                   'boolean')
PSEUDO_PARAMETERS = ('OS::stack_id', 'OS::stack_name', 'OS::project_id')
# Heat's intrinsic functions of these versions that the simulator does
# not evaluate: a template using one is refused.
UNSERVED_FUNCTIONS = (
    'get_file', 'repeat', 'digest', 'resource_facade', 'str_split',
    'map_merge', 'map_replace', 'yaql', 'if', 'equals', 'not', 'and', 'or',
    'filter', 'make_url', 'list_concat', 'list_concat_unique', 'contains',
    'str_replace_strict', 'str_replace_vstrict')
TRUE_WORDS = ('1', 't', 'true', 'on', 'y', 'yes')
FALSE_WORDS = ('0', 'f', 'false', 'off', 'n', 'no')


def load(template):
    """The template of a request: a map, or YAML or JSON text."""
    if isinstance(template, str):
        try:
            template = yaml.safe_load(template)
        except yaml.YAMLError as err:
            raise errors.api_refusal(400, 'Template not in valid format: %s'
                                     % err)
    if not isinstance(template, dict):
        raise errors.api_refusal(400, 'Template not in valid format: the '
                                      'template is not a map')
    return template


class Definition:
    """A resource as a template declares it, functions unresolved."""

    def __init__(self, name, snippet):
        if not isinstance(snippet, dict) or not snippet:
            raise errors.invalid('Each resource must contain a type key.')
        unknown = sorted(set(snippet) - set(RESOURCE_KEYS))
        if unknown:
            raise errors.invalid('Invalid keyword(s) inside a resource '
                                 'definition: %s' % ', '.join(unknown))
        for key in UNSERVED_RESOURCE_KEYS:
            if key in snippet:
                raise errors.simulator_refuses('The resource key %s' % key,
                                               path=['resources', name])
        if snippet.get('deletion_policy', 'Delete') != 'Delete':
            raise errors.simulator_refuses(
                'deletion_policy %s' % snippet['deletion_policy'],
                path=['resources', name])
        self.name = name
        self.type = snippet.get('type')
        if not isinstance(self.type, str) or not self.type:
            raise errors.invalid('Resource "%s" has no type' % name)
        self.properties = snippet.get('properties') or {}
        if not isinstance(self.properties, dict):
            raise errors.invalid('"properties" must be a map',
                                 path=['resources', name])
        self.metadata = snippet.get('metadata') or {}
        depends_on = snippet.get('depends_on') or []
        self.depends_on = ((depends_on,) if isinstance(depends_on, str)
                           else tuple(depends_on))
        self.description = snippet.get('description', '')

    def requires(self):
        """The resources this one needs first: those its properties and
        metadata name, and its ``depends_on``."""
        return (references(self.properties) | references(self.metadata)
                | set(self.depends_on))


class Template:
    """A parsed HOT template: its parameters, resource definitions and
    outputs, checked as Heat checks them before it accepts a stack."""

    def __init__(self, raw, versions=VERSIONS):
        """``versions``: those accepted (a group's nested template is
        written by Heat at 2015-04-30)."""
        self.raw = raw
        version = raw.get(VERSION_KEY)
        if version is None:
            raise errors.HeatError(400, 'InvalidTemplateVersion',
                                   'The template version is invalid: '
                                   'Template version was not provided')
        if str(version) not in versions:
            raise errors.HeatError(
                400, 'InvalidTemplateVersion',
                'The template version is invalid: "%s: %s". "%s" should be '
                'one of: %s' % (VERSION_KEY, version, VERSION_KEY,
                                ', '.join(sorted(VERSIONS))))
        self.version = str(version)
        for section in raw:
            if section not in SECTIONS:
                raise errors.HeatError(400, 'InvalidTemplateSection',
                                       'The template section is invalid: '
                                       '%s' % section)
        if raw.get('conditions'):
            raise errors.simulator_refuses('The conditions section')
        self.description = raw.get('description', 'No description')
        self.parameters = raw.get('parameters') or {}
        for name, schema in self.parameters.items():
            _check_parameter(name, schema)
        self.resources = {name: Definition(name, snippet) for name, snippet
                          in (raw.get('resources') or {}).items()}
        self.outputs = raw.get('outputs') or {}
        self._check_references()
        self.order = dependency_order(
            {name: d.requires() for name, d in self.resources.items()})

    def _check_references(self):
        for definition in self.resources.values():
            _check_functions(definition.properties,
                             ['resources', definition.name, 'properties'])
            for name in definition.requires():
                if name not in self.resources:
                    raise errors.HeatError(
                        400, 'InvalidTemplateReference',
                        'The specified reference "%s" (in %s) is incorrect.'
                        % (name, definition.name))
            for name in params_used(definition.properties):
                if (name not in self.parameters
                        and name not in PSEUDO_PARAMETERS):
                    raise errors.HeatError(400, 'UserParameterMissing',
                                           'The Parameter (%s) was not '
                                           'provided.' % name)
        for name, output in self.outputs.items():
            _check_functions(output, ['outputs', name])

    def required_by(self, name):
        """The resources that need ``name`` (Heat's required_by)."""
        return sorted(other for other, d in self.resources.items()
                      if name in d.requires())

    def parameter_values(self, given, pseudo):
        """Each parameter's value: ``given`` by the user, else its default,
        converted to its type; plus the pseudo parameters."""
        for name in given:
            if name not in self.parameters:
                raise errors.HeatError(400, 'UnknownUserParameter',
                                       'The Parameter (%s) was not defined '
                                       'in template.' % name)
        values = dict(pseudo)
        for name, schema in self.parameters.items():
            if name in given:
                raw = given[name]
            elif 'default' in schema:
                raw = schema['default']
            else:
                raise errors.HeatError(400, 'UserParameterMissing',
                                       'The Parameter (%s) was not '
                                       'provided.' % name)
            values[name] = _convert(name, schema.get('type'), raw)
        return values


def _check_parameter(name, schema):
    if not isinstance(schema, dict):
        raise errors.invalid('Invalid parameter schema for %s' % name)
    unknown = sorted(set(schema) - set(PARAMETER_KEYS))
    if unknown:
        raise errors.invalid('Invalid key \'%s\' for parameter (%s)'
                             % (unknown[0], name))
    if schema.get('type') not in PARAMETER_TYPES:
        raise errors.invalid('Invalid type (%s)' % schema.get('type'),
                             path=['parameters', name])
    if 'constraints' in schema:
        raise errors.simulator_refuses('A parameter\'s constraints',
                                       path=['parameters', name])


def _convert(name, kind, value):
    """``value`` as a parameter of type ``kind`` holds it."""
    try:
        if kind == 'number':
            if isinstance(value, bool):
                raise ValueError('%r is not a number' % value)
            if isinstance(value, (int, float)):
                return value
            text = str(value).strip()
            return int(text) if text.lstrip('-').isdigit() else float(text)
        if kind == 'boolean':
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word not in TRUE_WORDS + FALSE_WORDS:
                raise ValueError('Unrecognized value "%s", acceptable '
                                 'values are: %s' % (
                                     value, ', '.join(TRUE_WORDS
                                                      + FALSE_WORDS)))
            return word in TRUE_WORDS
        if kind == 'comma_delimited_list':
            if isinstance(value, list):
                return [str(item) for item in value]
            return [item.strip() for item in str(value).split(',')
                    if item.strip()]
        if kind == 'json':
            return value if isinstance(value, (dict, list)) else json.loads(
                value)
    except ValueError as err:
        raise errors.invalid('Parameter \'%s\' is invalid: %s' % (name, err))
    return value if isinstance(value, str) else str(value)


def _function(snippet):
    """(name, arguments) when ``snippet`` is a function call of Heat's."""
    if isinstance(snippet, dict) and len(snippet) == 1:
        [(name, args)] = snippet.items()
        if name in FUNCTIONS or name in UNSERVED_FUNCTIONS:
            return name, args
    return None


def _walk(snippet):
    """Every function call in ``snippet``, outermost first."""
    call = _function(snippet)
    if call is not None:
        yield call
        yield from _walk(call[1])
    elif isinstance(snippet, dict):
        for value in snippet.values():
            yield from _walk(value)
    elif isinstance(snippet, list):
        for value in snippet:
            yield from _walk(value)


def _check_functions(snippet, path):
    for name, args in _walk(snippet):
        if name in UNSERVED_FUNCTIONS:
            raise errors.simulator_refuses('The function %s' % name,
                                           path=path)
        if name == 'get_attr' and not (isinstance(args, list)
                                       and len(args) >= 2):
            raise errors.invalid('Arguments to "get_attr" must be of the '
                                 'form [resource_name, attribute, (path), '
                                 '...]', path=path)


def references(snippet):
    """The resources ``snippet`` names through get_resource and
    get_attr."""
    found = set()
    for name, args in _walk(snippet):
        if name == 'get_resource' and isinstance(args, str):
            found.add(args)
        elif name == 'get_attr' and isinstance(args, list) and args:
            found.add(args[0])
    return found


def attributes_used(snippet):
    """(resource, attribute) of every get_attr in ``snippet``."""
    for name, args in _walk(snippet):
        if name == 'get_attr' and isinstance(args, list) and len(args) > 1:
            yield args[0], args[1]


def params_used(snippet):
    found = set()
    for name, args in _walk(snippet):
        if name == 'get_param':
            first = args[0] if isinstance(args, list) and args else args
            if isinstance(first, str):
                found.add(first)
    return found


def dependency_order(requires):
    """The names of ``requires`` ({name: names it needs}) each after what
    it needs, ties by name; Heat's CircularDependencyException on a
    cycle."""
    ordered, done = [], set()
    remaining = dict(requires)
    while remaining:
        ready = sorted(name for name, needs in remaining.items()
                       if not (set(needs) & set(remaining)) - {name}
                       and name not in needs)
        if not ready:
            raise errors.HeatError(400, 'CircularDependencyException',
                                   'Circular Dependency Found: %s'
                                   % ', '.join(sorted(remaining)))
        for name in ready:
            ordered.append(name)
            done.add(name)
            del remaining[name]
    return ordered


def resolve(snippet, scope):
    """``snippet`` with its functions evaluated against ``scope`` (its
    param, reference and attribute lookups)."""
    call = _function(snippet)
    if call is not None:
        name, args = call
        return FUNCTIONS[name](resolve(args, scope), scope)
    if isinstance(snippet, dict):
        return {key: resolve(value, scope) for key, value in snippet.items()}
    if isinstance(snippet, list):
        return [resolve(value, scope) for value in snippet]
    return snippet


def select(value, path):
    """``value`` followed along ``path`` (map keys, list indexes); None
    where the path leads nowhere, as Heat's select_from_attribute."""
    for key in path:
        try:
            value = value[int(key) if isinstance(value, list) else key]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    return value


def _get_param(args, scope):
    name, *path = args if isinstance(args, list) else [args]
    return select(scope.param(name), path)


def _get_attr(args, scope):
    resource, attribute, *path = args
    return scope.attribute(resource, attribute, path)


def _text(value):
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return '' if value is None else str(value)


def _str_replace(args, scope):
    if not isinstance(args, dict) or set(args) != {'template', 'params'}:
        raise errors.invalid('"str_replace" syntax should be str_replace:\\n'
                             '  template: <template string>\\n'
                             '  params: <parameter mappings>')
    text = _text(args['template'])
    # Longest keys first, as Heat replaces them.
    for key in sorted(args['params'], key=len, reverse=True):
        text = text.replace(key, _text(args['params'][key]))
    return text


def _list_join(args, scope):
    delimiter, *lists = args
    items = [item for sequence in lists for item in (sequence or [])]
    return delimiter.join(_text(item) for item in items)


FUNCTIONS = {
    'get_param': _get_param,
    'get_resource': lambda args, scope: scope.reference(args),
    'get_attr': _get_attr,
    'str_replace': _str_replace,
    'list_join': _list_join,
}
