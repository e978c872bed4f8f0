"""Resolving the goal, strategy and template a request body names, and
checking the names users give."""

from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.db import audit_templates as templates_db
from watcher_ha.db import goals as goals_db


def goal(context, ref):
    try:
        return goals_db.get_goal(context, ref)
    except exception.GoalNotFound:
        raise exception.Invalid(
            'Goal %s is invalid: no goal has this UUID or name '
            '(GET /v1/goals lists them).' % ref)


def strategy(context, ref, goal_row):
    """The strategy ``ref`` names, checked to serve ``goal_row``."""
    try:
        row = goals_db.get_strategy(context, ref)
    except exception.StrategyNotFound:
        raise exception.Invalid(
            'Strategy %s is invalid: no strategy has this UUID or name '
            '(GET /v1/strategies lists them).' % ref)
    if row['goal_id'] != goal_row['id']:
        raise exception.Invalid(
            "'%s' strategy does not relate to the '%s' goal; use a "
            "strategy of that goal (GET /v1/strategies?goal=%s)."
            % (row['name'], goal_row['name'], goal_row['name']))
    return row


def template(context, uuid):
    try:
        return templates_db.get(context, uuid)
    except exception.AuditTemplateNotFound:
        raise exception.Invalid(
            'The audit template UUID or name specified is invalid: %s'
            % uuid)


def usable_name(resource, name):
    """A name lookups can find: not a UUID nor an integer, which path
    lookups read as such first (and so reach another row)."""
    if uuidutils.is_uuid_like(name) or (name.isascii() and name.isdigit()):
        raise exception.Invalid(
            '%s name %s looks like a UUID or an id, which lookups by name '
            'would never reach; choose another name.' % (resource, name))
    return name
