"""Domain errors. Each carries its HTTP status ``code`` and a stable
``error_code``; the API renders them in one place (``api/errors.py``).

An error that only names its status, code and message is a row of a
table (``declare``), under the family it belongs to; a class is written
out only where it does more."""


class WatcherHAError(Exception):
    code = 500
    error_code = 'internal_error'
    msg_fmt = 'An unexpected error occurred.'

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            message = self.msg_fmt % kwargs
        self.message = str(message)
        super().__init__(self.message)

    def headers(self):
        """HTTP headers the error's answer carries besides its body."""
        return {}


def declare(namespace, base, errors):
    """Make each of ``errors`` ((class name, error_code, msg_fmt[, HTTP
    status code]), ...) a subclass of ``base`` (a class, or the name of
    one in ``namespace``), and a name of the module whose ``namespace``
    (its ``globals()``) is given: callers catch and raise it by its name
    like any class."""
    if isinstance(base, str):
        base = namespace[base]
    for name, error_code, msg_fmt, *code in errors:
        attributes = {'__module__': namespace['__name__'],
                      'error_code': error_code, 'msg_fmt': msg_fmt}
        if code:
            attributes['code'] = code[0]
        namespace[name] = type(name, (base,), attributes)


class WebhookTooSoon(WatcherHAError):
    code = 429
    error_code = 'webhook_too_soon'
    msg_fmt = ('Audit %(audit)s was triggered less than %(interval)s s '
               'ago, and public webhooks trigger an audit at most once '
               'every %(interval)s s ([api] public_webhook_min_interval); '
               'retry in %(seconds)s s.')

    def headers(self):
        return {'Retry-After': str(self.kwargs['seconds'])}


# The families, by HTTP status; a family's errors follow it.
declare(globals(), WatcherHAError, (
    ('Invalid', 'invalid', 'Invalid input: %(reason)s', 400),
    ('NotAuthorized', 'forbidden', 'Not authorized.', 403),
    ('NotFound', 'not_found', 'Resource could not be found.', 404),
    ('NotAcceptable', 'not_acceptable', 'Request not acceptable.', 406),
    ('Conflict', 'conflict', 'Conflict: %(reason)s', 409),
    ('RequestBodyTooLarge', 'request_body_too_large',
     'The request body is larger than %(limit)s bytes, the most this API '
     'accepts; send a smaller body (operators set the limit with '
     '[oslo_middleware] max_request_body_size).', 413),
    ('ServiceUnavailable', 'service_unavailable', '%(reason)s', 503),
))

# 400 -----------------------------------------------------------------------
declare(globals(), 'Invalid', (
    ('InvalidJSON', 'invalid_json', 'Request is not in valid JSON format'),
    ('InvalidInterval', 'invalid_interval',
     'Interval %(interval)s is neither a number of seconds nor a valid cron '
     'expression such as "*/10 * * * *" (minute hour day month weekday).'),
    ('InvalidNUL', 'invalid_nul',
     'NUL characters (\\u0000) are not allowed in identifiers, query '
     'parameters or body values.'),
    ('InvalidField', 'invalid_field',
     'Invalid input for field/attribute %(field)s. Value: %(value)s. '
     '%(reason)s'),
    ('MissingArgument', 'missing_argument', 'Missing argument: "%(name)s"'),
    ('ValueOutOfRange', 'value_out_of_range',
     'A value of the request is too long or out of range for the database.'),
    ('InvalidParameter', 'invalid_parameter',
     'Invalid value for query parameter %(name)s: %(reason)s'),
    ('InvalidSortKey', 'invalid_sort_key', 'Invalid sort key: %(key)s'),
    ('InvalidSortDir', 'invalid_sort_dir',
     "Invalid sort direction: %(value)s. Acceptable values are 'asc' or "
     "'desc'"),
    ('InvalidLimit', 'invalid_limit', 'Limit must be positive'),
    ('InvalidUUID', 'invalid_uuid', 'Expected a uuid but received %(uuid)s.'),
    ('InvalidIdentity', 'invalid_identity',
     'Expected a uuid or int but received %(identity)s'),
    ('PatchError', 'patch_error',
     "Couldn't apply patch '%(patch)s'. Reason: %(reason)s"),
    ('StateTransitionNotAllowed', 'state_transition_not_allowed',
     'State transition not allowed: (%(current)s -> %(new)s)'),
    ('DeleteError', 'delete_not_allowed',
     "Couldn't delete when state is '%(state)s'."),
    ('WebhookNeedsUUID', 'webhook_needs_uuid',
     '%(ident)s is not an audit UUID. Public webhooks ([api] '
     'enable_webhooks_auth = False) name the audit by its UUID only: POST '
     '/v1/webhooks/<audit UUID>.'),
    ('AuditTypeNotAllowed', 'audit_type_not_allowed',
     'Audit type %(audit_type)s is disallowed.'),
    ('ActionFilterCombinationProhibited', 'action_filter_combination',
     'Filtering actions on both audit and action-plan is prohibited'),
))

declare(globals(), 'InvalidJSON', (
    ('JSONTooDeep', 'json_too_deep',
     'Request body nests JSON arrays or objects more than %(max)s levels '
     'deep'),
))

declare(globals(), 'InvalidInterval', (
    ('IntervalOutOfRange', 'interval_out_of_range',
     'Interval %(interval)s seconds is out of range: a continuous audit '
     'runs every %(low)s to %(high)s seconds (366 days); for rarer rounds '
     'give a cron expression.'),
    ('IntervalNeverRuns', 'interval_never_runs',
     'Invalid interval: %(reason)s, so the audit would never run. Give a '
     'cron expression that matches at least once every %(years)s years, '
     'such as "0 3 1 * *" (03:00 on the first of each month).'),
))

# 401/403 -------------------------------------------------------------------
declare(globals(), 'NotAuthorized', (
    ('PolicyNotAuthorized', 'policy_forbidden',
     "Policy doesn't allow %(action)s to be performed."),
))

# 404 -----------------------------------------------------------------------
declare(globals(), 'NotFound', (
    ('GoalNotFound', 'goal_not_found', 'Goal %(goal)s could not be found'),
    ('StrategyNotFound', 'strategy_not_found',
     'Strategy %(strategy)s could not be found'),
    ('AuditTemplateNotFound', 'audit_template_not_found',
     'AuditTemplate %(audit_template)s could not be found'),
    ('AuditNotFound', 'audit_not_found', 'Audit %(audit)s could not be found'),
    ('ActionPlanNotFound', 'action_plan_not_found',
     'ActionPlan %(action_plan)s could not be found'),
    ('ActionNotFound', 'action_not_found',
     'Action %(action)s could not be found'),
    ('AuditPipelineNotFound', 'audit_pipeline_not_found',
     'AuditPipeline %(audit_pipeline)s could not be found'),
    ('ScoringEngineNotFound', 'scoring_engine_not_found',
     'ScoringEngine %(scoring_engine)s could not be found'),
    ('ServiceNotFound', 'service_not_found',
     'The service %(service)s cannot be found.'),
))

# 409 -----------------------------------------------------------------------
declare(globals(), 'Conflict', (
    # Lost a compare-and-swap: the row changed since it was read.
    ('StateConflict', 'state_conflict',
     '%(resource)s %(uuid)s was changed concurrently (%(now)s); read it '
     'again and retry if still wanted.'),
    ('AlreadyExists', 'already_exists',
     'An %(resource)s with UUID or name %(name)s already exists'),
    ('PlanNotProjectable', 'action_plan_not_projectable',
     'Action plan %(plan)s is %(state)s: a what-if projects a plan that '
     'has not started; the states allowed are %(allowed)s.'),
    # watcher-specs audit-pipeline.rst, "REST API impact": a pipeline
    # whose state does not allow the request.
    ('PipelineStateConflict', 'audit_pipeline_state_conflict',
     'Audit pipeline %(uuid)s is %(state)s: %(reason)s'),
))

# 503 -----------------------------------------------------------------------
declare(globals(), 'ServiceUnavailable', (
    ('DatabaseBusy', 'database_busy',
     'A row this request needs has been locked by another transaction for '
     'over %(seconds)s s (a daemon paused or cut off in the middle of one); '
     'nothing was changed. Retry shortly.'),
    # A Galera cluster: the request's transaction lost every certification
    # it went through, to changes made through other nodes.
    ('DatabaseConflicts', 'database_conflicts',
     'This request\'s change kept conflicting with changes made at the '
     'same moment through other database nodes, and was given up; nothing '
     'was changed. Retry shortly.'),
    # A Galera node outside the Primary component.
    ('DatabaseNotReady', 'database_not_ready',
     'The database node this API uses refuses reads and writes (it is cut '
     'off from the rest of its cluster); nothing was changed. Retry '
     'through another controller, or once the node is back.'),
))
