"""The excerpt of its daemons' logs that a failed functional test
reports (tests/functional/daemon_logs.py)."""

from tests.functional import daemon_logs


def line(number, level='INFO', second=30):
    return ('2026-11-29 04:56:%02d.%03d 11648 %s watcher_ha.applier.workflow '
            '[-] line %d' % (second, number, level, number))


def test_warnings_before_the_tail_then_the_tail(tmp_path):
    lines = [line(n, 'WARNING' if n in (3, 7) else 'INFO')
             for n in range(100)] + [line(100, 'ERROR')]
    (tmp_path / 'logs').mkdir()
    (tmp_path / 'logs' / 'applier-a.log').write_text('\n'.join(lines))
    (tmp_path / 'empty.log').write_text('')
    (tmp_path / 'watcher-ha.conf').write_text('[DEFAULT]\n')
    [(name, excerpt)] = daemon_logs.excerpts(tmp_path)
    assert name == 'logs/applier-a.log'
    shown = excerpt.splitlines()
    assert shown[0].startswith('-- the last 2 of 2 records at WARNING')
    assert shown[1:3] == [lines[3], lines[7]]
    assert shown[3] == '-- the last 25 of 101 records:'
    assert shown[4:] == lines[-25:]


def test_a_record_by_its_first_line_and_long_lines_cut():
    long = line(1) + ' x' * 400
    error = line(2, 'ERROR')
    traceback = [error[:error.index('[-]')] + part for part in (
        'Traceback (most recent call last):', '  File "x.py", line 1',
        'OSError: gone')]
    shown = daemon_logs.excerpt(
        [long, '\tcontinued without a prefix', error] + traceback
        + [line(3)]).splitlines()
    assert shown == ['-- the last 3 of 3 records:',
                     long[:daemon_logs.WIDTH] + ' ...', error, line(3)]


def test_a_log_of_another_format_whole():
    lines = ['=INFO REPORT==== 29-Nov-2026::04:56:30 ===', 'started', '']
    assert daemon_logs.excerpt(lines).splitlines() == [
        '-- the last 3 of 3 records:'] + lines[:2]
