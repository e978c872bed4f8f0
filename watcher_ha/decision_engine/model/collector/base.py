"""What a cluster data model collector (namespace ``watcher_ha.collectors``)
offers: a full read of its source, a lookup of one missing node, and the
notification handlers that keep its model fresh between reads.

Each collector has an option group ``watcher_cluster_data_model_collectors.
<name>`` with at least ``period``, the seconds between two full resyncs.
"""

from watcher_ha.conf import collectors as collectors_conf
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import state as model_state


class Collector:
    name: str
    # Options of the collector's group beyond COMMON_OPTS.
    extra_opts: list = []
    # apply_event(changes, event) -> hostnames missing: what one of the
    # source's notifications changes in the model (ClusterModel's
    # apply_event); None for a model fed by its resyncs alone.
    apply_event = None
    # The kind of state the model holds (made empty, it is the model's
    # first state).
    state_class = model_state.ClusterState

    @classmethod
    def make_model(cls, name):
        """An empty ClusterModel that applies the source's events."""
        if cls.apply_event is None:
            return cluster.ClusterModel(name, empty=cls.state_class())
        return cluster.ClusterModel(name, apply_event=cls.apply_event,
                                    empty=cls.state_class())

    @classmethod
    def register_opts(cls, conf):
        group = collectors_conf.group_name(cls.name)
        conf.register_opts(collectors_conf.COMMON_OPTS + cls.extra_opts,
                           group=group)
        return conf[group]

    def __init__(self, conf, model):
        self.conf = conf
        self.options = self.register_opts(conf)
        self.model = model

    def disabled_because(self):
        """Why this collector cannot run with the configuration it has
        (None: it can)."""
        return None

    def build(self, stamp):
        """A fresh ClusterState read from the source; every element is
        stamped with ``stamp`` (when the read started)."""
        raise NotImplementedError

    def fetch_node(self, hostname, stamp):
        """The ComputeNode ``hostname`` as the source has it, or None
        (what apply_event named as missing; a collector may also define
        ``merge_fetched(changes, found)`` to say how what it read goes
        into its model: by default a node is added if missing)."""
        raise NotImplementedError

    def handlers(self):
        """dispatch.Handler objects that keep the model fresh."""
        return []
