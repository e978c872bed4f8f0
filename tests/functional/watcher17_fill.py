"""Fill an OpenStack Watcher 17 database as Watcher itself would.

Run with the python of a virtualenv where python-watcher 17.0.0 is
installed (never with ours): ``python watcher17_fill.py WATCHER_CONF``.
Everything goes through Watcher's own code: its decision engine's catalog
sync for goals and strategies, its versioned objects (what its API and
daemons call) for audit templates, audits, action plans, actions and
efficacy indicators, and their soft_delete for what an operator deleted.
Prints nothing; the test reads the database for what to expect.
"""

import datetime
import sys

from oslo_utils import uuidutils

# Every strategy of Watcher 17 is one of ours: a deployment's own plugin
# is what the import leaves out.
PLUGIN_STRATEGY = 'vendor_zone_drain'


def _setup(config_file):
    from watcher.common import rpc
    from watcher.common import service
    from watcher import conf
    service.prepare_service([sys.argv[0], '--config-file', config_file],
                            conf.CONF)
    rpc.init(conf.CONF)


class Filler:

    def __init__(self):
        from watcher.common import context
        from watcher import objects
        self.objects = objects
        self.ctx = context.make_context(is_admin=True)
        self.now = datetime.datetime(2026, 5, 4, 12, 0, 0)

    def goal(self, name):
        return self.objects.Goal.get_by_name(self.ctx, name).id

    def strategy(self, name):
        if name is None:
            return None
        return self.objects.Strategy.get_by_name(self.ctx, name).id

    def plugin_strategy(self, name, goal):
        """A strategy of an out-of-tree plugin, as Watcher's catalog sync
        records one that its deployment installed."""
        self.objects.Strategy(
            self.ctx, uuid=uuidutils.generate_uuid(), name=name,
            display_name='%s (a plugin)' % name, goal_id=self.goal(goal),
            parameters_spec={}).create()

    def template(self, name, goal, strategy=None, scope=None,
                 parameters=None, deleted=False):
        template = self.objects.AuditTemplate(
            self.ctx, uuid=uuidutils.generate_uuid(), name=name,
            description='%s, made by Watcher 17' % name,
            goal_id=self.goal(goal), strategy_id=self.strategy(strategy),
            scope=scope or [], default_parameters=parameters or {})
        template.create()
        if deleted:
            template.soft_delete()

    def audit(self, name, goal, strategy, state, audit_type='ONESHOT',
              deleted=False, **fields):
        audit = self.objects.Audit(
            self.ctx, uuid=uuidutils.generate_uuid(), name=name,
            audit_type=audit_type, state=state, goal_id=self.goal(goal),
            strategy_id=self.strategy(strategy),
            parameters=fields.pop('parameters', {}),
            scope=fields.pop('scope', []),
            auto_trigger=fields.pop('auto_trigger', False),
            hostname=fields.pop('hostname', 'controller-1'), **fields)
        audit.create()
        if deleted:
            audit.soft_delete()
        return audit

    def plan(self, audit, strategy, state, actions, indicators=(),
             deleted=False, **fields):
        """``actions``: [(action_type, input_parameters, state)], each the
        child of the one before."""
        plan = self.objects.ActionPlan(
            self.ctx, uuid=uuidutils.generate_uuid(), audit_id=audit.id,
            strategy_id=self.strategy(strategy), state=state,
            global_efficacy=[{'name': 'released_nodes_ratio',
                              'description': 'Ratio of released compute '
                                             'nodes',
                              'unit': '%', 'value': 25.0}],
            hostname=fields.pop('hostname', 'controller-2'), **fields)
        plan.create()
        parent = None
        for action_type, parameters, action_state in actions:
            action = self.objects.Action(
                self.ctx, uuid=uuidutils.generate_uuid(),
                action_plan_id=plan.id, action_type=action_type,
                input_parameters=parameters, state=action_state,
                parents=[parent] if parent else [],
                status_message='failed: no valid host' if
                action_state == 'FAILED' else None)
            action.create()
            parent = action.uuid
        for name, value in indicators:
            self.objects.EfficacyIndicator(
                self.ctx, uuid=uuidutils.generate_uuid(),
                action_plan_id=plan.id, name=name,
                description='%s indicator' % name, unit='%',
                value=value).create()
        if deleted:
            plan.soft_delete()
        return plan

    def service(self, name, host, seen):
        service = self.objects.Service(self.ctx, name=name, host=host)
        service.create()
        service.last_seen_up = seen
        service.save()


SERVER = 'd63a5c2e-5b8a-4d43-9a2b-6c3e1a3f0c11'
OTHER_SERVER = '8f0e2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b'


def migrate(server, source='compute-1', destination='compute-2'):
    return ('migrate', {'migration_type': 'live', 'resource_id': server,
                        'resource_name': 'vm-%s' % server[:4],
                        'source_node': source,
                        'destination_node': destination}, 'PENDING')


def disable(host):
    return ('change_nova_service_state', {
        'resource_id': host, 'resource_name': host, 'state': 'disabled',
        'disabled_reason': 'watcher_disabled'}, 'PENDING')


def state(action, new_state):
    return action[:2] + (new_state,)


def fill(filler):
    f = filler
    f.template('at-dummy', 'dummy', 'dummy',
               parameters={'para1': 4.0})
    f.template('at-consolidation', 'server_consolidation',
               scope=[{'compute': [{'availability_zones': [
                   {'name': 'nova'}]}]}])
    f.template('at-retired', 'dummy', deleted=True)
    # A strategy watcher_ha does not provide (an out-of-tree plugin of
    # this Watcher deployment): skipped.
    f.plugin_strategy(PLUGIN_STRATEGY, 'hardware_maintenance')
    f.template('at-zone', 'hardware_maintenance', PLUGIN_STRATEGY)

    done = f.audit('one-shot-done', 'dummy', 'dummy', 'SUCCEEDED',
                   parameters={'para1': 3.2, 'para2': 'hello'},
                   start_time=f.now, end_time=f.now)
    f.plan(done, 'dummy', 'SUCCEEDED',
           [state(migrate(SERVER), 'SUCCEEDED'),
            state(disable('compute-1'), 'SUCCEEDED'),
            ('nop', {'message': 'done'}, 'SKIPPED')],
           indicators=[('released_nodes_ratio', 25.0),
                       ('instance_migrations_count', 1.0)])
    recommended = f.audit('one-shot-recommended', 'server_consolidation',
                          'vm_workload_consolidation', 'SUCCEEDED',
                          scope=[{'compute': [{'host_aggregates': [
                              {'id': 1}]}]}])
    f.plan(recommended, 'vm_workload_consolidation', 'RECOMMENDED',
           [migrate(OTHER_SERVER, 'compute-3', 'compute-4'),
            disable('compute-3')],
           indicators=[('released_nodes_ratio', 50.0)])
    f.plan(recommended, 'vm_workload_consolidation', 'SUPERSEDED',
           [migrate(OTHER_SERVER, 'compute-3', 'compute-5')])
    f.audit('one-shot-running', 'dummy', 'dummy', 'ONGOING')
    f.audit('one-shot-failed', 'dummy', 'dummy', 'FAILED',
            status_message='No compute node could be used')
    f.audit('one-shot-pending', 'dummy', None, 'PENDING', hostname=None)
    f.audit('continuous-running', 'dummy', 'dummy', 'ONGOING',
            audit_type='CONTINUOUS', interval='3600', auto_trigger=True,
            next_run_time=f.now + datetime.timedelta(hours=1))
    f.audit('continuous-cron', 'workload_balancing', 'workload_stabilization',
            'SUSPENDED', audit_type='CONTINUOUS', interval='*/30 * * * *',
            parameters={'periods': {'instance': 720, 'compute_node': 600}})
    f.audit('continuous-cancelled', 'dummy', 'dummy', 'CANCELLED',
            audit_type='CONTINUOUS', interval='600')
    f.audit('event-waiting', 'dummy', 'dummy', 'PENDING',
            audit_type='EVENT', hostname=None)

    executing = f.audit('executing', 'dummy', 'dummy', 'SUCCEEDED')
    f.plan(executing, 'dummy', 'ONGOING',
           [state(disable('compute-7'), 'SUCCEEDED'),
            state(migrate(SERVER, 'compute-7', 'compute-8'), 'ONGOING'),
            ('nop', {'message': 'after'}, 'PENDING')])
    started = f.audit('started', 'dummy', 'dummy', 'SUCCEEDED')
    f.plan(started, 'dummy', 'PENDING', [('sleep', {'duration': 1.0},
                                          'PENDING')], hostname=None)
    # Started too, on the server the executing plan migrates: watcher_ha
    # lets one started plan at a time hold it, so this one is skipped.
    f.plan(started, 'dummy', 'PENDING',
           [migrate(SERVER, 'compute-8', 'compute-9')], hostname=None)
    ended = f.audit('ended', 'dummy', 'dummy', 'SUCCEEDED')
    f.plan(ended, 'dummy', 'FAILED',
           [state(migrate(OTHER_SERVER), 'FAILED'),
            state(disable('compute-1'), 'CANCELLED')])
    f.plan(ended, 'dummy', 'CANCELLED', [state(disable('compute-2'),
                                               'CANCELLED')])

    gone = f.audit('deleted-audit', 'dummy', 'dummy', 'SUCCEEDED')
    f.plan(gone, 'dummy', 'SUCCEEDED', [state(disable('compute-2'),
                                              'SUCCEEDED')],
           indicators=[('released_nodes_ratio', 10.0)], deleted=True)
    gone.soft_delete()
    # Another audit may take a deleted one's name.
    f.audit('deleted-audit', 'dummy', 'dummy', 'CANCELLED')

    zone = f.audit('zone-migration', 'hardware_maintenance',
                   PLUGIN_STRATEGY, 'SUCCEEDED')
    f.plan(zone, PLUGIN_STRATEGY, 'RECOMMENDED',
           [('volume_migrate', {'resource_id': SERVER,
                                'migration_type': 'swap'}, 'PENDING')])

    # Watcher's daemons, stopped ten minutes ago.
    seen = datetime.datetime.utcnow() - datetime.timedelta(minutes=10)
    f.service('watcher-decision-engine', 'controller-1', seen)
    f.service('watcher-applier', 'controller-2', seen)


def main():
    _setup(sys.argv[1])
    from watcher.decision_engine import sync
    sync.Syncer().sync()
    fill(Filler())


if __name__ == '__main__':
    main()
