"""The moves of a recovery: recorded one at a time (an evacuation as it
goes) or all at once (a claim), a move under way or made kept as it is
when the recovery runs again."""

from watcher_ha.common import context as watcher_context
from watcher_ha.db import vmoves

NOTIFICATION = '5b1f3c55-0000-4000-8000-0000000000aa'
A, B, C = ('00000000-0000-4000-8000-00000000000%d' % i for i in (1, 2, 3))
KEEP = (vmoves.ONGOING, vmoves.SUCCEEDED)


def moves():
    found = vmoves.of(watcher_context.admin_context(), NOTIFICATION)
    return {uuid: (row['status'], row['dest_host'], row['source_host'],
                   row['message'], row['type'])
            for uuid, row in found.items()}


def test_a_claim_records_every_move_at_once(db):
    vmoves.record_many(watcher_context.admin_context(), NOTIFICATION, {
        A: {'status': vmoves.PENDING, 'dest_host': 'r-1', 'message': None},
        B: {'status': vmoves.PENDING, 'dest_host': 'r-2', 'message': None},
        C: {'status': vmoves.FAILED, 'message': 'no room'}},
        unless=KEEP, source_host='failed-1')
    assert moves() == {
        A: ('pending', 'r-1', 'failed-1', None, 'evacuation'),
        B: ('pending', 'r-2', 'failed-1', None, 'evacuation'),
        C: ('failed', None, 'failed-1', 'no room', 'evacuation')}


def test_run_again_it_updates_all_but_the_moves_under_way_or_made(db):
    context = watcher_context.admin_context()
    vmoves.record_many(context, NOTIFICATION, {
        uuid: {'status': vmoves.PENDING, 'dest_host': 'r-1'}
        for uuid in (A, B, C)}, source_host='failed-1')
    vmoves.record(context, NOTIFICATION, A, status=vmoves.ONGOING)
    vmoves.record(context, NOTIFICATION, B, status=vmoves.FAILED,
                  message='Nova refused')
    vmoves.record_many(context, NOTIFICATION, {
        uuid: {'status': vmoves.PENDING, 'dest_host': 'r-2',
               'message': None} for uuid in (A, B, C)},
        unless=KEEP, source_host='failed-1')
    assert moves() == {
        A: ('ongoing', 'r-1', 'failed-1', None, 'evacuation'),
        B: ('pending', 'r-2', 'failed-1', None, 'evacuation'),
        C: ('pending', 'r-2', 'failed-1', None, 'evacuation')}
    # One move at a time, as an evacuation records its own.
    vmoves.record(context, NOTIFICATION, A, unless=(vmoves.SUCCEEDED,),
                  status=vmoves.SUCCEEDED, dest_host='r-1')
    vmoves.record(context, NOTIFICATION, A, unless=(vmoves.SUCCEEDED,),
                  status=vmoves.FAILED)
    assert moves()[A][:2] == ('succeeded', 'r-1')
