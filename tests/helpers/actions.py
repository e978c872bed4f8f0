"""Running one applier action outside a plan, as the applier runs it,
and what Nova says of the server it acted on."""


def run(action):
    """The applier's steps for one action: pre-condition, execute,
    post-condition."""
    action.pre_condition()
    action.execute()
    action.post_condition()


def status(client, uuid):
    """The status Nova (``client``, a novaclient) shows for server
    ``uuid``."""
    return client.servers.get(uuid).status
