"""What a goal plugin (namespace ``watcher_ha.goals``) declares.

A goal is metadata: what an audit aims at, and the efficacy indicators its
strategies report. Plugins are plain classes with these attributes.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class IndicatorSpec:
    name: str
    description: str
    unit: str | None
    schema: dict


class Goal:
    name: str
    display_name: str
    efficacy_specification: tuple = ()

    @classmethod
    def global_efficacy(cls, indicator_values):
        """The plan's overall efficacy, as a list of {name, description,
        unit, value}; goals without a global measure return []."""
        return []
