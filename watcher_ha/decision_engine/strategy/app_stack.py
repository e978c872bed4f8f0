"""The Heat side of an active/standby application's plan (the strategy
active_standby), when the audit names the application's stack
(``stack``): for a replacement through Heat (``replacement`` ``heat``)
and a Heat signal activation (``activation`` ``heat_signal``). Heat's
rules are cloud/stacks.py's."""

from heatclient import exc as heat_exc
from oslo_config import cfg
from oslo_log import log

from watcher_ha.cloud import clients
from watcher_ha.cloud import stacks
from watcher_ha.common.app_failover import members
from watcher_ha.decision_engine.strategy import base

CONF = cfg.CONF
LOG = log.getLogger(__name__)


class AppStack:
    """The application's top stack (``ref``: ``name/id``), through
    ``heat``."""

    def __init__(self, heat, ref):
        self.heat = heat
        self.ref = ref

    def replacement(self, failed, common):
        """The parameters of replace_member through Heat for the member
        ``failed`` (members.Member), or None when Heat holds no resource
        of its server under the stack (the failover goes on without it,
        logged)."""
        try:
            found = stacks.member_of(self.heat, self.ref, failed.uuid)
        except heat_exc.HTTPException as err:
            raise base.StrategyError('Heat could not list the resources of '
                                     'stack %s: %s'
                                     % (self.ref, stacks.said(err)))
        if found is None:
            LOG.warning('Application of server group %s: member %s is no '
                        'resource of stack %s, which cannot replace it',
                        common['server_group'], failed.uuid, self.ref)
            return None
        return dict(common, method=members.REPLACE_HEAT,
                    replaces=failed.uuid,
                    resource_name=failed.name or found.name,
                    stack=self.ref, member_stack=found.stack,
                    resource=found.name)


def of(parameters):
    """The AppStack the audit's ``parameters`` need, or None; a
    StrategyError saying what to set when they cannot be served."""
    wanted = (parameters['replacement'] == members.REPLACE_HEAT
              or parameters['activation'] == members.ACTIVATE_HEAT_SIGNAL
              or (parameters['replacement'] == members.REPLACE_AUTO
                  and parameters.get('stack')))
    if not wanted:
        return None
    if not parameters.get('stack'):
        raise base.StrategyError('replacement "heat" and activation '
                                 '"heat_signal" need the application\'s '
                                 'stack (its name or id)')
    reason = clients.configured(CONF, clients.HEAT_GROUP)
    if reason:
        raise base.StrategyError(reason)
    heat = clients.heat(CONF)
    try:
        found = stacks.top(heat, parameters['stack'])
    except stacks.StackError as err:
        raise base.StrategyError(str(err))
    app = AppStack(heat, '%s/%s' % (found.stack_name, found.id))
    signal = parameters.get('signal_resource')
    if parameters['activation'] == members.ACTIVATE_HEAT_SIGNAL:
        if not signal:
            raise base.StrategyError('activation "heat_signal" needs the '
                                     'signal_resource to signal')
        if stacks.resource(heat, app.ref, signal) is None:
            raise base.StrategyError('stack %s has no resource %s to '
                                     'signal' % (app.ref, signal))
    return app
