"""The simulator's Cinder: back-ends, pools, volume types, volumes and
their attachments (storage), volume migrations and retypes (moves),
Cinder's notifications, and the Block Storage API v3 (api)."""
