"""Where the reference data the tests compare against lives: in the
repository, under tests/data/reference/, one folder per source, each with
a PROVENANCE.md saying where it came from and which tests read it."""

import pathlib

ROOT = pathlib.Path(__file__).resolve().parent / 'data' / 'reference'


def files(directory, pattern):
    """The files of ``directory`` matching ``pattern``, sorted by name.

    Finding none is an error, never a reason to skip: the data ships with
    the checkout, so its absence means a broken checkout or a wrong path.
    """
    found = sorted(pathlib.Path(directory).glob(pattern))
    if not found:
        raise FileNotFoundError(
            'No %s in %s: the reference data is part of the repository '
            '(tests/data/reference/); restore it from git.'
            % (pattern, directory))
    return found
