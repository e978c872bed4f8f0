"""What a failed functional test's daemons logged, cut to what a CI
report can carry: of each *.log file under the test's directory, the
records logged at WARNING and above (the last few), then its last
records, each by its first line (a traceback's other lines would crowd
out the rest). The lines left out are in the file, which CI does not
keep."""

import pathlib
import re

# oslo.log's default format: date, time, pid, level, logger, ... A
# record of several lines repeats the same prefix on each.
RECORD = re.compile(r'^(\S+ \S+ \d+ (\S+) \S+) ')
NOTABLE_LEVELS = ('WARNING', 'ERROR', 'CRITICAL')
# What a line of another format has for a record's level: none.
NONE = re.match('()()', '')
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
    """The notable records and the last ones of ``lines``, each cut to
    WIDTH characters."""
    records = first_lines(lines)
    notable = [line for line in records[:-LAST]
               if (RECORD.match(line) or NONE).group(2) in NOTABLE_LEVELS]
    parts = []
    if notable:
        parts.append('-- the last %d of %d records at WARNING or above '
                     'before the end:' % (min(NOTABLE, len(notable)),
                                          len(notable)))
        parts.extend(notable[-NOTABLE:])
    parts.append('-- the last %d of %d records:' % (
        min(LAST, len(records)), len(records)))
    parts.extend(records[-LAST:])
    return '\n'.join(line if len(line) <= WIDTH else line[:WIDTH] + ' ...'
                     for line in parts)


def first_lines(lines):
    """The first line of each record of ``lines``: those of another
    format (not a daemon's log) whole."""
    if not any(RECORD.match(line) for line in lines):
        return list(lines)
    records, last = [], None
    for line in lines:
        found = RECORD.match(line)
        if found is None or found.group(1) == last:
            continue
        records.append(line)
        last = found.group(1)
    return records
