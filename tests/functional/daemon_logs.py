"""What a failed functional test's daemons logged, cut to what a CI
report can carry: of each *.log file under the test's directory, the
lines logged at WARNING and above (the last few), then its last lines.
The lines in between are in the file, which CI does not keep."""

import pathlib
import re

# oslo.log's default format: date, time, pid, level, logger, ...
LEVEL = re.compile(r'^\S+ \S+ \d+ (WARNING|ERROR|CRITICAL) ')
NOTABLE = 15
LAST = 25
# Long enough for a logger, a request id and the start of the message.
WIDTH = 320


def excerpts(directory):
    """[(the log's path under ``directory``, its excerpt)] for each
    non-empty *.log file under it, by name."""
    directory = pathlib.Path(directory)
    found = []
    for path in sorted(directory.rglob('*.log')):
        try:
            lines = path.read_text(errors='replace').splitlines()
        except OSError:
            continue
        if lines:
            found.append((str(path.relative_to(directory)), excerpt(lines)))
    return found


def excerpt(lines):
    """The notable lines and the last ones of ``lines``, each cut to
    WIDTH characters."""
    notable = [line for line in lines[:-LAST] if LEVEL.match(line)]
    parts = []
    if notable:
        parts.append('-- the last %d of %d lines at WARNING or above '
                     'before the end:' % (min(NOTABLE, len(notable)),
                                          len(notable)))
        parts.extend(notable[-NOTABLE:])
    parts.append('-- the last %d of %d lines:' % (min(LAST, len(lines)),
                                                  len(lines)))
    parts.extend(lines[-LAST:])
    return '\n'.join(line if len(line) <= WIDTH else line[:WIDTH] + ' ...'
                     for line in parts)
