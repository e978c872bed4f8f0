"""Following ``next`` links visits every row exactly once, whatever the
sort key (NULLs included) and direction, on every supported database."""

import pytest

from tests import factories
from watcher_ha.api import request
from watcher_ha.common import context
from watcher_ha.db import audits
from watcher_ha.db import query


def walk(sort_key, sort_dir, limit=2):
    seen, marker = [], None
    for _ in range(20):
        page = query.list_rows(
            context.admin_context(), audits.VIEW,
            request.Paging(limit, marker, sort_key, sort_dir))
        seen += [row['name'] for row in page]
        if len(page) < limit:
            return seen
        marker = page[-1]['uuid']
    raise AssertionError('paging does not end: %s' % seen)


@pytest.mark.parametrize('sort_dir', ['asc', 'desc'])
@pytest.mark.parametrize('sort_key', ['strategy_id', 'interval',
                                      'updated_at', 'name', 'id'])
def test_every_row_once_in_order(migrated_engine, sort_key, sort_dir):
    for index in range(7):
        # Every other audit without a strategy; some with an interval.
        nulls = {'strategy_id': None} if index % 2 else {}
        factories.audit(
            migrated_engine, name='a%d' % index,
            interval=None if index % 3 else str(60 * (index + 1)), **nulls)
    everything = walk(sort_key, sort_dir, limit=1000)
    assert walk(sort_key, sort_dir) == everything
    assert walk(sort_key, sort_dir, limit=3) == everything
    assert sorted(everything) == ['a%d' % i for i in range(7)]


def test_json_and_bookkeeping_columns_are_not_sort_keys():
    keys = audits.VIEW.sort_keys()
    assert {'parameters', 'scope', 'version', 'live_name'}.isdisjoint(keys)
    assert {'id', 'uuid', 'name', 'state', 'created_at'} <= keys
