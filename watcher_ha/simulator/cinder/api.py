"""The Block Storage API v3 subset (Cinder), with Cinder's JSON shapes,
microversions and codes: volumes, their actions (migrate, retype,
extend), attachments, back-end pools, volume types and services. Every
path is served with and without a project id after ``/v3``, as Cinder
does."""

from watcher_ha.simulator import web
from watcher_ha.simulator.cinder import moves
from watcher_ha.simulator.cinder.notifications import api_time

# Cinder's osapi_max_limit.
MAX_LIMIT = 1000
NEW_ATTACH = (3, 27)
NEW_ATTACH_COMPLETION = (3, 44)
VOLUME_EXTEND_INUSE = (3, 42)
SUPPORT_COUNT_INFO = (3, 45)
ATTACHMENT_CREATE_MODE_ARG = (3, 54)
TRUE_WORDS = ('1', 't', 'true', 'on', 'y', 'yes')


class CinderVersions(web.Versions):
    """Cinder's refusals of a microversion."""

    def invalid(self, asked):
        return web.Reply(400, 'API Version String %s is of invalid format. '
                              'Must be of format MajorNum.MinorNum.' % asked)

    def unsupported(self, asked, version):
        return web.Reply(406, 'Version %s is not supported by the API. '
                              'Minimum is %s and maximum is %s.'
                         % (asked, self.minimum, self.maximum))


def _routes(table):
    """Each route of ``table`` under /v3 and /v3/{project_id}."""
    found = list(web.route_table('''
        GET  /     versions
        GET  /v3/  version
    '''))
    for method, path, handler in table:
        found.append((method, '/v3' + path, handler))
    for method, path, handler in table:
        found.append((method, '/v3/{project_id}' + path, handler))
    return tuple(found)


class BlockStorageAPI(web.Service):
    prefix = '/volume'
    microversions = CinderVersions('volume', '3.0', '3.71')
    routes = _routes(web.route_table('''
        GET     /volumes                     list_volumes
        GET     /volumes/detail              list_volumes_detail
        POST    /volumes                     create_volume
        GET     /volumes/{ident}             show_volume
        DELETE  /volumes/{ident}             delete_volume
        POST    /volumes/{ident}/action      volume_action
        GET     /attachments                 list_attachments
        GET     /attachments/detail          list_attachments_detail
        POST    /attachments                 create_attachment
        GET     /attachments/{ident}         show_attachment
        PUT     /attachments/{ident}         update_attachment
        DELETE  /attachments/{ident}         delete_attachment
        POST    /attachments/{ident}/action  attachment_action
        GET     /scheduler-stats/get_pools   get_pools
        GET     /types                       list_types
        GET     /types/{ident}               show_type
        GET     /types/{ident}/extra_specs   type_extra_specs
        GET     /os-services                 list_services
    '''))

    def __init__(self, simulator):
        super().__init__(simulator)
        self.storage = simulator.cloud.storage

    def _base(self, req, project_id):
        return '%s%s/v3/%s' % (req.host_url, self.prefix,
                               project_id or 'admin-project')

    def _version_view(self, req):
        return {'id': 'v3.0', 'status': 'CURRENT',
                'version': str(self.microversions.maximum),
                'min_version': '3.0', 'updated': '2023-08-31T00:00:00Z',
                'links': [{'rel': 'self',
                           'href': req.host_url + self.prefix + '/v3/'}],
                'media-types': [{'base': 'application/json',
                                 'type': 'application/vnd.openstack.'
                                         'volume+json;version=3'}]}

    def versions(self, req, version):
        return 300, {'versions': [self._version_view(req)]}

    def version(self, req, version):
        return 200, {'version': self._version_view(req)}

    # Volumes.

    def _volume_view(self, req, volume, version, project_id, detail=True):
        href = '%s/volumes/%s' % (self._base(req, project_id), volume.id)
        links = [{'rel': 'self', 'href': href},
                 {'rel': 'bookmark', 'href': '%s%s/volumes/%s' % (
                     req.host_url, self.prefix, volume.id)}]
        if not detail:
            return {'id': volume.id, 'name': volume.name, 'links': links}
        storage = self.storage
        volume_type = storage.types.get(volume.type_id)
        pool = storage.pool_of(volume)
        view = {
            'id': volume.id, 'status': volume.status, 'size': volume.size,
            'availability_zone': volume.availability_zone,
            'created_at': api_time(volume.created_at),
            'updated_at': api_time(volume.updated_at),
            'name': volume.name, 'description': volume.description,
            'volume_type': volume_type.name if volume_type else None,
            'snapshot_id': None, 'source_volid': None,
            'metadata': dict(volume.metadata), 'links': links,
            'user_id': volume.user_id,
            'bootable': str(volume.bootable).lower(), 'encrypted': False,
            'replication_status': None, 'consistencygroup_id': None,
            'multiattach': volume.multiattach,
            'attachments': [{
                'id': volume.id, 'attachment_id': a.id,
                'volume_id': volume.id, 'server_id': a.server_uuid,
                'host_name': a.attached_host, 'device': a.mountpoint,
                'attached_at': api_time(a.attach_time)}
                for a in volume.attachments if a.status == 'attached'],
            'migration_status': volume.migration_status,
            'os-vol-host-attr:host': volume.pool,
            'os-vol-tenant-attr:tenant_id': volume.project_id,
            'os-vol-mig-status-attr:migstat': volume.migration_status,
            'os-vol-mig-status-attr:name_id': None,
        }
        if version >= (3, 13):
            view['group_id'] = None
        if version >= (3, 21):
            view['provider_id'] = None
        if version >= (3, 48):
            view['shared_targets'] = False
            view['service_uuid'] = (pool.backend.service_uuid if pool
                                    else None)
        if version >= (3, 61):
            view['cluster_name'] = None
        if version >= (3, 63):
            view['volume_type_id'] = volume.type_id
        if version >= (3, 65):
            view['consumes_quota'] = True
        return view

    def _limit(self, req):
        try:
            limit = int(req.GET.get('limit', MAX_LIMIT))
        except ValueError:
            raise web.Reply(400, 'Invalid input received: limit param must '
                                 'be an integer')
        if limit < 0:
            raise web.Reply(400, 'Invalid input received: limit param must '
                                 'be positive')
        return min(limit, MAX_LIMIT)

    def _selected(self, req, project_id):
        """The volumes the query's filters select, newest first."""
        params = req.GET
        everyone = params.get('all_tenants', '').lower() in TRUE_WORDS
        project = params.get('project_id') if everyone else (
            project_id or 'admin-project')
        tests = []
        if project:
            tests.append(lambda v: v.project_id == project)
        for name, attribute in (('status', 'status'), ('name', 'name'),
                                ('host', 'pool')):
            if name in params:
                tests.append(lambda v, a=attribute, w=params[name]:
                             getattr(v, a) == w)
        return [volume for volume in (self.storage.volumes[ident] for ident
                                      in reversed(self.storage.order))
                if all(test(volume) for test in tests)]

    def list_volumes(self, req, version, project_id=None, detail=False):
        selected = self._selected(req, project_id)
        limit = self._limit(req)
        marker = req.GET.get('marker')
        start = 0
        if marker is not None:
            positions = [i for i, v in enumerate(selected) if v.id == marker]
            if not positions:
                raise web.Reply(404, 'Volume %s could not be found.'
                                % marker)
            start = positions[0] + 1
        page = selected[start:start + limit]
        body = {'volumes': [self._volume_view(req, v, version, project_id,
                                              detail) for v in page]}
        if page and len(page) == limit:
            query = dict(req.GET)
            query.update(limit=limit, marker=page[-1].id)
            body['volumes_links'] = [{'rel': 'next', 'href': '%s/volumes%s?%s'
                                      % (self._base(req, project_id),
                                         '/detail' if detail else '',
                                         '&'.join('%s=%s' % item for item in
                                                  sorted(query.items())))}]
        if (version >= SUPPORT_COUNT_INFO
                and req.GET.get('with_count', '').lower() in TRUE_WORDS):
            body['count'] = len(selected)
        return 200, body

    def list_volumes_detail(self, req, version, project_id=None):
        return self.list_volumes(req, version, project_id, detail=True)

    def show_volume(self, req, version, ident, project_id=None):
        return 200, {'volume': self._volume_view(
            req, self.storage.volume(ident), version, project_id)}

    def create_volume(self, req, version, project_id=None):
        spec = web.body_of(req).get('volume')
        if not isinstance(spec, dict) or 'size' not in spec:
            raise web.Reply(400, "Invalid input for field/attribute volume. "
                                 "'size' is a required property")
        volume = self.storage.create_volume(
            spec['size'], name=spec.get('name'),
            description=spec.get('description'),
            type_ref=spec.get('volume_type'),
            zone=spec.get('availability_zone'),
            metadata=spec.get('metadata'),
            multiattach=spec.get('multiattach', False),
            bootable=bool(spec.get('imageRef')),
            project_id=project_id or 'admin-project')
        return 202, {'volume': self._volume_view(req, volume, version,
                                                 project_id)}

    def delete_volume(self, req, version, ident, project_id=None):
        self.storage.delete_volume(ident)
        return 202, None

    def volume_action(self, req, version, ident, project_id=None):
        body = web.body_of(req)
        if len(body) != 1:
            raise web.Reply(400, 'There is either no action or more than '
                                 'one action in the request body.')
        [(action, args)] = body.items()
        if action == 'os-migrate_volume':
            args = self._object(action, args, required=('host',),
                                allowed=('host', 'force_host_copy',
                                         'lock_volume'))
            moves.migrate(self.storage, ident, args['host'],
                          lock_volume=self._flag(args, 'lock_volume'))
        elif action == 'os-retype':
            args = self._object(action, args, required=('new_type',),
                                allowed=('new_type', 'migration_policy'))
            moves.retype(self.storage, ident, args['new_type'],
                         args.get('migration_policy') or 'never')
        elif action == 'os-extend':
            args = self._object(action, args, required=('new_size',),
                                allowed=('new_size',))
            self.storage.extend(ident, args['new_size'],
                                version >= VOLUME_EXTEND_INUSE)
        else:
            raise web.Reply(400, 'There is no such action: %s' % action)
        return 202, None

    @staticmethod
    def _object(action, args, required, allowed):
        if not isinstance(args, dict):
            raise web.Reply(400, 'Invalid input for field/attribute %s. '
                                 '%r is not of type object' % (action, args))
        missing = [key for key in required if key not in args]
        if missing:
            raise web.Reply(400, "Invalid input for field/attribute %s. "
                                 "'%s' is a required property"
                            % (action, missing[0]))
        web.refuse_unexpected(args, allowed, action)
        return args

    @staticmethod
    def _flag(args, name):
        value = args.get(name, False)
        if isinstance(value, bool):
            return value
        if str(value).lower() in TRUE_WORDS + ('false', 'f', '0', 'off',
                                               'n', 'no'):
            return str(value).lower() in TRUE_WORDS
        raise web.Reply(400, 'Invalid input for field/attribute %s. Value: '
                             '%s. %r is not a boolean' % (name, value, value))

    # Attachments.

    def _needs(self, version, least):
        if version < least:
            raise web.Reply(404, 'The resource could not be found.')

    @staticmethod
    def _attachment_view(attachment, detail=True):
        view = {'id': attachment.id, 'status': attachment.status,
                'instance': attachment.server_uuid,
                'volume_id': attachment.volume_id}
        if detail:
            view.update(
                attached_at=api_time(attachment.attach_time) or '',
                detached_at='', attach_mode=attachment.mode or 'null',
                connection_info=({'driver_volume_type': 'iscsi', 'data': {
                    'target_lun': 1, 'volume_id': attachment.volume_id}}
                    if attachment.connector else None))
        return view

    def list_attachments(self, req, version, project_id=None,
                         detail=False):
        self._needs(version, NEW_ATTACH)
        params = req.GET
        found = [a for a in self.storage.attachments.values()
                 if params.get('volume_id', a.volume_id) == a.volume_id
                 and params.get('instance_id', a.server_uuid)
                 == a.server_uuid]
        return 200, {'attachments': [self._attachment_view(a, detail)
                                     for a in found]}

    def list_attachments_detail(self, req, version, project_id=None):
        return self.list_attachments(req, version, project_id, detail=True)

    def show_attachment(self, req, version, ident, project_id=None):
        self._needs(version, NEW_ATTACH)
        return 200, {'attachment': self._attachment_view(
            self.storage.attachment(ident))}

    def create_attachment(self, req, version, project_id=None):
        self._needs(version, NEW_ATTACH)
        spec = web.body_of(req).get('attachment')
        if not isinstance(spec, dict) or 'volume_uuid' not in spec:
            raise web.Reply(400, "Invalid input for field/attribute "
                                 "attachment. 'volume_uuid' is a required "
                                 "property")
        mode = spec.get('mode') if version >= ATTACHMENT_CREATE_MODE_ARG \
            else None
        attachment = self.storage.attach(
            spec['volume_uuid'], spec.get('instance_uuid'),
            connector=spec.get('connector'), mode=mode)
        return 200, {'attachment': self._attachment_view(attachment)}

    def update_attachment(self, req, version, ident, project_id=None):
        self._needs(version, NEW_ATTACH)
        spec = web.body_of(req).get('attachment')
        if not isinstance(spec, dict) or not isinstance(
                spec.get('connector'), dict):
            raise web.Reply(400, "Invalid input for field/attribute "
                                 "attachment. 'connector' is a required "
                                 "property")
        attachment = self.storage.connect(ident, spec['connector'])
        return 200, {'attachment': self._attachment_view(attachment)}

    def delete_attachment(self, req, version, ident, project_id=None):
        self._needs(version, NEW_ATTACH)
        attachment = self.storage.attachment(ident)
        if not self._from_a_service(req):
            self._refuse_nova_in_use(attachment)
        remaining = self.storage.detach(ident)
        return 200, {'attachments': [self._attachment_view(a, False)
                                     for a in remaining]}

    def _from_a_service(self, req):
        """Cinder's is_service_request: a valid service token (X-Service-
        Token) with the role ``service``."""
        try:
            token = self.sim.identity.tokens.validate(
                req.headers.get('X-Service-Token'))
        except web.Reply:
            return False
        return token.has_role('service')

    def _refuse_nova_in_use(self, attachment):
        """Cinder's guard against leaving a volume connected to a Nova
        host (its bug 2004555): a user may delete an attachment that
        connects a server only once Nova no longer maps the volume with
        it (the server or its mapping gone, or another attachment in
        it)."""
        if not attachment.server_uuid or not attachment.connector:
            return
        server = self.cloud.servers.get(attachment.server_uuid)
        mapping = server.volumes.get(attachment.volume_id) if server \
            else None
        if mapping is not None and mapping.attachment_id == attachment.id:
            # Cinder's fault wrapper names the exception of a safe one.
            raise web.Reply(409, 'ConflictNovaUsingAttachment: Detach '
                                 'volume from instance %s using the Compute '
                                 'API' % attachment.server_uuid)

    def attachment_action(self, req, version, ident, project_id=None):
        self._needs(version, NEW_ATTACH_COMPLETION)
        body = web.body_of(req)
        if list(body) != ['os-complete']:
            raise web.Reply(400, 'There is no such action: %s'
                            % ', '.join(body) or None)
        self.storage.complete(ident)
        return 204, None

    # Pools, types, services.

    def get_pools(self, req, version, project_id=None):
        params = req.GET
        detail = params.get('detail', '').lower() in TRUE_WORDS
        pools = sorted(self.storage.pools.values(),
                       key=lambda p: p.full_name)
        if version >= (3, 28) and 'name' in params:
            pools = [p for p in pools if p.full_name == params['name']]
        if version >= (3, 35) and 'volume_type' in params:
            wanted = self.storage.volume_type(params['volume_type'])
            pools = [p for p in pools if self.storage.fits(wanted, p)]
        return 200, {'pools': [
            {'name': p.full_name,
             'capabilities': self.storage.capabilities(p)}
            if detail else {'name': p.full_name} for p in pools]}

    @staticmethod
    def _type_view(volume_type):
        return {'id': volume_type.id, 'name': volume_type.name,
                'description': volume_type.description, 'is_public': True,
                'os-volume-type-access:is_public': True,
                'qos_specs_id': None,
                'extra_specs': dict(volume_type.extra_specs)}

    def list_types(self, req, version, project_id=None):
        return 200, {'volume_types': [
            self._type_view(t) for t in sorted(
                self.storage.types.values(), key=lambda t: t.name)]}

    def _type_by_id(self, ident):
        found = self.storage.types.get(ident)
        if found is None:
            raise web.Reply(404, 'Volume type %s could not be found.'
                            % ident)
        return found

    def show_type(self, req, version, ident, project_id=None):
        return 200, {'volume_type': self._type_view(self._type_by_id(ident))}

    def type_extra_specs(self, req, version, ident, project_id=None):
        return 200, {'extra_specs': dict(
            self._type_by_id(ident).extra_specs)}

    def list_services(self, req, version, project_id=None):
        params = req.GET
        storage = self.storage
        services = []
        if params.get('binary', 'cinder-scheduler') == 'cinder-scheduler':
            services.append({
                'binary': 'cinder-scheduler', 'host': storage.scheduler_host,
                'zone': 'nova', 'status': 'enabled', 'state': 'up',
                'updated_at': api_time(self._now()),
                'disabled_reason': None})
        if params.get('binary', 'cinder-volume') == 'cinder-volume':
            for backend in sorted(storage.backends.values(),
                                  key=lambda b: b.service_host):
                state = storage.backend_state(backend)
                view = {
                    'binary': 'cinder-volume', 'host': backend.service_host,
                    'zone': backend.zone, 'status': backend.status,
                    'state': state, 'updated_at': api_time(
                        self._now() if state == 'up' else backend.updated_at),
                    'disabled_reason': backend.disabled_reason,
                    'replication_status': 'disabled',
                    'active_backend_id': None, 'frozen': False}
                if version >= (3, 49):
                    view['backend_state'] = state
                services.append(view)
        for view in services:
            if version >= (3, 7):
                view['cluster'] = None
        if 'host' in params:
            services = [s for s in services if s['host'] == params['host']]
        return 200, {'services': services}

    def _now(self):
        return self.cloud.clock.now()
