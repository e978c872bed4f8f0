"""The networks servers are plugged into, as Nova shows them: Neutron's
networks and a server's ports on them (its ``addresses``, and the
``os-interface`` list, which Nova reads from Neutron without the
server's compute: it answers for a server on a down host too).

The scenario's ``networks`` ([{id, name}]) are the cloud's; without
any, one network, ``private``. A server created with ``networks``
``auto`` (get-me-a-network) gets a port on the first network, as Nova
allocates the project's one; ``none``, no port; a list, a port on each
network it names (``uuid``), in its order. A network Neutron does not
have is refused as Nova refuses it (400, "Network <id> could not be
found."). Ports go with their server: Nova deletes the ports it made.
"""

import dataclasses
import ipaddress
import itertools
import uuid as uuidlib

from watcher_ha.simulator.nova import model

DEFAULT = ({'id': '4f3e2d1c-0b9a-4876-8543-210fedcba987',
            'name': 'private', 'cidr': '10.0.0.0/16'},)


@dataclasses.dataclass(frozen=True)
class Network:
    id: str
    name: str
    subnet_id: str
    cidr: str


@dataclasses.dataclass(frozen=True)
class Port:
    id: str
    network_id: str
    mac: str
    ip: str


class Networks:
    """The cloud's networks and the addresses given out on them."""

    def __init__(self, specs=DEFAULT):
        self.by_id = {}
        self._addresses = {}
        for index, spec in enumerate(specs):
            network = Network(
                id=spec['id'], name=spec.get('name') or spec['id'],
                subnet_id=str(uuidlib.uuid5(uuidlib.NAMESPACE_URL,
                                            'subnet:' + spec['id'])),
                cidr=spec.get('cidr') or '10.%d.0.0/16' % (index + 1))
            self.by_id[network.id] = network
            # The network's own address and its gateway are not given out.
            self._addresses[network.id] = itertools.islice(
                ipaddress.ip_network(network.cidr).hosts(), 1, None)
        self._macs = itertools.count(1)

    def ports_for(self, requested):
        """The ports of a new server whose create asked for
        ``requested`` (Nova's ``networks``: 'auto', 'none', a list of
        {uuid} or None as auto); Refused for a network that does not
        exist."""
        if requested == 'none':
            return ()
        if requested in (None, 'auto') or not isinstance(requested, list):
            wanted = list(self.by_id)[:1]
        else:
            wanted = [item.get('uuid') for item in requested
                      if isinstance(item, dict)]
            if None in wanted:
                raise model.Refused(400, 'The simulator plugs a server into '
                                         'networks by their uuid only (no '
                                         'port or fixed_ip requests)')
        for ident in wanted:
            if ident not in self.by_id:
                raise model.Refused(400, 'Network %s could not be found.'
                                    % ident)
        return tuple(self._port(ident) for ident in wanted)

    def _port(self, network_id):
        mac = next(self._macs)
        return Port(id=str(uuidlib.uuid4()), network_id=network_id,
                    mac='fa:16:3e:%02x:%02x:%02x' % (
                        mac >> 16 & 0xff, mac >> 8 & 0xff, mac & 0xff),
                    ip=str(next(self._addresses[network_id])))

    def addresses(self, server):
        """Nova's ``addresses`` of ``server``: {network name: [address]}."""
        found = {}
        for port in server.ports:
            found.setdefault(self.by_id[port.network_id].name, []).append({
                'version': 4, 'addr': port.ip,
                'OS-EXT-IPS:type': 'fixed',
                'OS-EXT-IPS-MAC:mac_addr': port.mac})
        return found

    def interfaces(self, server, version):
        """Nova's os-interface list of ``server`` (``tag`` from 2.70)."""
        found = []
        for port in server.ports:
            item = {'port_state': 'ACTIVE', 'port_id': port.id,
                    'net_id': port.network_id, 'mac_addr': port.mac,
                    'fixed_ips': [{
                        'subnet_id': self.by_id[port.network_id].subnet_id,
                        'ip_address': port.ip}]}
            if version >= (2, 70):
                item['tag'] = None
            found.append(item)
        return found
