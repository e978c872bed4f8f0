import pytest

from watcher_ha.api import microversion
from watcher_ha.common import exception


def parse(value):
    headers = {} if value is None else {'OpenStack-API-Version': value}
    return str(microversion.parse(headers))


@pytest.mark.parametrize('header,version', [
    (None, '1.0'), ('infra-optim 1.3', '1.3'), ('infra-optim latest', '1.7'),
    ('infra-optim LATEST', '1.7'), ('compute 2.5', '1.0'),
    ('infra-optim 1.7', '1.7'), ('infra-optim 1', '1.0')])
def test_negotiated(header, version):
    assert parse(header) == version


@pytest.mark.parametrize('header', ['infra-optim 1.99', 'infra-optim 1.8',
                                    'infra-optim 2.0', 'infra-optim 0.9'])
def test_out_of_range_is_406(header):
    with pytest.raises(microversion.VersionNotAcceptable) as err:
        parse(header)
    assert 'The supported version range is: [1.0, 1.7].' in err.value.message


@pytest.mark.parametrize('header', ['infra-optim 1.x', 'infra-optim abc',
                                    'infra-optim 1.2.3'])
def test_malformed_is_400(header):
    with pytest.raises(exception.Invalid):
        parse(header)


def test_versions_are_contiguous():
    minors = [int(v.split('.')[1]) for v in microversion.VERSIONS]
    assert minors == list(range(len(minors)))


def extension(value):
    headers = {} if value is None else {'OpenStack-API-Version': value}
    found = microversion.parse_extension(headers)
    return None if found is None else str(found)


@pytest.mark.parametrize('header,version', [
    (None, None), ('infra-optim 1.7', None),
    ('infra-optim 1.7, watcher-ha 1.1', '1.1'), ('watcher-ha 1.0', '1.0'),
    ('watcher-ha latest', microversion.EXTENSION_VERSIONS[-1])])
def test_our_additions_have_their_own_family(header, version):
    assert extension(header) == version


def test_infra_optim_stops_where_watcher_17_does():
    """Watcher 17's newest is 1.7: a later Watcher may give 1.8 any
    meaning without clashing with ours."""
    assert microversion.VERSIONS[-1] == '1.7'
    with pytest.raises(microversion.VersionNotAcceptable):
        parse('infra-optim 1.8')


@pytest.mark.parametrize('header', ['watcher-ha 1.9', 'watcher-ha 2.0'])
def test_an_extension_out_of_range_is_406_naming_its_family(header):
    with pytest.raises(microversion.VersionNotAcceptable) as err:
        extension(header)
    assert ('The supported watcher-ha version range is: [1.0, %s].'
            % microversion.EXTENSION_VERSIONS[-1]) in err.value.message


def test_requested_versions():
    both = microversion.Requested(
        microversion.microversion_parse.parse_version_string('1.5'),
        microversion.microversion_parse.parse_version_string('1.1'))
    assert both.at_least('1.5') and not both.at_least('1.6')
    assert both.at_least('watcher-ha 1.1')
    assert not microversion.Requested(both.api).at_least('watcher-ha 1.1')


def test_the_answer_names_our_family_only_when_asked():
    version = microversion.microversion_parse.parse_version_string('1.7')
    assert microversion.version_header(version) == 'infra-optim 1.7'
    assert microversion.version_header(version, version.__class__(1, 1)) \
        == 'infra-optim 1.7, watcher-ha 1.1'


def test_the_readme_gives_the_ranges_served():
    """README.rst names the microversions the API serves: Watcher's
    family and ours, as VERSIONS and EXTENSION_VERSIONS say."""
    import pathlib
    import re
    readme = (pathlib.Path(__file__).resolve().parents[3]
              / 'README.rst').read_text()
    ranges = re.findall(r'``(infra-optim|watcher-ha)`` (\d+\.\d+) to '
                        r'(\d+\.\d+)', ' '.join(readme.split()))
    assert ranges == [
        ('infra-optim', microversion.VERSIONS[0], microversion.VERSIONS[-1]),
        ('watcher-ha', microversion.EXTENSION_VERSIONS[0],
         microversion.EXTENSION_VERSIONS[-1])]
