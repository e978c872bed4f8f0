"""What a strategy plugin (namespace ``watcher_ha.strategies``) declares.

``parameters_spec`` is a JSON Schema object; audit parameters are checked
against it and its defaults fill in what the audit leaves out.
"""


class Strategy:
    name: str
    display_name: str
    goal: str
    parameters_spec: dict = {'properties': {}}
