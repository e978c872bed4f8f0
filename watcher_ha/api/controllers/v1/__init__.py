"""``/v1``: the version 1 document and the resource controllers."""

import pecan
from pecan import rest

from watcher_ha.api.controllers.v1 import action_plans
from watcher_ha.api.controllers.v1 import actions
from watcher_ha.api.controllers.v1 import audit_templates
from watcher_ha.api.controllers.v1 import audits
from watcher_ha.api.controllers.v1 import data_model
from watcher_ha.api.controllers.v1 import goals
from watcher_ha.api.controllers.v1 import scoring_engines
from watcher_ha.api.controllers.v1 import services
from watcher_ha.api.controllers.v1 import strategies
from watcher_ha.api.controllers.v1 import webhooks
from watcher_ha.api import method
from watcher_ha.api import request

MEDIA_TYPES = [{'base': 'application/json',
                'type': 'application/vnd.openstack.watcher.v1+json'}]
DESCRIBED_BY = 'http://docs.openstack.org/developer/watcher/dev/api-spec-v1.html'

# (collection, first microversion listing it), in Watcher's order.
COLLECTIONS = [
    ('audit_templates', None),
    ('audits', None),
    ('data_model', '1.3'),
    ('actions', None),
    ('action_plans', None),
    ('scoring_engines', None),
    ('services', None),
    ('webhooks', '1.4'),
]


# Every collection, reachable at /v1/<name> and at /<name> (bookmarks).
BOOKMARKABLE = frozenset(name for name, _ in COLLECTIONS) | {
    'goals', 'strategies'}


def known_first(args, known):
    """``args`` cut after the first segment when that one is not ``known``.

    Pecan looks for a controller name anywhere in a path routed to a
    ``get_one(*args)``, and fails with IndexError (a 500) when it finds one
    behind two unknown segments (``/v1/x/y/audits``). Cut short, such a
    path gets the answer of any unknown path: 404 (405 to other methods).
    Empty segments (``/v1//audits``) are skipped, as pecan skips them.
    """
    for index, segment in enumerate(args):
        if segment:
            return args if segment in known else args[:index + 1]
    return args


def _collection_links(name):
    base = request.base_url()
    return [{'href': '%s/v1/%s/' % (base, name), 'rel': 'self'},
            {'href': '%s/%s/' % (base, name), 'rel': 'bookmark'}]


class Controller(rest.RestController):

    audit_templates = audit_templates.AuditTemplatesController()
    audits = audits.AuditsController()
    data_model = data_model.DataModelController()
    actions = actions.ActionsController()
    action_plans = action_plans.ActionPlansController()
    scoring_engines = scoring_engines.ScoringEnginesController()
    services = services.ServicesController()
    webhooks = webhooks.WebhooksController()
    goals = goals.GoalsController()
    strategies = strategies.StrategiesController()

    @method.expose()
    def get_all(self):
        document = {'id': 'v1', 'media_types': MEDIA_TYPES}
        for name, since in COLLECTIONS:
            if since is None or request.version_at_least(since):
                document[name] = _collection_links(name)
        document['links'] = [
            {'href': request.base_url() + '/v1/', 'rel': 'self'},
            {'href': DESCRIBED_BY, 'rel': 'describedby',
             'type': 'text/html'}]
        return document

    @pecan.expose()
    def _route(self, args, request=None):
        return super()._route(known_first(args, BOOKMARKABLE), request)

    @pecan.expose(content_type='application/json')
    def get_one(self, *unknown):
        # /v1/<anything not a collection>: not found, not "method not
        # allowed".
        pecan.abort(404)
