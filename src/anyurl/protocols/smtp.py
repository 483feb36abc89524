"""The SMTP client core (RFC 5321) for ``mailto:`` URLs, sans-I/O.

Strategy
--------
A ``mailto:`` URL names a mailbox (RFC 1738 section 3.5); what a retrieval client can
sensibly do with one is send it a message. That is one fixed dialogue, which
:class:`Submission` runs as a table-driven state machine::

    <- 220 greeting
    -> EHLO name        <- 250 (multi-line: extensions)   5yz: fall back to HELO name
    -> MAIL FROM:<s>    <- 250
    -> RCPT TO:<r>      <- 250 / 251                     one per recipient
    -> DATA             <- 354
    -> message, dot-stuffed, ending CRLF.CRLF             <- 250 (delivered)
    -> QUIT             <- 221

The caller feeds the server's bytes to :meth:`Submission.receive_data` and takes
events from :meth:`Submission.next_event`: :class:`Transmit` (bytes to write, plus a
line to show in a trace), :class:`ReplyReceived` for every reply, :class:`Delivered`
or :class:`Failed` (the step and the reply that decided it) and finally
:class:`Finished`. A failure still ends politely with QUIT, except after a ``421``
(the server is closing the channel anyway). A close before the dialogue is over is the
shared :class:`~anyurl.protocols.common.ConnectionClosed` (never ``expected``), and
:attr:`Submission.closed_during` names the step it cut short.

Reply framing (RFC 5321 section 4.2): ``ddd-text`` continues a reply, ``ddd text``
(or a bare ``ddd``) ends it; every line of one reply carries the same code. Lines
end with CRLF; a bare LF is accepted. Anything else is a :class:`SMTPCoreError`.

Addresses go on the wire inside ``<...>``: :func:`check_address` refuses CR, LF, NUL,
other control characters and angle brackets, whatever the URL parser checked before,
because a line break inside ``RCPT TO:`` would smuggle a second command (RFC 1738
section 6 names exactly this attack). The message body is made safe by
:func:`encode_message`: every line end becomes CRLF and every line that starts with a
dot gets a second one (RFC 5321 section 4.5.2), so no line of the body can end the
DATA phase early.
"""

from __future__ import annotations

import enum
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Final

from anyurl.protocols.common import (
    NEED_DATA,
    CommandLine,
    ConnectionClosed,
    CoreProtocolError,
    LocalProtocolError,
    NeedData,
    RemoteProtocolError,
)
from anyurl.protocols.replies import Grammar, Reply, ReplyReader

__all__ = [
    "NEED_DATA",
    "TRANSITIONS",
    "Command",
    "ConnectionClosed",
    "Delivered",
    "Envelope",
    "Event",
    "Failed",
    "Finished",
    "NeedData",
    "Reply",
    "ReplyReader",
    "ReplyReceived",
    "SMTPCommandError",
    "SMTPCoreError",
    "SMTPReplyError",
    "Step",
    "Submission",
    "Transmit",
    "check_address",
    "ehlo_extensions",
    "encode_message",
]

class SMTPCoreError(CoreProtocolError):
    """Base of this core\'s errors: catch a side (:class:`SMTPReplyError`,
    :class:`SMTPCommandError`)."""


class SMTPReplyError(SMTPCoreError, RemoteProtocolError):
    """The server broke the protocol: bytes an SMTP client cannot accept."""


class SMTPCommandError(SMTPCoreError, LocalProtocolError):
    """Our side asked for something the protocol cannot say (a command, address or text)."""


# -- replies ----------------------------------------------------------------------------------


def ehlo_extensions(reply: Reply) -> frozenset[str]:
    """EHLO keywords (upper case) from the lines of a 250 reply after the first."""
    return frozenset(
        line[4:].split(" ", 1)[0].upper() for line in reply.lines[1:] if line[4:].strip()
    )


# -- commands and the message ---------------------------------------------------------------


def check_address(address: str, what: str = "address") -> str:
    """``address`` if it can go between ``<`` and ``>``; else :class:`SMTPCoreError`."""
    bad = [c for c in address if ord(c) < 32 or ord(c) == 127 or c in "<>"]
    if bad:
        raise SMTPCommandError(f"refusing the {what} {address!r}: it contains {bad[0]!r}")
    if address != address.strip():
        raise SMTPCommandError(f"refusing the {what} {address!r}: leading or trailing space")
    return address


@dataclass(frozen=True)
class Command(CommandLine):
    """One command line; :meth:`wire` refuses anything that would break the line."""

    verb: str
    argument: str | None = None

    def display(self) -> str:
        """The command as text (for traces), without its line end."""
        return self.verb if self.argument is None else f"{self.verb} {self.argument}"

    def wire(self) -> bytes:
        """The command's bytes with CR LF; a CR, LF or NUL inside is refused."""
        text = self.display()
        if any(c in text for c in "\r\n\x00"):
            raise SMTPCommandError(f"refusing to send {text!r}: it contains a line break or NUL")
        return text.encode("utf-8") + b"\r\n"


_LINE_ENDS = re.compile(rb"\r\n|\r|\n")


def encode_message(message: bytes) -> bytes:
    """The DATA payload: CRLF line ends, leading dots doubled, ``CRLF . CRLF`` at the end."""
    lines = _LINE_ENDS.split(message)
    if lines and lines[-1] == b"":
        lines.pop()  # the message ended with a line end
    stuffed = [b"." + line if line.startswith(b".") else line for line in lines]
    body = b"\r\n".join(stuffed)
    if stuffed:
        body += b"\r\n"
    return body + b".\r\n"


# -- the submission dialogue ----------------------------------------------------------------


@dataclass(frozen=True)
class Envelope:
    """What one submission sends: who we are, from whom, to whom, and the message."""

    helo: str
    sender: str
    recipients: tuple[str, ...]
    message: bytes

    def __post_init__(self) -> None:
        if not self.recipients:
            raise SMTPCommandError("a message needs at least one recipient")
        check_address(self.sender, "sender")
        for recipient in self.recipients:
            check_address(recipient, "recipient")
        if not self.helo or any(c.isspace() or ord(c) < 32 for c in self.helo):
            raise SMTPCommandError(f"refusing the EHLO name {self.helo!r}")


class Step(enum.Enum):
    """Where the dialogue is: which reply we are waiting for."""

    GREETING = "greeting"
    EHLO = "EHLO"
    HELO = "HELO"
    MAIL = "MAIL FROM"
    RCPT = "RCPT TO"
    DATA = "DATA"
    MESSAGE = "message"
    QUIT = "QUIT"
    DONE = "done"


#: (step, reply category) -> next step; a missing pair is a failure of that step.
#: RCPT loops on itself until every recipient is sent (see Submission._advance).
TRANSITIONS: Final[dict[tuple[Step, int], Step]] = {
    (Step.GREETING, 2): Step.EHLO,
    (Step.EHLO, 2): Step.MAIL,
    (Step.EHLO, 5): Step.HELO,  # 500/502: no ESMTP here; say HELO instead
    (Step.HELO, 2): Step.MAIL,
    (Step.MAIL, 2): Step.RCPT,
    (Step.RCPT, 2): Step.DATA,
    (Step.DATA, 3): Step.MESSAGE,
    (Step.MESSAGE, 2): Step.QUIT,
}


@dataclass(frozen=True)
class Transmit:
    """Bytes to write; ``shown`` is the line for a trace (the message is summarised)."""

    data: bytes
    shown: str


@dataclass(frozen=True)
class ReplyReceived:
    """A complete reply from the server."""
    reply: Reply


@dataclass(frozen=True)
class Delivered:
    """The server took responsibility for the message (the reply after the final dot)."""

    reply: Reply


@dataclass(frozen=True)
class Failed:
    """``step`` got ``reply``, which is not the one that lets the dialogue go on."""

    step: Step
    reply: Reply


@dataclass(frozen=True)
class Finished:
    """The dialogue is over (after QUIT's reply, or the server's close after QUIT)."""


Event = Transmit | ReplyReceived | Delivered | Failed | ConnectionClosed | Finished


@dataclass
class Submission:
    """Runs the dialogue for one :class:`Envelope`; bytes in, events out.

    The first event, before any data, is nothing: SMTP starts with the server's
    greeting. Feed every received chunk (``b""`` at end of stream).
    """

    envelope: Envelope
    step: Step = Step.GREETING
    extensions: frozenset[str] = frozenset()
    #: The step a close of the server's cut short (set with the ConnectionClosed event).
    closed_during: Step | None = None
    _reader: ReplyReader = field(default_factory=lambda: ReplyReader(
        Grammar.CODED_LINES, reply_error=SMTPReplyError, command_error=SMTPCommandError))
    _events: deque[Event] = field(default_factory=deque)
    _next_recipient: int = 0
    _failed: bool = False

    def plan(self) -> list[str]:
        """The lines the dialogue sends when every reply is positive (no I/O)."""
        e = self.envelope
        lines = [f"EHLO {e.helo}", f"MAIL FROM:<{e.sender}>"]
        lines += [f"RCPT TO:<{r}>" for r in e.recipients]
        lines += ["DATA", self._summary(), ".", "QUIT"]
        return lines

    def _summary(self) -> str:
        payload = encode_message(self.envelope.message)
        lines = payload.count(b"\r\n") - 1
        return f"<message: {lines} lines, {len(payload) - 3} bytes>"

    def _send(self, command: Command) -> None:
        self._events.append(Transmit(command.wire(), command.display()))

    def _command_for(self, step: Step) -> None:
        e = self.envelope
        if step is Step.EHLO:
            self._send(Command("EHLO", e.helo))
        elif step is Step.HELO:
            self._send(Command("HELO", e.helo))
        elif step is Step.MAIL:
            self._send(Command("MAIL", f"FROM:<{e.sender}>"))
        elif step is Step.RCPT:
            self._send(Command("RCPT", f"TO:<{e.recipients[self._next_recipient]}>"))
            self._next_recipient += 1
        elif step is Step.DATA:
            self._send(Command("DATA"))
        elif step is Step.MESSAGE:
            self._events.append(Transmit(encode_message(e.message), self._summary()))
        elif step is Step.QUIT:
            self._send(Command("QUIT"))

    @property
    def done(self) -> bool:
        """Whether the message was accepted and the dialogue ended."""
        return self.step is Step.DONE

    def receive_data(self, data: bytes) -> None:
        """Feed the server's bytes; ``b""`` when it closed the connection."""
        if self.done:
            return
        if not data:
            if self.step is Step.QUIT:
                self._events.append(Finished())
            else:
                self.closed_during = self.step
                self._events.append(
                    ConnectionClosed(expected=False, partial=self._reader.buffered))
            self.step = Step.DONE
            return
        self._reader.receive_data(data)
        while not self.done:
            event = self._reader.next_event()
            if not isinstance(event, Reply):
                return  # NEED_DATA (a close arrives as b"" above)
            self._events.append(ReplyReceived(event))
            self._advance(event)
        # anything after the last reply is ignored

    def _advance(self, reply: Reply) -> None:
        step = self.step
        if step is Step.QUIT:
            self.step = Step.DONE
            self._events.append(Finished())
            return
        if step is Step.EHLO and reply.category == 2:
            self.extensions = ehlo_extensions(reply)
        nxt = TRANSITIONS.get((step, reply.category))
        if step is Step.EHLO and reply.category == 5 and reply.code not in (500, 501, 502, 504):
            nxt = None  # e.g. 554: refused outright, HELO would not help
        if step is Step.RCPT and nxt is Step.DATA and self._next_recipient < len(
            self.envelope.recipients
        ):
            nxt = Step.RCPT
        if nxt is None:
            self._failed = True
            self._events.append(Failed(step, reply))
            if reply.code == 421:  # the server is closing the channel: no QUIT
                self.step = Step.DONE
                self._events.append(Finished())
                return
            nxt = Step.QUIT
        elif step is Step.MESSAGE:
            self._events.append(Delivered(reply))
        self.step = nxt
        self._command_for(nxt)

    def next_event(self) -> Event | NeedData:
        """The next event of the submission, or ``NEED_DATA``."""
        if self._events:
            return self._events.popleft()
        return NEED_DATA
