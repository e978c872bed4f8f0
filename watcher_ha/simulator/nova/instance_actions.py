"""Nova's instance actions (``os-instance-actions``): a record of each
action asked of a server, written by nova-api as it accepts the request
(before any compute acts on it: a reboot cast to a dead compute is
recorded all the same), newest first, with the request's id. What a
client reads to tell whether an action was asked since a moment."""

import uuid as uuidlib

# The server action bodies' keys -> the action name Nova records.
RECORDED = {'os-stop': 'stop', 'os-start': 'start', 'reboot': 'reboot',
            'pause': 'pause', 'unpause': 'unpause', 'suspend': 'suspend',
            'resume': 'resume', 'os-migrateLive': 'live-migration',
            'migrate': 'migrate', 'resize': 'resize',
            'confirmResize': 'confirmResize',
            'revertResize': 'revertResize', 'evacuate': 'evacuate',
            'shelve': 'shelve', 'unshelve': 'unshelve', 'lock': 'lock',
            'unlock': 'unlock'}


def record(server, action, now):
    """Record ``action`` (Nova's name) asked of ``server`` at ``now``."""
    server.actions.append({
        'action': action, 'instance_uuid': server.uuid,
        'request_id': 'req-%s' % uuidlib.uuid4(), 'message': None,
        'project_id': server.tenant_id, 'user_id': server.user_id,
        'start_time': now, 'updated_at': now})

