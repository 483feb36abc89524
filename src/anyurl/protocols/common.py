"""The vocabulary every sans-I/O core shares, in the manner of h11's ``_util.py``.

A core is bytes in, events out:

* ``receive_data(data)`` feeds what the connection received; ``b""`` is the end of the
  stream.
* ``next_event()`` returns the next event, or :data:`NEED_DATA` when no complete event
  is buffered yet. When the remote side closed the connection and nothing more can
  come, a core returns :class:`ConnectionClosed`.
* Bytes to write come out one of two ways, by who chooses them: ``send(command)``
  returns them where the caller chooses the command (FTP, NNTP, WAIS); where the core
  itself answers what it received, it queues them, drained with ``data_to_send()``
  (Telnet option negotiation) or as ``Transmit`` events (the SMTP dialogue, which the
  core drives from the replies).
* The end of a body or listing is an event named ``EndOfData`` in every core that has
  one (Gopher, NNTP).

Errors are split by who broke the rules, so a handler maps them by class, never by
where it called from:

* :class:`RemoteProtocolError`: the peer sent something the protocol does not allow
  (a malformed reply, an endless line). A handler reports it as
  :class:`~anyurl.errors.ProtocolError` (exit 8) naming the URL.
* :class:`LocalProtocolError`: our side asked for something the protocol cannot say
  (a command with a CR or LF, a command in the wrong state). It is a bug or a bad
  argument on our side, never the server's fault.

Each core names its own pair (``FTPReplyError`` and ``FTPCommandError`` under
``FTPCoreError``, and so on), subclasses of these two, so a message can say which
protocol it is about while a handler still maps by side.

Both carry the message only; the core never knows the URL, so the handler adds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "NEED_DATA",
    "ConnectionClosed",
    "CoreProtocolError",
    "LocalProtocolError",
    "NeedData",
    "RemoteProtocolError",
]


class NeedData:
    """Type of :data:`NEED_DATA`: no complete event is buffered; feed more bytes."""

    _instance: NeedData | None = None

    def __new__(cls) -> NeedData:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NEED_DATA"

    def __reduce__(self) -> str:
        return "NEED_DATA"


#: What ``next_event()`` returns while no complete event is buffered (one object).
NEED_DATA: Final = NeedData()


@dataclass(frozen=True)
class ConnectionClosed:
    """The remote side closed the connection (``receive_data(b"")``) at a point where
    the protocol allows it; an end at any other point is a :class:`RemoteProtocolError`."""


class CoreProtocolError(Exception):
    """Base of the two sides' errors; catch a side, not this, in a handler."""


class RemoteProtocolError(CoreProtocolError):
    """The peer broke the protocol: a malformed or oversized reply."""


class LocalProtocolError(CoreProtocolError):
    """Our side broke the protocol: a command the core refuses to put on the wire."""
