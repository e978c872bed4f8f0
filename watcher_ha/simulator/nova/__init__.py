"""The simulator's Nova: the compute hosts and the servers on them with
Nova's rules (cloud), the hosts as machines (hosts), evacuation,
aggregates and server groups, and the Compute API v2.1 (api)."""
