"""Storage states made by hand (nodes, pools, volumes, volume types) and
storage_capacity_balance run on them."""

from tests.helpers import model_states
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.common import plugins
from watcher_ha.decision_engine.model import storage_elements as se
from watcher_ha.decision_engine.model import storage_state
from watcher_ha.decision_engine.strategy import storage_capacity_balance as scb


def node(host, zone='nova', status='enabled', state='up'):
    return se.StorageNode(host=host, zone=zone, status=status, state=state)


def pool(name, total, free, thin=False, ratio=20.0, backend=None):
    backend = backend or se.backend_name(name)
    provisioned = total - free
    virtual = (total * ratio - provisioned) if thin else free
    return se.Pool(name=name, total_capacity_gb=float(total),
                   free_capacity_gb=float(free),
                   allocated_capacity_gb=float(provisioned),
                   provisioned_capacity_gb=float(provisioned),
                   virtual_free=float(virtual), volume_backend_name=backend,
                   thin_provisioning_support=thin,
                   max_over_subscription_ratio=ratio, storage_protocol='iSCSI')


def volume(uuid, pool_name, size, status='available', type_name=None,
           project='p1', bootable=False, attachments=None, zone='nova',
           **values):
    if attachments is None:
        attachments = ((('server-' + uuid, 'att-' + uuid),)
                       if status == 'in-use' else ())
    return se.Volume(uuid=uuid, name='name-' + uuid, size=size,
                     status=status, volume_type=type_name,
                     project_id=project, bootable=bootable,
                     attachments=attachments, pool=pool_name,
                     availability_zone=zone, **values)


def vtype(name, backend=None, **specs):
    extra = dict(specs)
    if backend:
        extra['volume_backend_name'] = backend
    return se.VolumeType(id='id-' + name, name=name,
                         volume_backend_name=backend,
                         extra_specs=tuple(sorted(extra.items())))


def build(nodes, pools, volumes, types=()):
    return model_states.filled(storage_state.StorageState(),
                               volume_type=types, node=nodes, pool=pools,
                               volume=volumes)


def run(state, **given):
    goal = plugins.load_classes(plugins.GOALS)['workload_balancing']
    strategy = scb.StorageCapacityBalance(goal)
    checked = parameters_mod.check(strategy.parameters_spec, given)
    return strategy.execute({}, checked, models={'storage': state})


def moves(solution):
    """(volume uuid, migration type, destination pool or type)."""
    return [(a.input_parameters['resource_id'],
             a.input_parameters['migration_type'],
             a.input_parameters.get('destination_node')
             or a.input_parameters.get('destination_type'))
            for a in solution.actions]
