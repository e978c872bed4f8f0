"""The resize action against the simulator's Compute API (novaclient,
auth_type none): it resizes a server to a flavor given by id or name,
confirms the resize and waits for the server to rest with it; it is
skipped for a server gone or of that flavor already; an unknown flavor
or a server Nova does not resize fails it, saying why; after its applier
died, a resize waiting for its confirmation is confirmed."""

import pytest

from tests.functional.cloud import nova_of_this_process_on
from tests.functional.fixtures import wait_for
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import resize
from watcher_ha.simulator import scenario


@pytest.fixture(scope='module')
def cloud(conf, tmp_path_factory):
    spec = scenario.generate(hosts=2, servers=3, seed=4)
    spec['bandwidth_mb_per_s'] = 10 ** 6
    for server, name in zip(spec['servers'], ('one', 'two', 'paused')):
        server.update(name=name, flavor='m1.small', state='active')
    with nova_of_this_process_on(tmp_path_factory.mktemp('sim'),
                                 spec) as found:
        yield found


def flavor_of(client, uuid):
    return client.servers.get(uuid).flavor['original_name']


def action(uuid, flavor):
    return resize.Resize({'resource_id': uuid, 'flavor': flavor})


@pytest.mark.parametrize('server,flavor', [('one', 'm1.medium'),
                                           ('two', '4')])
def test_a_server_gets_the_flavor_by_name_or_id(cloud, server, flavor):
    client, servers = cloud
    resizing = action(servers[server], flavor)
    assert resizing.recover(None) == base.NOT_DONE
    resizing.pre_condition()
    resizing.execute()
    resizing.post_condition()
    found = client.servers.get(servers[server])
    assert found.status == 'ACTIVE'
    assert found.flavor['original_name'] == {'m1.medium': 'm1.medium',
                                             '4': 'm1.large'}[flavor]
    assert resizing.recover(None) == base.DONE
    with pytest.raises(base.ActionSkipped, match='has the flavor'):
        action(servers[server], flavor).pre_condition()


def test_a_resize_left_unconfirmed_by_a_dead_applier_is_confirmed(cloud):
    client, servers = cloud
    client.servers.resize(servers['one'], '1')
    wait_for(lambda: client.servers.get(servers['one']).status
             == 'VERIFY_RESIZE', 30, 'the resize to wait for confirmation')
    assert action(servers['one'], 'm1.tiny').recover(None) == base.DONE
    found = client.servers.get(servers['one'])
    assert (found.status, found.flavor['original_name']) == ('ACTIVE',
                                                             'm1.tiny')


def test_refusals_say_why(cloud):
    client, servers = cloud
    with pytest.raises(base.ActionSkipped, match='does not exist any more'):
        action('9d5e3c55-0000-4000-8000-000000000000',
               'm1.tiny').pre_condition()
    with pytest.raises(base.ActionError,
                       match='flavor m9.huge does not exist'):
        action(servers['two'], 'm9.huge').pre_condition()
    client.servers.pause(servers['paused'])
    with pytest.raises(base.ActionError,
                       match='is PAUSED: Nova resizes only ACTIVE or '
                             'SHUTOFF'):
        action(servers['paused'], 'm1.tiny').pre_condition()


def test_its_parameters_are_watchers():
    resize.Resize.validate({'resource_id':
                            '9d5e3c55-0000-4000-8000-000000000000',
                            'flavor': 'm1.small'})
    for bad in ({'resource_id': '9d5e3c55-0000-4000-8000-000000000000'},
                {'resource_id': 'vm', 'flavor': 'm1.small'},
                {'resource_id': '9d5e3c55-0000-4000-8000-000000000000',
                 'flavor': ''}):
        with pytest.raises(ValueError, match='invalid input_parameters'):
            resize.Resize.validate(bad)
