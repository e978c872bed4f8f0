"""The read side every resource shares (list, /detail and show), and the
write side of those a client creates, patches and deletes."""

from watcher_ha.api import fields
from watcher_ha.api import method
from watcher_ha.api import patch
from watcher_ha.api import request
from watcher_ha.common import exception
from watcher_ha.db import query
from watcher_ha.policies import policy


class ResourceController:
    """List, detail and show one kind of resource.

    Subclasses set the class attributes below; they add their own write
    handlers and override ``_filters`` when filters need checking. The
    route table (api/controllers/v1/__init__.py) names the handlers each
    serves.
    """

    view: query.View           # its filters are the list's filters
    fields: object             # api.fields.Fields
    policy_module: object      # rule constants GET_ALL, DETAIL, GET
    marker_is_uuid = True
    link_column = 'uuid'
    # The first microversion serving the resource ('watcher-ha X.Y' for
    # ours); earlier ones get 406, as Watcher answers for a resource a
    # version does not have. None: every version.
    since = None

    def served(self, call):
        """406 unless the request's version serves the resource."""
        if self.since is not None and not call.version_at_least(self.since):
            raise exception.NotAcceptable()

    @property
    def collection(self):
        """URL segment and JSON key of the list."""
        return self.fields.resource

    @property
    def filter_names(self):
        return tuple(self.view.filters)

    def query_filters(self, call):
        """The filters a query of ``call``'s version may name."""
        return self.filter_names

    def version_filters(self, call):
        """{filter: value} that ``call``'s version applies whatever the
        query names (what an older version does not show)."""
        return {}

    def _filters(self, params):
        """Validated filters from the query string: {name: value}."""
        return {name: request.query_value(params, name)
                for name in self.filter_names}

    def _annotate(self, context, rows):
        """Add to ``rows`` what their view does not select; in bulk."""
        return rows

    def output(self, call, detail=True):
        return fields.Output(
            call.requested, detail,
            lambda ident: call.links(self.collection, ident))

    def serialize(self, call, row, detail=True):
        return self.fields.render(row, self.output(call, detail))

    def _collection(self, call, detail, rule, path):
        context = call.context
        params = call.params
        self.served(call)
        policy.authorize(rule, context)
        request.refuse_unknown_params(
            params, request.PAGING_PARAMS + self.query_filters(call))
        filters = self._filters(params)
        paging = request.paging(params, self.view.sort_keys(),
                                marker_is_uuid=self.marker_is_uuid)
        rows = self._annotate(context, query.list_rows(
            context, self.view, paging,
            dict(filters, **self.version_filters(call))))
        output = self.output(call, detail)
        body = {self.collection: [self.fields.render(row, output)
                                  for row in rows]}
        if len(rows) == paging.limit:
            body['next'] = call.next_link(
                path, paging, rows[-1][self.link_column], filters)
        return body

    @method.expose()
    def get_all(self, call):
        return self._collection(call, False, self.policy_module.GET_ALL,
                                self.collection)

    @method.expose()
    def detail(self, call):
        return self._collection(call, True, self.policy_module.DETAIL,
                                self.collection + '/detail')

    def _find(self, context, ident):
        """The row ``ident`` names, annotated, or the resource's 404."""
        row = query.get_row(context, self.view, ident)
        return self._annotate(context, [row])[0]

    @method.expose()
    def get_one(self, call, ident):
        context = call.context
        self.served(call)
        policy.authorize(self.policy_module.GET, context)
        request.refuse_unknown_params(call.params, ())
        return self.serialize(call, self._find(context, ident))


class EditableController(ResourceController):
    """A resource clients create, patch and delete, through the fields its
    ``inputs`` declares.

    Subclasses say what a checked create body makes (``_create``), what
    a JSON patch changes (``_update``) and what a delete does
    (``_delete``); the policy module also has CREATE, UPDATE and DELETE.
    """

    inputs: object             # api.inputs.Inputs

    def _create(self, call, body):
        """Store the resource ``body`` describes; its row."""
        raise NotImplementedError

    def _update(self, call, row, ops):
        """Apply the JSON patch ``ops`` (syntax-checked) to ``row``; the
        row updated."""
        raise NotImplementedError

    def _delete(self, context, row):
        raise NotImplementedError

    @method.expose(status_code=201)
    def post(self, call):
        context = call.context
        self.served(call)
        policy.authorize(self.policy_module.CREATE, context)
        body = self.inputs.checked_create(call.json_body())
        row = self._create(call, body)
        call.headers['Location'] = call.links(self.collection,
                                              row['uuid'])[0]['href']
        return self.serialize(call, row)

    @method.expose()
    def patch(self, call, ident):
        context = call.context
        policy.authorize(self.policy_module.UPDATE, context)
        ops = patch.parse(call.json_body())
        row = self._find(context, ident)
        return self.serialize(call, self._update(call, row, ops))

    @method.expose(status_code=204)
    def delete(self, call, ident):
        context = call.context
        self.served(call)
        policy.authorize(self.policy_module.DELETE, context)
        self._delete(context, self._find(context, ident))
