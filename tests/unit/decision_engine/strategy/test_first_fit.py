"""The first host, in order, with room for a server."""

from watcher_ha.decision_engine.strategy import first_fit

ROOM = {'a': (2, 2048, 20), 'b': (8, 1024, 100), 'c': (8, 8192, 100),
        'd': (1, 512, 10), 'e': (16, 16384, 500)}


def tree(hostnames='abcde'):
    return first_fit.FirstFit({h: ROOM[h] for h in hostnames})


def test_first_in_order_with_room_for_every_resource():
    fit = tree()
    assert fit.first((1, 512, 10)) == 'a'
    assert fit.first((4, 512, 10)) == 'b'
    assert fit.first((4, 2048, 10)) == 'c'     # b lacks memory
    assert fit.first((10, 512, 10)) == 'e'
    assert fit.first((32, 512, 10)) is None


def test_measured_dimensions_after_placement_s():
    room = (8, 8192, 100)
    fit = first_fit.FirstFit({'w': room + (1,), 'x': room + (5,),
                              'y': (1, 8192, 100, 9), 'z': room + (9,)})
    assert fit.first((1, 512, 10, 4)) == 'x'
    assert fit.first((1, 512, 10, 0)) == 'w'
    assert fit.first((2, 512, 10, 6)) == 'z'    # y lacks vcpus
    assert fit.first((1, 512, 10, 10)) is None
    fit.set('x', room + (0,))
    assert fit.first((1, 512, 10, 4)) == 'y'


def test_take_give_back_and_drop():
    fit = tree()
    fit.take('c', (8, 0, 0))
    assert fit.room('c') == (0, 8192, 100)
    assert fit.first((4, 2048, 10)) == 'e'
    fit.give_back('c', (8, 0, 0))
    assert fit.first((4, 2048, 10)) == 'c'
    fit.drop('c')
    assert fit.first((4, 2048, 10)) == 'e'
    assert 'c' in fit and 'x' not in fit


def test_accept_filters_hosts_with_room():
    assert tree().first((1, 512, 10), accept=lambda h: h > 'c') == 'd'


def test_empty_and_odd_sized_lists():
    assert tree('').first((0, 0, 0)) is None
    assert tree('abc').first((8, 8192, 100)) == 'c'
