"""The test peers: real servers for every scheme, started natively or by docker/docker-compose.yml.

`table.PEERS` is the one list of them; `launcher` starts and stops them natively; `compose`
renders the compose file; `pytest_plugin` gives tests the session fixture `peers`.
"""

from .table import PEERS, PEERS_BY_NAME, Peer

__all__ = ["PEERS", "PEERS_BY_NAME", "Peer"]
