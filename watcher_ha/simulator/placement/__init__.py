"""The simulator's Placement: the Placement API over the compute hosts of
the simulated Nova (api)."""
