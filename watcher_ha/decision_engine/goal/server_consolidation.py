from watcher_ha.decision_engine.goal import base
from watcher_ha.decision_engine.goal import efficacy


class ServerConsolidation(base.Goal):
    """Pack servers onto fewer compute nodes so the others can be
    released."""
    name = 'server_consolidation'
    display_name = 'Server Consolidation'
    efficacy_specification = (
        efficacy.count('compute_nodes_count',
                       'The total number of enabled compute nodes.'),
        efficacy.count('released_compute_nodes_count',
                       'The number of compute nodes to be released.'),
        efficacy.INSTANCE_MIGRATIONS_COUNT,
    )

    @classmethod
    def projected_indicators(cls, projected):
        """The enabled nodes before the plan, those it leaves empty that
        held servers, and its migrations."""
        before, after = projected.before, projected.after
        return {
            'compute_nodes_count': sum(
                1 for node in before.nodes.values()
                if node.status == 'enabled'),
            'released_compute_nodes_count': sum(
                1 for hostname in before.placement
                if not after.placement.get(hostname)),
            'instance_migrations_count': len(projected.moves)}

    @classmethod
    def global_efficacy(cls, indicator_values):
        released = efficacy.percent(
            indicator_values.get('released_compute_nodes_count', 0),
            indicator_values.get('compute_nodes_count', 0))
        return [efficacy.ratio(
            'released_nodes_ratio',
            'Ratio of released compute nodes divided by the total number '
            'of enabled compute nodes.', released)]
