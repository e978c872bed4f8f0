"""Pecan inspects every controller's signature several times per request,
building a new namedtuple class each time; that was a third of the time of
GET /v1/audits?limit=50. Signatures do not change while the process runs,
so they are computed once.
"""

import collections
import functools
import inspect

from pecan import util as pecan_util

ArgSpec = collections.namedtuple('ArgSpec', 'args varargs keywords defaults')


@functools.lru_cache(maxsize=4096)
def _argspec(func):
    args, varargs, keywords, defaults = inspect.getfullargspec(func)[:4]
    return ArgSpec(args, varargs, keywords, defaults)


def install():
    # pecan.util drills through decorators with this helper; every pecan
    # module asks pecan.util, so replacing it there is enough.
    pecan_util._getargspec = _argspec
