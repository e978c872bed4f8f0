"""An active/standby application made by Heat, as doc/source/
app_failover.rst's template makes one: an anti-affinity server group, an
AutoScalingGroup of two members (``role: standby`` in their metadata,
``desired_capacity`` so that Heat replaces a failed member instead of
shrinking), a WaitConditionHandle the activation signals, and data
volumes; an operator marks one member active and attaches the volumes to
it. The template is read from the documentation itself, so that what
the docs show is what the tests run."""

import pathlib
import re

import yaml

from tests.functional.fixtures import wait_for

DOC = pathlib.Path(__file__).resolve().parents[2] / 'doc' / 'source' / \
    'app_failover.rst'
STACK = 'db'
SIGNAL_RESOURCE = 'activation'


def template():
    """The Heat template of doc/source/app_failover.rst (the literal block
    after its ``heat_template_version`` line's paragraph)."""
    text = DOC.read_text()
    block = re.search(r'\n(    heat_template_version:.*?)\n(?=\S)', text,
                      re.S).group(1)
    return yaml.safe_load('\n'.join(line[4:] for line in
                                    block.splitlines()))


def member_ids(heat, stack=STACK):
    """The servers of the stack's members, by the resources' names."""
    return {r.resource_name: r.physical_resource_id
            for r in heat.resources.list(stack, nested_depth=2)
            if r.resource_type == 'OS::Nova::Server'}


class Application:
    """What ``make`` made: the server group, the active and standby
    members' servers, the data volumes."""

    def __init__(self, group, active, standby, volumes):
        self.group, self.active, self.standby = group, active, standby
        self.volumes = volumes


def make(heat, nova, timeout=30):
    """The stack of the documented template made (CREATE_COMPLETE), its
    first member by name marked active with the stack's volumes attached
    (as the documentation's operator does): an Application."""
    heat.stacks.create(stack_name=STACK, template=template())
    shown = wait_for(lambda: heat.stacks.get(STACK).stack_status
                     != 'CREATE_IN_PROGRESS' and heat.stacks.get(STACK),
                     timeout, 'the stack created')
    assert shown.stack_status == 'CREATE_COMPLETE', \
        shown.stack_status_reason
    outputs = {o['output_key']: o['output_value'] for o in shown.outputs}
    members = member_ids(heat)
    active, standby = (members[name] for name in sorted(members))
    nova.servers.set_meta_item(active, 'role', 'active')
    for volume in outputs['volumes']:
        nova.volumes.create_server_volume(active, volume)
    return Application(outputs['server_group'], active, standby,
                       outputs['volumes'])
