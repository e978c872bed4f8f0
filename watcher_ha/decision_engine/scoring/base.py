"""What a scoring engine plugin (``watcher_ha.scoring_engines``) offers.

``calculate_score`` takes the engine's input as a JSON string and returns
its score as a JSON string, so that engines can be remote services too.
"""


class ScoringEngine:
    name: str
    description: str
    metainfo: str = ''

    def calculate_score(self, features):
        raise NotImplementedError
