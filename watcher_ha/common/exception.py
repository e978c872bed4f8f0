"""Domain errors. Each carries its HTTP status ``code`` and a stable
``error_code``; the API renders them in one place (``api/errors.py``)."""


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


# 400 -----------------------------------------------------------------------

class Invalid(WatcherHAError):
    code = 400
    error_code = 'invalid'
    msg_fmt = 'Invalid input: %(reason)s'


class InvalidJSON(Invalid):
    error_code = 'invalid_json'
    msg_fmt = 'Request is not in valid JSON format'


class JSONTooDeep(InvalidJSON):
    error_code = 'json_too_deep'
    msg_fmt = ('Request body nests JSON arrays or objects more than %(max)s '
               'levels deep')


class InvalidNUL(Invalid):
    error_code = 'invalid_nul'
    msg_fmt = ('NUL characters (\\u0000) are not allowed in identifiers, '
               'query parameters or body values.')


class InvalidField(Invalid):
    error_code = 'invalid_field'
    msg_fmt = ('Invalid input for field/attribute %(field)s. '
               'Value: %(value)s. %(reason)s')


class MissingArgument(Invalid):
    error_code = 'missing_argument'
    msg_fmt = 'Missing argument: "%(name)s"'


class ValueOutOfRange(Invalid):
    error_code = 'value_out_of_range'
    msg_fmt = ('A value of the request is too long or out of range for the '
               'database.')


class InvalidParameter(Invalid):
    error_code = 'invalid_parameter'
    msg_fmt = 'Invalid value for query parameter %(name)s: %(reason)s'


class InvalidSortKey(Invalid):
    error_code = 'invalid_sort_key'
    msg_fmt = 'Invalid sort key: %(key)s'


class InvalidSortDir(Invalid):
    error_code = 'invalid_sort_dir'
    msg_fmt = ("Invalid sort direction: %(value)s. "
               "Acceptable values are 'asc' or 'desc'")


class InvalidLimit(Invalid):
    error_code = 'invalid_limit'
    msg_fmt = 'Limit must be positive'


class InvalidUUID(Invalid):
    error_code = 'invalid_uuid'
    msg_fmt = 'Expected a uuid but received %(uuid)s.'


class InvalidIdentity(Invalid):
    error_code = 'invalid_identity'
    msg_fmt = 'Expected a uuid or int but received %(identity)s'


class PatchError(Invalid):
    error_code = 'patch_error'
    msg_fmt = "Couldn't apply patch '%(patch)s'. Reason: %(reason)s"


class StateTransitionNotAllowed(Invalid):
    error_code = 'state_transition_not_allowed'
    msg_fmt = 'State transition not allowed: (%(current)s -> %(new)s)'


class DeleteError(Invalid):
    error_code = 'delete_not_allowed'
    msg_fmt = "Couldn't delete when state is '%(state)s'."


class InvalidInterval(Invalid):
    error_code = 'invalid_interval'
    msg_fmt = ('Interval %(interval)s is neither a number of seconds nor a '
               'valid cron expression such as "*/10 * * * *" (minute hour '
               'day month weekday).')


class IntervalOutOfRange(InvalidInterval):
    error_code = 'interval_out_of_range'
    msg_fmt = ('Interval %(interval)s seconds is out of range: a continuous '
               'audit runs every %(low)s to %(high)s seconds (366 days); '
               'for rarer rounds give a cron expression.')


class IntervalNeverRuns(InvalidInterval):
    error_code = 'interval_never_runs'
    msg_fmt = ('Invalid interval: %(reason)s, so the audit would never '
               'run. Give a cron expression that matches at least once '
               'every %(years)s years, such as "0 3 1 * *" (03:00 on the '
               'first of each month).')


class WebhookNeedsUUID(Invalid):
    error_code = 'webhook_needs_uuid'
    msg_fmt = ('%(ident)s is not an audit UUID. Public webhooks ([api] '
               'enable_webhooks_auth = False) name the audit by its UUID '
               'only: POST /v1/webhooks/<audit UUID>.')


class AuditTypeNotAllowed(Invalid):
    error_code = 'audit_type_not_allowed'
    msg_fmt = 'Audit type %(audit_type)s is disallowed.'


class ActionFilterCombinationProhibited(Invalid):
    error_code = 'action_filter_combination'
    msg_fmt = 'Filtering actions on both audit and action-plan is prohibited'


# 401/403 -------------------------------------------------------------------

class NotAuthorized(WatcherHAError):
    code = 403
    error_code = 'forbidden'
    msg_fmt = 'Not authorized.'


class PolicyNotAuthorized(NotAuthorized):
    error_code = 'policy_forbidden'
    msg_fmt = 'Policy doesn\'t allow %(action)s to be performed.'


# 404 -----------------------------------------------------------------------

class NotFound(WatcherHAError):
    code = 404
    error_code = 'not_found'
    msg_fmt = 'Resource could not be found.'


class GoalNotFound(NotFound):
    error_code = 'goal_not_found'
    msg_fmt = 'Goal %(goal)s could not be found'


class StrategyNotFound(NotFound):
    error_code = 'strategy_not_found'
    msg_fmt = 'Strategy %(strategy)s could not be found'


class AuditTemplateNotFound(NotFound):
    error_code = 'audit_template_not_found'
    msg_fmt = 'AuditTemplate %(audit_template)s could not be found'


class AuditNotFound(NotFound):
    error_code = 'audit_not_found'
    msg_fmt = 'Audit %(audit)s could not be found'


class ActionPlanNotFound(NotFound):
    error_code = 'action_plan_not_found'
    msg_fmt = 'ActionPlan %(action_plan)s could not be found'


class ActionNotFound(NotFound):
    error_code = 'action_not_found'
    msg_fmt = 'Action %(action)s could not be found'


class ScoringEngineNotFound(NotFound):
    error_code = 'scoring_engine_not_found'
    msg_fmt = 'ScoringEngine %(scoring_engine)s could not be found'


class ServiceNotFound(NotFound):
    error_code = 'service_not_found'
    msg_fmt = 'The service %(service)s cannot be found.'


# 406 / 409 / 413 / 429 / 503 -----------------------------------------------

class NotAcceptable(WatcherHAError):
    code = 406
    error_code = 'not_acceptable'
    msg_fmt = 'Request not acceptable.'


class Conflict(WatcherHAError):
    code = 409
    error_code = 'conflict'
    msg_fmt = 'Conflict: %(reason)s'


class StateConflict(Conflict):
    """Lost a compare-and-swap: the row changed since it was read."""
    error_code = 'state_conflict'
    msg_fmt = ('%(resource)s %(uuid)s was changed concurrently (%(now)s); '
               'read it again and retry if still wanted.')


class AlreadyExists(Conflict):
    error_code = 'already_exists'
    msg_fmt = 'An %(resource)s with UUID or name %(name)s already exists'


class RequestBodyTooLarge(WatcherHAError):
    code = 413
    error_code = 'request_body_too_large'
    msg_fmt = ('The request body is larger than %(limit)s bytes, the most '
               'this API accepts; send a smaller body (operators set the '
               'limit with [oslo_middleware] max_request_body_size).')


class WebhookTooSoon(WatcherHAError):
    code = 429
    error_code = 'webhook_too_soon'
    msg_fmt = ('Audit %(audit)s was triggered less than %(interval)s s '
               'ago, and public webhooks trigger an audit at most once '
               'every %(interval)s s ([api] public_webhook_min_interval); '
               'retry in %(seconds)s s.')

    def headers(self):
        return {'Retry-After': str(self.kwargs['seconds'])}


class ServiceUnavailable(WatcherHAError):
    code = 503
    error_code = 'service_unavailable'
    msg_fmt = '%(reason)s'


class DatabaseBusy(ServiceUnavailable):
    error_code = 'database_busy'
    msg_fmt = ('A row this request needs has been locked by another '
               'transaction for over %(seconds)s s (a daemon paused or cut '
               'off in the middle of one); nothing was changed. Retry '
               'shortly.')
