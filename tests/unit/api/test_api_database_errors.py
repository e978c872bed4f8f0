"""What a request is told when the database, not the request, made it
fail (db/readiness.unavailable): 503 saying what to do, for both APIs,
never a 500: a change given up after losing every certification through
other Galera nodes, a Galera node refusing to serve, a row locked too
long."""

import pytest
from oslo_db import exception as db_exc

from watcher_ha.db import query

LOCKED = db_exc.DBDeadlock(
    '(1205, Lock wait timeout exceeded; try restarting transaction)')
CONFLICTS = db_exc.DBDeadlock(
    "(1213, 'Deadlock found when trying to get lock; try restarting "
    "transaction')")
REFUSED = db_exc.DBConnectionError(
    "(1047, 'WSREP has not yet prepared node for application use')")


@pytest.fixture
def failing(monkeypatch):
    """Every list of rows fails with the error given."""
    def fail_with(error):
        def list_rows(*args, **kwargs):
            raise error
        monkeypatch.setattr(query, 'list_rows', list_rows)
    return fail_with


@pytest.mark.parametrize('error, said', [
    (LOCKED, 'locked by another transaction'),
    (CONFLICTS, 'kept conflicting with changes made at the same moment'),
    (REFUSED, 'refuses reads and writes')])
def test_a_database_that_fails_the_request_is_a_503(api, failing, error,
                                                     said):
    failing(error)
    resp = api.get('/v1/audit_templates')
    assert resp.status == 503, resp.body
    assert said in resp.fault
    resp = api.request('GET', '/instance-ha/v1/segments', headers={
        'OpenStack-API-Version': 'instance-ha 1.3'})
    assert resp.status == 503, resp.body
    assert said in resp.json['serviceUnavailable']['message']


def test_any_other_database_error_is_a_500(api, failing):
    failing(db_exc.DBError('something else'))
    assert api.get('/v1/audit_templates').status == 500
