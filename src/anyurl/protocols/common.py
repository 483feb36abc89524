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
* The shared events are defined here once and imported by every core:
  :class:`ConnectionClosed` (the peer closed; Telnet, NNTP, the FTP and SMTP reply
  reader, SMTP, WAIS), :class:`Data` (body bytes: Gopher, NNTP, Telnet) and
  :class:`EndOfData` (the end of a body or listing: Gopher, NNTP). A core does not
  define a class of these names (``tests/unit/test_architecture.py`` refuses it).

There is no shared ``Command`` class, on purpose: what FTP, NNTP and SMTP send are
command lines with different rules (FTP's verb is 3 or 4 letters and ``PASS``/``ACCT``
are masked; NNTP has several arguments, a 512-octet limit and masks ``AUTHINFO PASS``;
SMTP's argument is UTF-8 and never masked), so one class would be a union of three
rule sets. They share the base :class:`CommandLine` instead (``verb``, ``wire()``,
``display()``), which a handler or trace can rely on. Telnet's two-byte ``IAC``
commands are something the server *sends*: an event,
:class:`~anyurl.protocols.telnet.CommandReceived`.

Errors are split by who broke the rules, so a handler maps them by class, never by
where it called from:

* :class:`RemoteProtocolError`: the peer sent something the protocol does not allow
  (a malformed reply, an endless line). A handler reports it as
  :class:`~anyurl.errors.ProtocolError` (exit 8) naming the URL.
* :class:`LocalProtocolError`: our side asked for something the protocol cannot say
  (a command with a CR or LF, a command in the wrong state). It is a bug or a bad
  argument on our side, never the server's fault.

Each core names its errors one way, ``<Proto>`` being the core's prefix (``FTP``,
``NNTP``, ``SMTP``, ``Telnet``, ``Gopher``, ``WAIS``, ``Prospero``, ``ARDP``):
``<Proto>CoreError(CoreProtocolError)`` is the base, ``<Proto>ReplyError(<Proto>CoreError,
RemoteProtocolError)`` is the peer's side (whatever it sent: a reply, a datagram, a
WAIS message) and ``<Proto>CommandError(<Proto>CoreError, LocalProtocolError)`` ours
(whatever we would send). So a message can say which protocol it is about while a
handler still maps by side; ``tests/unit/test_architecture.py`` checks the rule. The
reply reader FTP and SMTP share (:mod:`anyurl.protocols.replies`) has no errors of its
own: it raises the ``<Proto>ReplyError`` its core hands it.

Both carry the message only; the core never knows the URL, so the handler adds it.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Final

__all__ = [
    "NEED_DATA",
    "CommandLine",
    "ConnectionClosed",
    "CoreProtocolError",
    "Data",
    "EndOfData",
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
    """The peer closed the connection (``receive_data(b"")``); no more events follow.

    ``expected`` says whether the core saw nothing wrong with a close at this point, as
    far as it can judge: NNTP after QUIT or a closing response, FTP while idle or after a
    421, the reply reader and WAIS at a message boundary, Telnet always. SMTP reports a
    close after QUIT as ``Finished``, so its ``ConnectionClosed`` is never expected.
    ``partial`` counts the octets of an unfinished reply or message that were buffered
    when the close came (0 at a boundary). What to report stays the handler's choice.
    """

    expected: bool = True
    partial: int = 0


@dataclass(frozen=True)
class Data:
    """Body bytes from the peer, as the core delivers them: Gopher's body with its
    terminator removed, NNTP's unstuffed block lines, Telnet's terminal data."""

    data: bytes


@dataclass(frozen=True)
class EndOfData:
    """The body or listing is over; ``received`` counts the octets of its :class:`Data`.

    ``announced`` is the size the server announced beforehand (a Gopher+ ``+n``
    header), if any; ``terminated`` is False when the body ended by the close of the
    connection without the terminator line, which RFC 1436 allows for Gopher.
    """

    received: int = 0
    announced: int | None = None
    terminated: bool = True

    @property
    def short(self) -> bool:
        """Whether fewer octets came than the server announced (a partial transfer)."""
        return self.announced is not None and self.received < self.announced


class CommandLine(abc.ABC):
    """What a command line of FTP, NNTP or SMTP offers, whatever its protocol's rules.

    Each of those cores defines its own ``Command`` (a dataclass) on this base; see the
    module's docstring for why they are not one class.
    """

    verb: str

    @abc.abstractmethod
    def wire(self) -> bytes:
        """The exact octets to send, line end included; refuses what would break the line."""

    @abc.abstractmethod
    def display(self) -> str:
        """The line for traces and plans, secrets masked, without its line end."""


class CoreProtocolError(Exception):
    """Base of the two sides' errors; catch a side, not this, in a handler."""


class RemoteProtocolError(CoreProtocolError):
    """The peer broke the protocol: a malformed or oversized reply."""


class LocalProtocolError(CoreProtocolError):
    """Our side broke the protocol: a command the core refuses to put on the wire."""
