"""Horizon 27 with the unmodified watcher-dashboard 16 and
masakari-dashboard 15 (from PyPI) logs in to the all-in-one's embedded
Keystone and renders every Optimization and Instance-HA panel with our
objects, in a real headless browser (Debian's chromium and
chromium-driver, driven by selenium).

Horizon finds both APIs in the Keystone catalog the all-in-one registers
them in, calls them with its users' tokens (keystonemiddleware validates
them at that Keystone) and shows the dashboards only when the token's
roles pass their policies. Needs: chromium and chromedriver (``make
test-tools`` installs them under CI=true) and the network to PyPI the
first time (the virtualenv is kept in .bench/). Under CI=true a missing
piece fails the test instead of skipping it.
"""

import contextlib
import datetime
import os
import shutil

import pytest
import requests
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.functional import embedded_cloud
from tests.functional import fixtures
from tests.functional import horizon
from tests.functional import identity
from tests.functional import services
from tests.functional.fixtures import wait_for
from watcher_ha.simulator import scenario

pytestmark = pytest.mark.functional

# (path, what the page must show); the objects are made by `seeded`.
PANELS = (
    ('/admin/goals/', ['dummy', 'cluster_maintaining']),
    ('/admin/strategies/', ['dummy', 'host_maintenance']),
    ('/admin/audit_templates/', ['horizon-template']),
    ('/admin/audits/', ['horizon-audit']),
    ('/admin/action_plans/', ['{plan}']),
    ('/admin/actions/', ['{action}']),
    ('/masakaridashboard/segments/', ['horizon-segment', '{segment}']),
    ('/masakaridashboard/hosts/', ['{failed}', '{segment}']),
    ('/masakaridashboard/notifications/', ['{notification}']),
    ('/masakaridashboard/vmoves/', ['{moved}']),
)
HA = {'OpenStack-API-Version': 'instance-ha 1.3'}


def required(found, what):
    """``found``, or the test fails (CI=true) or is skipped saying
    ``what`` is missing."""
    if not found:
        message = '%s is missing for the Horizon browser test' % what
        if os.environ.get('CI') == 'true':
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture(scope='module')
def browser():
    chromium = required(shutil.which('chromium'), 'chromium (Debian)')
    driver = required(shutil.which('chromedriver'),
                      'chromedriver (Debian: chromium-driver)')
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ('--headless=new', '--no-sandbox', '--disable-gpu',
                     '--disable-dev-shm-usage', '--window-size=1400,1000'):
        options.add_argument(argument)
    found = webdriver.Chrome(
        service=webdriver.ChromeService(executable_path=driver),
        options=options)
    found.set_page_load_timeout(180)
    try:
        yield found
    finally:
        found.quit()


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    """(cloud URL, Keystone URL, admin session, failed host) of an
    all-in-one serving a small cloud with keystone auth at its embedded
    Keystone."""
    tmp_path = tmp_path_factory.mktemp('horizon')
    spec = scenario.generate(hosts=3, servers=4, seed=7)
    failed = spec['servers'][0]['host']
    for server in spec['servers']:
        server['metadata'] = {'HA_Enabled': 'True'}
    with services.embedded_all_in_one(tmp_path, spec) as (_, cloud_url):
        keystone_url = cloud_url + '/identity/v3'
        yield (cloud_url, keystone_url, embedded_cloud.session(keystone_url),
               failed)


def _api(session, method, path, body=None):
    resp = session.request(path, method, json=body, endpoint_filter={
        'service_type': 'infra-optim'}, raise_exc=False)
    assert resp.status_code < 300, resp.text
    return resp.json() if resp.content else None


def _ha(session, method, path, body=None):
    resp = session.request(path, method, json=body, headers=HA,
                           endpoint_filter={'service_type': 'instance-ha'},
                           raise_exc=False)
    assert resp.status_code < 300, resp.text
    return resp.json() if resp.content else None


@pytest.fixture(scope='module')
def seeded(cloud):
    """One object of each kind the panels list, made through the APIs
    with the admin's token: {name: what the pages must show}."""
    cloud_url, _, admin, failed = cloud
    _api(admin, 'POST', '/v1/audit_templates',
         {'name': 'horizon-template', 'goal': 'dummy'})
    audit = _api(admin, 'POST', '/v1/audits', {
        'name': 'horizon-audit', 'audit_type': 'ONESHOT', 'goal': 'dummy',
        'strategy': 'dummy'})
    wait_for(lambda: _api(admin, 'GET', '/v1/audits/' + audit['uuid'])[
        'state'] == 'SUCCEEDED', 60, 'the audit SUCCEEDED')
    [plan] = _api(admin, 'GET', '/v1/action_plans?audit_uuid='
                  + audit['uuid'])['action_plans']
    actions = _api(admin, 'GET', '/v1/actions?action_plan_uuid='
                   + plan['uuid'])['actions']
    segment = _ha(admin, 'POST', '/segments', {'segment': {
        'name': 'horizon-segment', 'recovery_method': 'auto',
        'service_type': 'COMPUTE'}})['segment']
    _ha(admin, 'POST', '/segments/%s/hosts' % segment['uuid'], {'host': {
        'name': failed, 'type': 'COMPUTE', 'control_attributes': 'SSH'}})
    # The host fails (its power lost), then is reported.
    requests.post('%s/simulator/hosts/%s/fail' % (cloud_url, failed),
                  timeout=10).raise_for_status()
    notification = _ha(admin, 'POST', '/notifications', {'notification': {
        'type': 'COMPUTE_HOST', 'hostname': failed,
        'generated_time': datetime.datetime.now(
            datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S'),
        'payload': {'event': 'STOPPED', 'host_status': 'NORMAL',
                    'cluster_status': 'OFFLINE'}}})['notification']
    path = '/notifications/%s/vmoves' % notification['notification_uuid']
    moves = wait_for(lambda: _ha(admin, 'GET', path)['vmoves'], 120,
                     'the recovery\'s server moves')
    return {'plan': plan['uuid'], 'action': actions[0]['uuid'],
            'segment': segment['uuid'], 'failed': failed,
            'notification': notification['notification_uuid'],
            'moved': moves[0]['instance_name']}


@pytest.fixture(scope='module')
def dashboard(cloud, tmp_path_factory):
    python, why = horizon.python()
    required(python, 'Horizon\'s virtualenv (%s)' % why)
    log = tmp_path_factory.mktemp('horizon-log') / 'horizon.log'
    with horizon.serving(python, cloud[1], log) as url:
        yield url


def _page_text(browser):
    return browser.find_element(By.TAG_NAME, 'body').text


def _errors(browser):
    return [e.text for e in browser.find_elements(
        By.CSS_SELECTOR, '.alert-danger, .alert-error')]


def test_horizon_logs_in_and_renders_every_panel(browser, dashboard,
                                                 seeded):
    browser.get(dashboard + '/auth/login/?next=/admin/goals/')
    browser.find_element(By.ID, 'id_username').send_keys(
        identity.ADMIN['name'])
    browser.find_element(By.ID, 'id_password').send_keys(
        identity.ADMIN['password'])
    browser.find_element(By.CSS_SELECTOR, 'button[type=submit]').click()
    # The click returns before the browser follows the login's redirect:
    # the URL read at once may still be the login page's.
    # A login that never leaves the page is told by the assert below.
    with contextlib.suppress(TimeoutException):
        WebDriverWait(browser, fixtures.Bound(work=10).seconds()).until(
            lambda b: '/auth/login/' not in b.current_url or _errors(b))
    assert browser.current_url == dashboard + '/admin/goals/', (
        browser.current_url, _errors(browser) or _page_text(browser))
    menu = _page_text(browser)
    # Horizon shows each dashboard only if its service is in the catalog
    # and the token's roles pass its policy.
    assert 'Optimization' in menu and 'Instance-ha' in menu, menu
    for path, expected in PANELS:
        browser.get(dashboard + path)
        text = _page_text(browser)
        wanted = [item.format(**seeded) for item in expected]
        missing = [item for item in wanted if item not in text]
        assert not missing, (path, missing, text)
        assert not _errors(browser), (path, _errors(browser))
