"""Console entry points (see setup.cfg [entry_points])."""
