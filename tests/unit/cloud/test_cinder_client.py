"""watcher_ha's Cinder client: ``[cinder]`` keystoneauth options
(service type block-storage, microversion 3.60), Watcher 17's
``[cinder_client]`` region_name (a deprecated alias) and endpoint_type
(read, as Watcher 17 reads it, only when ``[cinder]`` sets no
interface), and Watcher's shared ``[watcher_clients_auth]``
credentials."""

from tests import private_conf
from watcher_ha.cloud import clients


def _conf(tmp_path, text):
    path = tmp_path / 'watcher.conf'
    path.write_text(text)
    return private_conf.private_conf(['--config-file', str(path)])


def test_the_adapter_is_on_block_storage_at_3_60(tmp_path):
    conf = _conf(tmp_path, '[cinder]\nauth_type = none\n'
                           'endpoint_override = http://sim/volume/v3\n')
    assert clients.configured(conf, clients.CINDER_GROUP) is None
    adapter = clients.cinder(conf)
    assert adapter.service_type == 'block-storage'
    assert adapter.default_microversion == '3.60'
    assert adapter.endpoint_override == 'http://sim/volume/v3'
    # [cinder_client] endpoint_type's default, publicURL.
    assert adapter.interface == 'public'


def test_watchers_cinder_client_options_are_read(tmp_path):
    conf = _conf(tmp_path, '[cinder]\nauth_type = none\n'
                           '[cinder_client]\nendpoint_type = internalURL\n'
                           'region_name = RegionTwo\n')
    adapter = clients.cinder(conf)
    assert (adapter.interface, adapter.region_name) == ('internal',
                                                        'RegionTwo')


def test_cinders_own_interface_wins(tmp_path):
    conf = _conf(tmp_path, '[cinder]\nauth_type = none\n'
                           'valid_interfaces = admin\n'
                           '[cinder_client]\nendpoint_type = internalURL\n')
    assert clients.cinder(conf).interface == ['admin']


def test_without_credentials_it_says_what_to_set(tmp_path):
    conf = _conf(tmp_path, '[DEFAULT]\nhost = a\n')
    assert '[cinder] auth_type is not set' in clients.configured(
        conf, clients.CINDER_GROUP)
    shared = _conf(tmp_path, '[watcher_clients_auth]\nauth_type = none\n')
    assert clients.auth_group(shared, 'cinder') == 'watcher_clients_auth'
    assert clients.configured(shared, clients.CINDER_GROUP) is None
