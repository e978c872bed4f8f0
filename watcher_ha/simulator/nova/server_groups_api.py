"""The Compute API's server groups (os-server-groups), with the
policies and rules of each microversion."""

from watcher_ha.simulator import web
from watcher_ha.simulator.nova import api_base
from watcher_ha.simulator.nova import server_groups


class ServerGroupsAPI(api_base.ComputeService):

    @staticmethod
    def _server_group_view(group, version):
        view = {'id': group.id, 'name': group.name,
                'members': list(group.members)}
        if version >= (2, 64):
            view.update(policy=group.policy, rules=dict(group.rules))
        else:
            view.update(policies=[group.policy], metadata={})
        if version >= (2, 13):
            view.update(project_id=group.project_id, user_id=group.user_id)
        return view

    def list_server_groups(self, req, version):
        everyone = self._boolean('all_projects',
                                 req.GET.get('all_projects', False))
        groups = [g for g in self.cloud.server_groups.values()
                  if everyone or g.project_id == 'admin-project']
        try:
            offset = int(req.GET.get('offset', 0))
        except ValueError:
            raise web.Reply(400, 'Invalid input for query parameters '
                                 'offset.')
        groups = groups[offset:offset + self._limit(req)]
        return 200, {'server_groups': [self._server_group_view(g, version)
                                       for g in groups]}

    def show_server_group(self, req, version, ident):
        return 200, {'server_group': self._server_group_view(
            server_groups.get(self.cloud, ident), version)}

    def delete_server_group(self, req, version, ident):
        server_groups.delete(self.cloud, ident)
        return 204, None

    def create_server_group(self, req, version):
        spec = web.body_of(req).get('server_group')
        if not isinstance(spec, dict) or not spec.get('name'):
            raise web.Reply(400, "Invalid input for field/attribute "
                                 "server_group. 'name' is a required "
                                 "property")
        if version >= (2, 64):
            policy, rules = spec.get('policy'), spec.get('rules') or {}
            allowed = {'name', 'policy', 'rules'}
        else:
            policies = spec.get('policies')
            policy = (policies[0] if isinstance(policies, list)
                      and len(policies) == 1 else None)
            rules, allowed = {}, {'name', 'policies'}
        web.refuse_unexpected(spec, allowed, 'server_group')
        if policy not in server_groups.POLICIES:
            raise web.Reply(400, 'Invalid input for field/attribute policy. '
                                 'Value: %s. %r is not one of %s'
                            % (policy, policy,
                               list(server_groups.POLICIES)))
        self._check_rules(policy, rules)
        group = server_groups.create(self.cloud, spec['name'], policy, rules)
        return 200, {'server_group': self._server_group_view(group,
                                                             version)}

    @staticmethod
    def _check_rules(policy, rules):
        if not isinstance(rules, dict) or set(rules) - {
                'max_server_per_host'}:
            raise web.Reply(400, 'Invalid input for field/attribute rules. '
                                 'Only max_server_per_host is allowed.')
        if rules and policy != 'anti-affinity':
            raise web.Reply(400, 'Invalid input for field/attribute '
                                 'policy. Only anti-affinity policy '
                                 'supports rules.')
        limit = rules.get('max_server_per_host', 1)
        if (isinstance(limit, bool) or not str(limit).isdigit()
                or int(limit) < 1):
            raise web.Reply(400, 'Invalid input for field/attribute '
                                 'max_server_per_host. Value: %s. It must '
                                 'be a positive integer.' % limit)
        if rules:
            rules['max_server_per_host'] = int(limit)
