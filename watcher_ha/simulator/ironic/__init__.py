"""The simulator's Ironic: a bare metal node per compute host with the
power actions fencing uses (baremetal), and the Bare Metal API v1
(api)."""
