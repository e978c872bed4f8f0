"""POST /v1/webhooks/{audit} when webhooks are public ([api]
enable_webhooks_auth = False): audits by UUID only, and each audit
triggered at most once every [api] public_webhook_min_interval seconds,
whichever API worker is asked."""

import datetime

import pytest
import sqlalchemy as sa

from tests.helpers.in_process import Client
from watcher_ha.common import exception
from watcher_ha.conf import CONF
from watcher_ha.db import audits as audits_db
from watcher_ha.db import models
from watcher_ha.db import webhook_triggers

ALARM = {'alarm_name': 'cpu-high', 'current': 'alarm'}


@pytest.fixture
def public(api, config):
    config.config(group='api', enable_webhooks_auth=False)
    return api


@pytest.fixture
def audit(api):
    resp = api.post('/v1/audits', body={'goal': 'dummy', 'name': 'on-alarm',
                                        'audit_type': 'EVENT'})
    assert resp.status == 201, resp
    return resp.json


def audit_id(migrated, uuid):
    with migrated.begin() as conn:
        return conn.execute(sa.select(models.Audit.id).where(
            models.Audit.uuid == uuid)).scalar_one()


def trigger(api, ident):
    return api.post('/v1/webhooks/%s' % ident, body=ALARM)


@pytest.mark.parametrize('ident', ['name', 'id'])
def test_public_webhook_refuses_names_and_ids(public, audit, migrated,
                                              ident):
    ref = audit['name'] if ident == 'name' else audit_id(migrated,
                                                          audit['uuid'])
    resp = trigger(public, ref)
    assert resp.status == 400, resp
    assert resp.fault == (
        '%s is not an audit UUID. Public webhooks ([api] '
        'enable_webhooks_auth = False) name the audit by its UUID only: '
        'POST /v1/webhooks/<audit UUID>.' % ref)
    assert public.get('/v1/audits/' + audit['uuid']).json[
        'next_run_time'] is None


def test_authenticated_webhook_still_takes_names(api, audit):
    # Watcher's behaviour, kept where the caller is authenticated.
    assert trigger(api, audit['name']).status == 202


def test_public_webhook_triggers_by_uuid(public, audit):
    assert trigger(public, audit['uuid']).status == 202
    assert public.get('/v1/audits/' + audit['uuid']).json[
        'next_run_time'] is not None


def test_public_trigger_too_soon_is_429(public, audit):
    assert trigger(public, audit['uuid']).status == 202
    resp = trigger(public, audit['uuid'])
    assert resp.status == 429, resp
    assert resp.headers['Retry-After'] in ('4', '5')
    assert resp.fault == (
        'Audit %s was triggered less than 5 s ago, and public webhooks '
        'trigger an audit at most once every 5 s ([api] '
        'public_webhook_min_interval); retry in %s s.'
        % (audit['uuid'], resp.headers['Retry-After']))


def test_public_trigger_once_the_interval_has_passed(public, audit,
                                                     migrated):
    assert trigger(public, audit['uuid']).status == 202
    with migrated.begin() as conn:
        conn.execute(sa.update(models.Audit).where(
            models.Audit.uuid == audit['uuid']).values(
            webhook_triggered_at=models.utcnow()
            - datetime.timedelta(seconds=5)))
    assert trigger(public, audit['uuid']).status == 202


def test_the_interval_is_configurable(public, audit, config):
    config.config(group='api', public_webhook_min_interval=0)
    assert trigger(public, audit['uuid']).status == 202
    assert trigger(public, audit['uuid']).status == 202
    config.config(group='api', public_webhook_min_interval=60)
    resp = trigger(public, audit['uuid'])
    assert resp.status == 429, resp
    assert int(resp.headers['Retry-After']) > 55


def test_the_limit_holds_across_api_workers(public, audit):
    """Another worker (another app, same database) refuses too."""
    from watcher_ha.api import app
    other = Client(app.setup_app(CONF))
    assert trigger(public, audit['uuid']).status == 202
    assert trigger(other, audit['uuid']).status == 429


def test_racing_triggers_let_one_through(audit, admin_context):
    """Two triggers that read the audit before either wrote: the second
    loses the compare-and-swap and is told it came too soon."""
    row = audits_db.get(admin_context, audit['uuid'])
    webhook_triggers.trigger(admin_context, row, min_interval=5)
    with pytest.raises(exception.WebhookTooSoon):
        webhook_triggers.trigger(admin_context, row, min_interval=5)


def test_authenticated_triggers_are_not_limited(api, audit):
    assert trigger(api, audit['uuid']).status == 202
    assert trigger(api, audit['uuid']).status == 202
