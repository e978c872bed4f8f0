"""The simulator's Keystone: a subset of the Identity API v3 that real
clients log in to (keystoneauth, keystonemiddleware, the openstack CLI,
Horizon's openstack_auth): who is known (directory), the tokens issued
to them (tokens), where the services are (catalog), and the routes
(api)."""
