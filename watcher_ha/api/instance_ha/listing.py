"""The query of a list request: paging, sorting and filters, with
Masakari's parsing and messages."""

from oslo_config import cfg
from oslo_utils import strutils
from oslo_utils import timeutils

from watcher_ha.common import exception
from watcher_ha.common.instance_ha import exception as ha_exception
from watcher_ha.db import query

CONF = cfg.CONF

SORT_DIRS = ('asc', 'desc')


def paging(params):
    """``params``: the request's query (a webob MultiDict)."""
    sort_keys = tuple(params.getall('sort_key'))
    sort_dirs = tuple(params.getall('sort_dir'))
    for direction in sort_dirs:
        if direction not in SORT_DIRS:
            raise ha_exception.InvalidListInput(
                reason="Unknown sort direction, must be 'asc' or 'desc'")
    if not sort_keys:
        sort_keys, sort_dirs = ('created_at',), sort_dirs[:1] or ('desc',)
    # A key without a direction takes the last one given, or desc.
    sort_dirs = sort_dirs[:len(sort_keys)]
    sort_dirs += (sort_dirs[-1:] or ('desc',)) * (len(sort_keys)
                                                  - len(sort_dirs))
    return query.Paging(sort=tuple(zip(sort_keys, sort_dirs, strict=True)),
                        limit=_limit(params.get('limit')),
                        marker=params.get('marker'))


def _limit(text):
    if text is None:
        return CONF.api.max_limit
    try:
        limit = int(text)
    except ValueError:
        raise ha_exception.InvalidListInput(reason='limit must be an '
                                                   'integer')
    if limit < 0:
        raise ha_exception.InvalidListInput(reason='limit must be >= 0')
    return min(limit, CONF.api.max_limit)


def boolean(params, name):
    """A boolean filter, or None when absent."""
    text = params.get(name)
    if text is None:
        return None
    try:
        return strutils.bool_from_string(text, strict=True)
    except ValueError as err:
        raise exception.Invalid('Invalid value for %s: %s' % (name, err))


def generated_since(params):
    text = params.get('generated-since')
    if text is None:
        return None
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(text))
    except ValueError:
        raise exception.Invalid('Invalid generated-since value')


def filters(params, exact=(), booleans=()):
    """Equality filters: ``exact`` compared as given, ``booleans``
    parsed strictly."""
    found = {name: params[name] for name in exact if name in params}
    for name in booleans:
        value = boolean(params, name)
        if value is not None:
            found[name] = value
    return found
