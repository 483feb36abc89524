"""Gopher servers that misbehave on purpose (:mod:`anyurl.testing.hostile` serves them).

:data:`BEHAVIOURS`: a menu without end, a line without end, display strings carrying
terminal escape sequences. :data:`NUMBERS`: a menu whose items' ports are not ASCII
digits::

    from anyurl.schemes.gopher.hostile import BEHAVIOURS
    from anyurl.testing.hostile import HostileServer

    with HostileServer(BEHAVIOURS["gopher-endless-menu"]) as server:
        run_client(server.url)
"""

from __future__ import annotations

from anyurl.testing.hostile import ESCAPES, Behaviour, Peer, repeat
from anyurl.testing.hostile_numbers import ARABIC_THREE, SUPERSCRIPT_TWO

__all__ = ["BEHAVIOURS", "NUMBERS"]


def gopher_endless_menu(peer: Peer) -> None:
    """A menu of items for ever, never ending with ``.``."""
    if peer.line() is None:
        return
    item = b"0A file\t/file\t127.0.0.1\t70\r\n" * 64
    peer.stream(repeat(item))


def gopher_endless_line(peer: Peer) -> None:
    """A menu whose first line never ends."""
    if peer.line() is None:
        return
    peer.stream(repeat(b"i" + b"w" * 65535))


def gopher_escape_menu(peer: Peer) -> None:
    """A menu whose display strings carry terminal escape sequences."""
    if peer.line() is None:
        return
    peer.send(f"0{ESCAPES}\t/x\t127.0.0.1\t70\r\ni{ESCAPES}\t\terror.host\t1\r\n.\r\n"
              .encode())

BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("gopher-endless-menu", "gopher", gopher_endless_menu, path="/1/",
              description=gopher_endless_menu.__doc__ or ""),
    Behaviour("gopher-endless-line", "gopher", gopher_endless_line, path="/1/",
              description=gopher_endless_line.__doc__ or ""),
    Behaviour("gopher-escapes", "gopher", gopher_escape_menu, path="/1/",
              description=gopher_escape_menu.__doc__ or ""),
]}


def _own_port(peer: Peer) -> int:
    return int(peer.sock.getsockname()[1])


def gopher_port_superscript(peer: Peer) -> None:
    """A menu whose items name the ports ``²``, ``٣`` and ``１``, beside one good item
    (``/good``, on this server); the good item is ``hello``."""
    selector = peer.line()
    if selector is None:
        return
    if selector == b"/good":
        peer.send(b"hello\r\n.\r\n")
        return
    port = _own_port(peer)
    peer.send(f"0Good\t/good\t127.0.0.1\t{port}\r\n"
              f"1Superscript\t/bad\t127.0.0.1\t{SUPERSCRIPT_TWO}\r\n"
              f"0Arabic\t/bad\t127.0.0.1\t{ARABIC_THREE}\r\n"
              f"0Fullwidth\t/bad\t127.0.0.1\t\uff11\r\n.\r\n".encode())


NUMBERS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("gopher-port-superscript", "gopher", gopher_port_superscript, path="/1/",
              description=gopher_port_superscript.__doc__ or ""),
]}
