"""What a goal plugin (namespace ``watcher_ha.goals``) declares.

A goal is metadata: what an audit aims at, and the efficacy indicators its
strategies report. Plugins are plain classes with these attributes.
"""

import dataclasses

import jsonschema


@dataclasses.dataclass(frozen=True)
class IndicatorSpec:
    name: str
    description: str
    unit: str | None
    schema: dict
    # Watcher rejects a solution that reports some indicators but leaves a
    # required one out; optional ones may be missing.
    required: bool = True


class Goal:
    name: str
    display_name: str
    efficacy_specification: tuple = ()
    # A goal of watcher_ha's own, which Watcher does not have.
    watcher_ha_only = False
    # A goal that one of Watcher's approved specs (its name, in
    # openstack/watcher-specs) adds and Watcher 17 does not have yet;
    # None for Watcher 17's goals and for our own.
    watcher_spec = None

    @classmethod
    def check_indicator(cls, name, value):
        """Raise ValueError unless ``value`` fits indicator ``name``'s
        schema, so a strategy's mistake fails its audit, not the API."""
        for spec in cls.efficacy_specification:
            if spec.name == name:
                break
        else:
            raise ValueError('Goal %s has no efficacy indicator %s'
                             % (cls.name, name))
        # bool is an int to Python but not a number to an operator.
        if isinstance(value, bool):
            raise ValueError('Efficacy indicator %s must be a number, not %r'
                             % (name, value))
        try:
            jsonschema.validate(value, spec.schema)
        except jsonschema.ValidationError as err:
            raise ValueError('Efficacy indicator %s: %s'
                             % (name, err.message)) from None

    @classmethod
    def missing_indicators(cls, indicator_values):
        """Names of the required indicators a strategy did not report."""
        return [spec.name for spec in cls.efficacy_specification
                if spec.required and spec.name not in indicator_values]

    @classmethod
    def projected_indicators(cls, projected):
        """{name: value} of the indicators this goal can tell from a
        plan run on a copy of the model (a what-if's ``projected``: the
        model ``before`` and ``after`` the plan, ClusterStates, and the
        server ``moves`` as run: [(server, source, destination)]), to
        set beside the values the strategy stored. By default: the
        migrations, for a goal that counts them; an indicator that needs
        metrics (a deviation of load) is not told."""
        if 'instance_migrations_count' in cls._indicator_names():
            return {'instance_migrations_count': len(projected.moves)}
        return {}

    @classmethod
    def _indicator_names(cls):
        return {spec.name for spec in cls.efficacy_specification}

    @classmethod
    def global_efficacy(cls, indicator_values):
        """The plan's overall efficacy, as a list of {name, description,
        unit, value}; goals without a global measure return []."""
        return []
