"""The answer of ``GET /v1/action_plans/{uuid}/what_if`` as an operator
reads it in a terminal: what the projection started from, the hosts
before and after (those the plan changes first, the busiest after first),
the worst moment, the efficacy indicators, each failover segment's room
and the disruption budget (``watcher-ha what-if``)."""

RESOURCES = (('vcpus', 'vCPU'), ('memory_mb', 'RAM'), ('disk_gb', 'disk'))
# Hosts shown before "... N more" (``--all-hosts`` asks the API for all,
# ``--rows`` shows more).
ROWS = 40


def table(header, rows, left=(0,)):
    """``rows`` (lists of cells) under ``header``, in columns; those
    ``left`` (their indexes: words) left-aligned, the others (numbers)
    right-aligned."""
    cells = [list(header)] + [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]

    def line(row):
        return '  '.join(
            cell.ljust(width) if i in left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
    return [line(cells[0]), line(['-' * w for w in widths])] + [
        line(row) for row in cells[1:]]


def percent(value):
    return '-' if value is None else '%.1f' % value


def arrow(before, after, shown=percent):
    """'before -> after', or the one value where they are the same."""
    if before == after:
        return shown(before)
    return '%s -> %s' % (shown(before), shown(after))


def _node(side):
    """A node's service and power, where they are not enabled and up."""
    words = [word for word, normal in ((side['status'], 'enabled'),
                                       (side['state'], 'up'))
             if word != normal]
    return ' '.join(words) or 'ok'


def _host_rows(hosts, rows):
    ordered = sorted(hosts, key=lambda h: (
        not h['changed'], -h['after']['load_percent'], h['name']))
    shown = []
    for host in ordered[:rows]:
        before, after = host['before'], host['after']
        over = ' !' if after['load_percent'] > 100 else ''
        shown.append(
            [host['name'] + ('' if host['changed'] else ' (unchanged)'),
             arrow(before['servers'], after['servers'], str)]
            + [arrow(before[key]['percent'], after[key]['percent'])
               for key, _ in RESOURCES]
            + [arrow(before['load_percent'], after['load_percent']) + over,
               arrow(before['cpu_utilisation_percent'],
                     after['cpu_utilisation_percent']),
               arrow(_node(before), _node(after), str)])
    return shown, len(ordered) - len(shown)


def render(answer, rows=ROWS):
    """The lines that tell ``answer`` (the API's JSON)."""
    model = answer['model']
    lines = [
        'What-if of action plan %s (%s), goal %s, strategy %s' % (
            answer['action_plan_uuid'], answer['state'], answer['goal'],
            answer['strategy'] or '-'),
        'Projected on the %s model of decision engine %s (generation %s, '
        'resynced %s s ago), in %d step(s) of the planner\'s order.' % (
            model['name'], model['host'], model['generation'],
            _seconds(model['seconds_since_resync']), answer['steps']),
    ]
    if answer['stale']:
        lines += ['', 'The model differs from what the plan expected in %d '
                      'place(s); projected from the model as it is now:'
                  % answer['differences_count']]
        lines += ['  - %s (%s %s)' % (d['difference'], d['action_type'],
                                      d['action_uuid'])
                  for d in answer['differences']]
    usage = answer['cpu_utilisation']
    shown, more = _host_rows(answer['hosts'], rows)
    lines += ['', 'Hosts: %d of %d changed (percent of what each can give; '
                  'load: the highest of the three)' % (
                      answer['hosts_changed'], answer['hosts_total'])]
    lines += table(['host', 'servers'] + ['%s %%' % name
                                          for _, name in RESOURCES]
                   + ['load %', 'CPU used %', 'node'], shown, left=(0, 7))
    if more:
        lines.append('... %d more host(s) (--rows to show them)' % more)
    if not usage['available']:
        lines.append('CPU used: no metrics (%s).' % usage['reason'])
    lines += ['', _worst(answer)]
    highest = answer['highest_load_percent']
    if highest['before'] and highest['after']:
        lines.append('Busiest host before: %s at %s %%; after: %s at %s %%.'
                     % (highest['before']['host'],
                        percent(highest['before']['load_percent']),
                        highest['after']['host'],
                        percent(highest['after']['load_percent'])))
    lines += _indicators(answer)
    lines += _segments(answer['failover_segments'])
    lines += ['', 'Disruption budget (0: no limit)']
    lines += table(['limit', 'value', 'used', 'where', 'within'], [
        [b['name'], b['limit'], b['used'], b['where'] or '-',
         'yes' if b['within'] else 'NO'] for b in answer['budgets']],
        left=(0, 3, 4))
    lines += _actions(answer['actions'])
    return lines


def _seconds(value):
    return '?' if value is None else '%.0f' % value


def _worst(answer):
    worst = answer['worst_moment']
    if worst is None:
        return 'Worst moment: none (the plan moves nothing).'
    return ('Worst moment: %s at %s %% (%s) in step %d, once %s %s (%s) '
            'started, %d action(s) running then.' % (
                worst['host'], percent(worst['load_percent']),
                worst['resource'], worst['step'], worst['action_type'],
                worst['action_uuid'], worst['resource_id'] or '-',
                worst['running']))


def _indicators(answer):
    if not answer['efficacy_indicators']:
        return ['', 'Efficacy indicators: none.']
    return ['', 'Efficacy indicators'] + table(
        ['indicator', 'stored', 'projected'],
        [[i['name'], _value(i['stored']), _value(i['projected'])]
         for i in answer['efficacy_indicators']])


def _value(value):
    if value is None:
        return '-'
    return '%g' % value


def _segments(segments):
    if not segments:
        return ['', 'Failover segments: none.']
    rows = []
    for segment in segments:
        before, after = segment['before'], segment['after']
        rows.append([
            segment['name'], segment['recovery_method'],
            '%s of %d' % (arrow(before['absorbed'], after['absorbed'], str),
                          after['hosts']),
            arrow(len(before['reserved_hosts']),
                  len(after['reserved_hosts']), str),
            arrow(before['reserved_free']['vcpus'],
                  after['reserved_free']['vcpus'], _value),
            arrow(before['reserved_free']['memory_mb'],
                  after['reserved_free']['memory_mb'], _value),
            _some(after['not_absorbed'],
                  after['hosts'] - after['absorbed'])])
    return ['', 'Failover segments: hosts whose failure the segment absorbs'
                ] + table(['segment', 'method', 'absorbed', 'reserved',
                           'reserved vCPU free', 'reserved RAM MB free',
                           'not absorbed after'], rows, left=(0, 1, 6))


def _some(names, count, shown=3):
    """The first ``shown`` of ``names`` and how many more of ``count``."""
    if not count:
        return '-'
    more = count - min(shown, len(names))
    return ', '.join(names[:shown]) + (' and %d more' % more if more
                                       else '')


def _actions(actions):
    lines = ['', 'Actions: %s' % ', '.join(
        '%d %s' % (count, kind)
        for kind, count in sorted(actions['total'].items()))]
    for item in actions['not_projected']:
        lines.append('  not projected: %d %s (%s)' % (
            item['count'], item['action_type'], item['why']))
    for item in actions['unplaced']:
        lines.append('  Nova would find no host: %s %s (%s)' % (
            item['action_type'], item['action_uuid'], item['why']))
    return lines


def render_replay(replay):
    """The lines that tell a replay (the ``replay`` of the CLI's JSON,
    cmd/replay.py): the simulated cloud, how long the plan took, per
    action type, its slowest lane, and whether the replayed cloud ended
    as projected."""
    cloud, timings = replay['cloud'], replay['cloud']['timings']
    model = cloud['model'] or {}
    lines = ['', 'Replay on a simulated copy of the cloud: %d host(s), %d '
                 'server(s) from the compute model of decision engine %s '
                 '(generation %s).' % (cloud['hosts'], cloud['servers'],
                                       model.get('host', '?'),
                                       model.get('generation', '?')),
             'Live migrations at %g MB/s (%s at a time per source host), '
             'evacuations %g s, power actions %g s; the applier looking '
             'every %g s, %d worker(s) at least.' % (
                 timings['bandwidth_mb_per_s'],
                 timings['max_concurrent_live_migrations'] or 'any number',
                 timings['evacuate_seconds'], timings['power_seconds'],
                 cloud['poll_interval'], cloud['workers'])]
    if replay['speedup'] != 1:
        lines.append('Replayed %g times faster than the cloud; the times '
                     'below are the cloud\'s.' % replay['speedup'])
    states = {}
    for action in replay['actions']:
        states[action['state']] = states.get(action['state'], 0) + 1
    ended = ', '.join('%d %s' % (count, state.lower().replace('_', ' '))
                      for state, count in sorted(states.items()))
    if replay['state'] == 'SUCCEEDED':
        lines.append('The plan took %.1f s, from its first action\'s '
                     'start to its last one\'s end: %s.' % (
                         replay['seconds'], ended or 'no action'))
    else:
        lines.append('The plan FAILED after %.1f s (%s): %s' % (
            replay['seconds'], ended, replay['message']))
    lines += [''] + table(
        ['action type', 'count', 'total s', 'longest s'],
        [[t['action_type'], t['count'], '%.1f' % t['seconds'],
          '%.1f' % t['longest']] for t in replay['action_types']])
    lane = replay['slowest_lane']
    if lane is not None:
        lines += ['', 'Slowest lane: %d %s, %.1f s of actions, from %s s to '
                      '%s s of the plan (%s).' % (
                          lane['count'], lane['action_type'],
                          lane['seconds'], _at(lane['started']),
                          _at(lane['ended']), _some(
                              lane['actions'], lane['count'], shown=2))]
    for item in replay['not_replayed']:
        lines.append('  not replayed: %d %s (%s)' % (
            item['count'], item['action_type'], item['why']))
    if replay['busy']:
        lines.append('This process was busy %.0f %% of the replay: its own '
                     'work, counted %g times, lengthens these times; replay '
                     'with a lower --replay-speedup.' % (
                         100 * replay['cpu_share'], replay['speedup']))
    off = replay['off_projection']
    if not off:
        lines.append('The replayed cloud ends as projected: each host '
                     'listed above within 1 %.')
    else:
        lines.append('The replayed cloud is off the projection in %d '
                     'place(s):' % len(off))
        lines += ['  - %s %s %s: projected %s, replayed %s' % (
            o['host'], o['resource'], o['side'], _value(o['projected']),
            _value(o['replayed'])) for o in off[:10]]
    return lines


def _at(seconds):
    return '?' if seconds is None else '%.1f' % seconds
