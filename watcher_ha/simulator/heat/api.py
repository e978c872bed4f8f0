"""The Orchestration API v1 (Heat) subset under ``/heat-api``, where
devstack serves it (catalog type ``orchestration``, endpoint
``.../heat-api/v1/$(project_id)s``), as python-heatclient calls it:
stacks (list, create, look up by name or id, show, update with PUT or
PATCH, delete, template, outputs), resources (list with nested_depth,
filters and with_detail; show; metadata; PATCH mark_unhealthy; signal)
and events (of a stack, of a resource, one). Routes, status codes,
bodies and Heat's error document as heat/api/openstack/v1 (26.0.0):
a lookup by name alone answers 302 to the stack's canonical URL (any
method; keystoneauth follows with the same method and body); create
201 with a Location; update 202; delete 204; mark_unhealthy and signal
200 with a JSON null.

Like the simulator's other services it takes any token; a token the
simulated Keystone issued names the stack's owner. Stacks belong to the
project in the path.
"""

import json

from watcher_ha.simulator import web
from watcher_ha.simulator.heat import engine
from watcher_ha.simulator.heat import errors
from watcher_ha.simulator.heat import listing
from watcher_ha.simulator.heat import template as template_mod
from watcher_ha.simulator.heat import views

NAMED = '/v1/{tenant_id}/stacks/{stack_name}'
STACK = NAMED + '/{stack_id}'
# What Heat looks up by a stack's name alone (its stack_lookup_subpath).
SUBPATH = NAMED + '/{path:resources|events|template}'


def _under(prefix, table):
    """The routes of ``table`` below ``prefix`` (its ``/`` the prefix
    itself, with no slash after it)."""
    return tuple((method, prefix + path, handler)
                 for method, path, handler in web.route_table(table)
                 if path != '/')


class OrchestrationAPI(web.Service):
    prefix = '/heat-api'
    routes = web.route_table('''
        GET     /                        versions
        GET     /v1/{tenant_id}/stacks   list_stacks
        POST    /v1/{tenant_id}/stacks   create_stack
    ''') + _under(SUBPATH, '''
        GET     /   lookup
        POST    /   lookup
    ''') + _under(NAMED, '''
        GET     /   lookup
        POST    /   lookup
        PUT     /   lookup
        PATCH   /   lookup
        DELETE  /   lookup
    ''') + _under(STACK, '''
        GET     /                                            show_stack
        PUT     /                                            put_stack
        PATCH   /                                            patch_stack
        DELETE  /                                            delete_stack
        GET     /template                                    show_template
        GET     /outputs                                     list_outputs
        GET     /outputs/{output_key}                        show_output
        GET     /resources                                   list_resources
        GET     /resources/{resource_name}                   show_resource
        PATCH   /resources/{resource_name}                   mark_unhealthy
        GET     /resources/{resource_name}/metadata          show_metadata
        POST    /resources/{resource_name}/signal            signal
        GET     /events                                      list_events
        GET     /resources/{resource_name}/events            list_events
        GET     /resources/{resource_name}/events/{event_id} show_event
    ''')

    @property
    def heat(self):
        return self.sim.heat

    def refusal(self, reply):
        kind = getattr(reply, 'kind', errors.WEBOB_KINDS.get(reply.status))
        return web.json_response(errors.body(reply.status, kind,
                                             reply.message), reply.status)

    def error(self, status, message):
        # The fault injection's and the router's refusals.
        return self.refusal(errors.api_refusal(status, message))

    def _base(self, req):
        return req.host_url + self.prefix + '/v1'

    def _stack(self, tenant_id, stack_name, stack_id, deleted=False):
        return self.heat.get(tenant_id, stack_name, stack_id, deleted)

    def _user(self, req):
        try:
            token = self.sim.identity.tokens.validate(
                req.headers.get('X-Auth-Token'))
        except web.Reply:
            return None, None
        return token.user.id, token.user.name

    def versions(self, req, version):
        return 300, {'versions': [{
            'id': 'v1.0', 'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': self._base(req) + '/'}]}]}

    # Stacks.

    def list_stacks(self, req, version, tenant_id):
        params = req.GET
        stacks = self.heat.listed(
            tenant_id,
            nested=listing.flag('show_nested',
                                params.get('show_nested', False)),
            deleted=listing.flag('show_deleted',
                                 params.get('show_deleted', False)))
        for key in ('name', 'id'):
            if key in params:
                stacks = [s for s in stacks
                          if getattr(s, key) in params.getall(key)]
        if 'status' in params:
            action, status = listing.split_status(params['status'])
            stacks = [s for s in stacks if s.status == status
                      and (action is None or s.action == action)]
        if 'marker' in params:
            ids = [s.id for s in stacks]
            stacks = stacks[ids.index(params['marker']) + 1:] if (
                params['marker'] in ids) else []
        body = {}
        if 'limit' in params:
            limit = listing.number('limit', params['limit'])
            if limit and len(stacks) > limit:
                stacks = stacks[:limit]
            if limit and len(stacks) == limit:
                query = dict(params, marker=stacks[-1].id)
                body['links'] = [{'rel': 'next', 'href': '%s?%s' % (
                    req.path_url, '&'.join('%s=%s' % item for item in sorted(
                        query.items())))}]
        body['stacks'] = [views.stack_summary(self._base(req), s)
                          for s in stacks]
        return 200, body

    def _instantiation(self, body, update=False):
        """(template, parameters, args) of a create or update body, with
        Heat's refusals and the simulator's."""
        if 'template_url' in body and 'template' not in body:
            raise errors.simulator_refuses('template_url')
        raw = body.get('template')
        if raw is not None:
            raw = template_mod.load(raw)
        environment = body.get('environment') or {}
        if isinstance(environment, str):
            environment = template_mod.load(environment)
        extra = sorted(key for key, value in environment.items()
                       if key != 'parameters' and value)
        if extra or body.get('files') or body.get('environment_files') or (
                body.get('adopt_stack_data')):
            raise errors.simulator_refuses(
                'An environment with %s, files or adopt data'
                % ', '.join(extra or ['nothing else']))
        parameters = dict(environment.get('parameters') or {})
        parameters.update(body.get('parameters') or {})
        args = {}
        if 'timeout_mins' in body:
            args['timeout_mins'] = listing.number('timeout_mins',
                                                  body['timeout_mins'])
        if body.get('tags') is not None:
            tags = body['tags']
            args['tags'] = tags if isinstance(tags, list) else [
                tag.strip() for tag in str(tags).split(',') if tag.strip()]
        if 'converge' in body:
            if not update:
                raise errors.api_refusal(400, 'converge flag only supported '
                                              'in stack update (or update '
                                              'preview) request.')
            args['converge'] = listing.flag('converge', body['converge'])
        if not listing.flag('disable_rollback',
                            body.get('disable_rollback', True)):
            raise errors.simulator_refuses('A rollback (disable_rollback '
                                           'false)')
        args['clear_parameters'] = body.get('clear_parameters') or []
        return raw, parameters, args

    def create_stack(self, req, version, tenant_id):
        body = web.body_of(req)
        if 'stack_name' not in body:
            raise errors.api_refusal(400, 'No stack name specified')
        raw, parameters, args = self._instantiation(body)
        if raw is None:
            raise errors.api_refusal(400, 'No template specified')
        stack = self.heat.create_stack(tenant_id, body['stack_name'], raw,
                                       parameters, args, self._user(req))
        links = views.stack_links(self._base(req), stack)
        return 201, {'stack': {'id': stack.id, 'links': links}}, {
            'Location': links[0]['href']}

    def lookup(self, req, version, tenant_id, stack_name, path=None):
        stack = self.heat.find(tenant_id, stack_name)
        location = '%s/%s' % (self._base(req), views.stack_path(stack))
        if path:
            location += '/' + path
        if req.query_string:
            location += '?' + req.query_string
        return 302, None, {'Location': location}

    def _outputs(self, stack):
        found = []
        for name, definition in stack.template.outputs.items():
            try:
                value = template_mod.resolve(
                    definition.get('value'), self.heat_scope(stack))
            except errors.HeatError as err:
                found.append(views.output(name, definition, error=err.message))
            else:
                found.append(views.output(name, definition, value))
        return found

    def heat_scope(self, stack):
        return engine.Scope(self.heat, stack)

    def show_stack(self, req, version, tenant_id, stack_name, stack_id):
        stack = self._stack(tenant_id, stack_name, stack_id, deleted=True)
        resolve = listing.flag('resolve_outputs',
                               req.GET.get('resolve_outputs', True))
        deleted = (stack.action, stack.status) == ('DELETE', 'COMPLETE')
        outputs = self._outputs(stack) if resolve and not deleted else None
        return 200, {'stack': views.stack_detail(self._base(req), stack,
                                                 outputs)}

    def _update(self, req, tenant_id, stack_name, stack_id, existing):
        stack = self._stack(tenant_id, stack_name, stack_id)
        raw, parameters, args = self._instantiation(web.body_of(req),
                                                    update=True)
        if raw is None and not existing:
            raise errors.api_refusal(400, 'No template specified')
        self.heat.update_stack(stack, raw, parameters, args, existing)
        return 202, None

    def put_stack(self, req, version, tenant_id, stack_name, stack_id):
        return self._update(req, tenant_id, stack_name, stack_id, False)

    def patch_stack(self, req, version, tenant_id, stack_name, stack_id):
        return self._update(req, tenant_id, stack_name, stack_id, True)

    def delete_stack(self, req, version, tenant_id, stack_name, stack_id):
        self.heat.delete_stack(self._stack(tenant_id, stack_name, stack_id))
        return 204, None

    def show_template(self, req, version, tenant_id, stack_name, stack_id):
        return 200, self._stack(tenant_id, stack_name, stack_id,
                                deleted=True).template.raw

    def list_outputs(self, req, version, tenant_id, stack_name, stack_id):
        stack = self._stack(tenant_id, stack_name, stack_id)
        return 200, {'outputs': [
            views.output(name, definition, resolved=False)
            for name, definition in stack.template.outputs.items()]}

    def show_output(self, req, version, tenant_id, stack_name, stack_id,
                    output_key):
        stack = self._stack(tenant_id, stack_name, stack_id)
        for found in self._outputs(stack):
            if found['output_key'] == output_key:
                return 200, {'output': found}
        raise errors.HeatError(404, 'NotFound', 'Specified output key %s '
                                                'not found.' % output_key)

    # Resources.

    def _resource_view(self, req, row, detail):
        attributes = None
        if detail:
            kind = self.heat.kind(row.type)
            attributes = {name: kind.get_attribute(self.heat, row, name, [])
                          for name in kind.attributes}
        return views.resource(self._base(req), row, detail, attributes)

    def list_resources(self, req, version, tenant_id, stack_name, stack_id):
        stack = self._stack(tenant_id, stack_name, stack_id, deleted=True)
        rows, detail = listing.resources(stack, req.GET)
        return 200, {'resources': [self._resource_view(req, row, detail)
                                   for row in rows]}

    def show_resource(self, req, version, tenant_id, stack_name, stack_id,
                      resource_name):
        row = self.heat.named(self._stack(tenant_id, stack_name, stack_id),
                              resource_name)
        return 200, {'resource': self._resource_view(req, row, True)}

    def show_metadata(self, req, version, tenant_id, stack_name, stack_id,
                      resource_name):
        row = self.heat.named(self._stack(tenant_id, stack_name, stack_id),
                              resource_name)
        return 200, {'metadata': row.metadata}

    def mark_unhealthy(self, req, version, tenant_id, stack_name, stack_id,
                       resource_name):
        body = web.body_of(req)
        invalid = set(body) - {'mark_unhealthy', 'resource_status_reason'}
        if invalid:
            raise errors.api_refusal(400, 'Invalid keys in resource mark '
                                          'unhealthy %s' % invalid)
        if 'mark_unhealthy' not in body:
            raise errors.api_refusal(400, 'Missing mandatory (mark_unhealthy)'
                                          ' key from mark unhealthy request')
        unhealthy = listing.flag('mark_unhealthy', body['mark_unhealthy'])
        stack = self._stack(tenant_id, stack_name, stack_id)
        self.heat.mark_unhealthy(stack, resource_name, unhealthy,
                                 body.get('resource_status_reason', ''))
        return 200, web.JSON_NULL

    def signal(self, req, version, tenant_id, stack_name, stack_id,
               resource_name):
        details = None
        if req.body:
            try:
                details = json.loads(req.body)
            except ValueError as err:
                raise errors.api_refusal(400, str(err))
        stack = self._stack(tenant_id, stack_name, stack_id)
        self.heat.signal(stack, resource_name, details)
        return 200, web.JSON_NULL

    # Events.

    def list_events(self, req, version, tenant_id, stack_name, stack_id,
                    resource_name=None):
        stack = self._stack(tenant_id, stack_name, stack_id, deleted=True)
        found, root = listing.events(stack, req.GET, resource_name)
        found = [views.event(self._base(req), e, root=root) for e in found]
        if not found and resource_name is not None:
            raise errors.api_refusal(404, 'No events found for resource %s'
                                     % resource_name)
        return 200, {'events': found}

    def show_event(self, req, version, tenant_id, stack_name, stack_id,
                   resource_name, event_id):
        stack = self._stack(tenant_id, stack_name, stack_id, deleted=True)
        for found in stack.events:
            if found.uuid == event_id and found.resource_name == \
                    resource_name:
                return 200, {'event': views.event(self._base(req), found,
                                                  detail=True)}
        raise errors.api_refusal(404, 'No event %s found' % event_id)

