"""``/v1``: the version 1 document and the route table of the resources."""

from watcher_ha.api.controllers.v1 import action_plans
from watcher_ha.api.controllers.v1 import actions
from watcher_ha.api.controllers.v1 import audit_pipelines
from watcher_ha.api.controllers.v1 import audit_templates
from watcher_ha.api.controllers.v1 import audits
from watcher_ha.api.controllers.v1 import data_model
from watcher_ha.api.controllers.v1 import goals
from watcher_ha.api.controllers.v1 import scoring_engines
from watcher_ha.api.controllers.v1 import services
from watcher_ha.api.controllers.v1 import strategies
from watcher_ha.api.controllers.v1 import webhooks
from watcher_ha.api import method
from watcher_ha.common import pipelines

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
    ('audit_pipelines', pipelines.SINCE),
]


# Every collection, reachable at /v1/<name> and at /<name> (bookmarks).
BOOKMARKABLE = frozenset(name for name, _ in COLLECTIONS) | {
    'goals', 'strategies'}


def _collection_links(call, name):
    base = call.base_url()
    return [{'href': '%s/v1/%s/' % (base, name), 'rel': 'self'},
            {'href': '%s/%s/' % (base, name), 'rel': 'bookmark'}]


class VersionController:

    @method.expose(takes_query=False)
    def get(self, call):
        document = {'id': 'v1', 'media_types': MEDIA_TYPES}
        for name, since in COLLECTIONS:
            if since is None or call.version_at_least(since):
                document[name] = _collection_links(call, name)
        document['links'] = [
            {'href': call.base_url() + '/v1/', 'rel': 'self'},
            {'href': DESCRIBED_BY, 'rel': 'describedby',
             'type': 'text/html'}]
        return document


VERSION = VersionController()
AUDIT_TEMPLATES = audit_templates.AuditTemplatesController()
AUDITS = audits.AuditsController()
AUDIT_PIPELINES = audit_pipelines.AuditPipelinesController()
DATA_MODEL = data_model.DataModelController()
ACTIONS = actions.ActionsController()
ACTION_PLANS = action_plans.ActionPlansController()
SCORING_ENGINES = scoring_engines.ScoringEnginesController()
SERVICES = services.ServicesController()
WEBHOOKS = webhooks.WebhooksController()
GOALS = goals.GoalsController()
STRATEGIES = strategies.StrategiesController()


def _reads(name, controller):
    """The rows of a resource's list, detailed list and item."""
    return (
        ('GET', '/v1/%s' % name, controller.get_all),
        ('GET', '/v1/%s/detail' % name, controller.detail),
        ('GET', '/v1/%s/{ident}' % name, controller.get_one),
    )


def _writes(name, controller):
    """The rows of a resource clients create, patch and delete."""
    return (
        ('POST', '/v1/%s' % name, controller.post),
        ('PATCH', '/v1/%s/{ident}' % name, controller.patch),
        ('DELETE', '/v1/%s/{ident}' % name, controller.delete),
    )


# (method, path, handler); api/controllers/paths.py reads request paths
# into these rows.
ROUTES = (
    ('GET', '/v1', VERSION.get),
    *_reads('audit_templates', AUDIT_TEMPLATES),
    *_writes('audit_templates', AUDIT_TEMPLATES),
    *_reads('audits', AUDITS),
    *_writes('audits', AUDITS),
    *_reads('audit_pipelines', AUDIT_PIPELINES),
    ('POST', '/v1/audit_pipelines', AUDIT_PIPELINES.post),
    ('PUT', '/v1/audit_pipelines/{ident}', AUDIT_PIPELINES.put),
    ('DELETE', '/v1/audit_pipelines/{ident}', AUDIT_PIPELINES.delete),
    ('POST', '/v1/audit_pipelines/{ident}/start', AUDIT_PIPELINES.start),
    ('POST', '/v1/audit_pipelines/{ident}/cancel', AUDIT_PIPELINES.cancel),
    ('GET', '/v1/data_model', DATA_MODEL.get_all),
    *_reads('actions', ACTIONS),
    ('PATCH', '/v1/actions/{ident}', ACTIONS.patch),
    *_reads('action_plans', ACTION_PLANS),
    ('POST', '/v1/action_plans/{ident}/start', ACTION_PLANS.start),
    ('GET', '/v1/action_plans/{ident}/what_if', ACTION_PLANS.what_if),
    ('PATCH', '/v1/action_plans/{ident}', ACTION_PLANS.patch),
    ('DELETE', '/v1/action_plans/{ident}', ACTION_PLANS.delete),
    *_reads('scoring_engines', SCORING_ENGINES),
    *_reads('services', SERVICES),
    ('POST', '/v1/webhooks/{ident}', WEBHOOKS.post),
    *_reads('goals', GOALS),
    *_reads('strategies', STRATEGIES),
    ('GET', '/v1/strategies/{ident}/state', STRATEGIES.state),
)
