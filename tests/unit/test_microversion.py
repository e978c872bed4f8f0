import pytest

from watcher_ha.api import microversion
from watcher_ha.common import exception


def parse(value):
    headers = {} if value is None else {'OpenStack-API-Version': value}
    return str(microversion.parse(headers))


@pytest.mark.parametrize('header,version', [
    (None, '1.0'), ('infra-optim 1.3', '1.3'), ('infra-optim latest', '1.8'),
    ('infra-optim LATEST', '1.8'), ('compute 2.5', '1.0'),
    ('infra-optim 1.7', '1.7'), ('infra-optim 1', '1.0')])
def test_negotiated(header, version):
    assert parse(header) == version


@pytest.mark.parametrize('header', ['infra-optim 1.99', 'infra-optim 1.9',
                                    'infra-optim 2.0', 'infra-optim 0.9'])
def test_out_of_range_is_406(header):
    with pytest.raises(microversion.VersionNotAcceptable) as err:
        parse(header)
    assert 'The supported version range is: [1.0, 1.8].' in err.value.message


@pytest.mark.parametrize('header', ['infra-optim 1.x', 'infra-optim abc',
                                    'infra-optim 1.2.3'])
def test_malformed_is_400(header):
    with pytest.raises(exception.Invalid):
        parse(header)


def test_versions_are_contiguous():
    minors = [int(v.split('.')[1]) for v in microversion.VERSIONS]
    assert minors == list(range(len(minors)))
