"""What a started action plan holds: the kinds of resource, and the rule
that gathers them from its actions.

While a plan is started no other plan may start that acts on one of its
resources (db/plan_holds.py keeps the holds). Each action plugin declares
what it acts on (``Action.resources`` of applier/actions/base.py); the
database asks the installed plugins through this rule, so that it never
imports the applier.
"""

# Kinds of resources a started plan holds.
SERVER = 'server'
COMPUTE_NODE = 'compute_node'
VOLUME = 'volume'
# What the action's own plugin would know, for an action type no plugin
# installed here declares.
ANY = 'resource'


def default_resources(input_parameters):
    """{(kind, id)} of an action whose plugin declares nothing better:
    its ``resource_id``, of any kind."""
    ident = input_parameters.get('resource_id')
    return {(ANY, str(ident))} if ident else set()


def resources_of(actions, action_classes):
    """Every resource the ``actions`` (rows: action_type,
    input_parameters) act on, each declared by its plugin class in
    ``action_classes`` ({action type: class}); the default for a type
    none declares."""
    found = set()
    for action in actions:
        parameters = action['input_parameters'] or {}
        plugin = action_classes.get(action['action_type'])
        found |= (plugin.resources(parameters) if plugin is not None
                  else default_resources(parameters))
    return found
