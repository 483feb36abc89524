"""The Telnet protocol core (RFC 854, 855, 1143 and a few option RFCs), sans-I/O.

Strategy
--------
A Telnet connection is one byte stream in each direction in which the byte ``IAC``
(255) starts a command: two bytes for simple commands (``IAC GA``), three for option
negotiation (``IAC WILL ECHO``), and a bracketed sub-negotiation ``IAC SB <option>
<parameters> IAC SE``. Everything else is data of the Network Virtual Terminal, whose
lines end with ``CR LF`` and whose lone carriage return is ``CR NUL`` (RFC 854).

:class:`TelnetClient` is fed bytes with :meth:`~TelnetClient.receive_data` (``b""`` at
end of stream) and hands back events from :meth:`~TelnetClient.next_event`: the data
with commands stripped (:class:`Data`, ``CR LF`` turned into ``\\n``, ``CR NUL`` into
``\\r``), the negotiations it saw and what it answered (:class:`Negotiation`), simple
commands (:class:`CommandReceived`), sub-negotiations (:class:`Subnegotiation`) and the
end of the stream (:class:`ConnectionClosed`); ``Data`` and ``ConnectionClosed`` are the
shared events of :mod:`anyurl.protocols.common`. Answers it owes the server (negotiation replies, a
terminal type, a window size) and data the caller sends accumulate in an outgoing
buffer that :meth:`~TelnetClient.data_to_send` drains; the caller writes it to the
socket. The parser is a byte-level state machine, so a command split across reads
(``IAC`` at the end of one segment, ``WILL ECHO`` in the next) parses the same as one
that arrives whole; the tests feed it one byte at a time.

Option negotiation uses RFC 1143's "Q method": for each option and each side (*us*:
the options we perform, *him*: the options the server performs) a state ``NO``,
``YES``, ``WANTNO`` or ``WANTYES`` and a one-bit queue. It answers only requests that
would change a state, never acknowledges an acknowledgement, and so cannot loop however
the server words its requests (RFC 854's rule 3, made precise). The *policy* is a pair
of sets: options we let the server enable (ECHO and SUPPRESS-GO-AHEAD: the usual
"character at a time" server) and options we agree to perform (SUPPRESS-GO-AHEAD, plus
TERMINAL-TYPE and NAWS when the caller gives a terminal type and a window size, since
only then can we answer them). Every other request is refused: ``DO x`` gets ``WONT x``
and ``WILL x`` gets ``DONT x``.

What this core does not do: TRANSMIT-BINARY (refused, so data is always NVT text and
the CR rules always apply), the Synch mechanism (``DM`` is reported as a command and
otherwise ignored: urgent data is a socket matter), LINEMODE (refused; servers fall back
to character mode with server-side echo).
"""

from __future__ import annotations

import enum
import re
from collections import deque
from dataclasses import dataclass
from typing import Final

from anyurl.protocols.common import (
    NEED_DATA,
    ConnectionClosed,
    CoreProtocolError,
    Data,
    LocalProtocolError,
    NeedData,
    RemoteProtocolError,
)

__all__ = [
    "BINARY",
    "DO",
    "DONT",
    "ECHO",
    "IAC",
    "LINEMODE",
    "NAWS",
    "NEED_DATA",
    "SB",
    "SE",
    "SGA",
    "TTYPE",
    "WILL",
    "WONT",
    "CommandReceived",
    "ConnectionClosed",
    "Data",
    "Event",
    "NeedData",
    "Negotiation",
    "QState",
    "Subnegotiation",
    "TelnetClient",
    "TelnetCommandError",
    "TelnetCoreError",
    "TelnetReplyError",
    "command_name",
    "encode_nvt",
    "option_name",
]

# -- the bytes of RFC 854 ------------------------------------------------------------------

SE: Final = 240
NOP: Final = 241
DM: Final = 242
BRK: Final = 243
IP: Final = 244
AO: Final = 245
AYT: Final = 246
EC: Final = 247
EL: Final = 248
GA: Final = 249
SB: Final = 250
WILL: Final = 251
WONT: Final = 252
DO: Final = 253
DONT: Final = 254
IAC: Final = 255

# Options (RFC 856, 857, 858, 1091, 1073, 1184 ...).
BINARY: Final = 0
ECHO: Final = 1
SGA: Final = 3
STATUS: Final = 5
TM: Final = 6
TTYPE: Final = 24
NAWS: Final = 31
TSPEED: Final = 32
LFLOW: Final = 33
LINEMODE: Final = 34
XDISPLOC: Final = 35
OLD_ENVIRON: Final = 36
NEW_ENVIRON: Final = 39

#: TERMINAL-TYPE sub-negotiation verbs (RFC 1091).
TTYPE_IS: Final = 0
TTYPE_SEND: Final = 1

_COMMAND_NAMES: Final[dict[int, str]] = {
    SE: "SE", NOP: "NOP", DM: "DM", BRK: "BRK", IP: "IP", AO: "AO", AYT: "AYT", EC: "EC",
    EL: "EL", GA: "GA", SB: "SB", WILL: "WILL", WONT: "WONT", DO: "DO", DONT: "DONT",
    IAC: "IAC",
}
_OPTION_NAMES: Final[dict[int, str]] = {
    BINARY: "BINARY", ECHO: "ECHO", SGA: "SGA", STATUS: "STATUS", TM: "TIMING-MARK",
    TTYPE: "TTYPE", 25: "EOR", NAWS: "NAWS", TSPEED: "TSPEED", LFLOW: "LFLOW",
    LINEMODE: "LINEMODE", XDISPLOC: "XDISPLOC", OLD_ENVIRON: "OLD-ENVIRON",
    37: "AUTHENTICATION", 38: "ENCRYPT", NEW_ENVIRON: "NEW-ENVIRON",
}

#: A sub-negotiation longer than this is a broken or hostile peer, not a reason to
#: buffer without bound.
MAX_SUBNEGOTIATION = 64 * 1024


def command_name(code: int) -> str:
    """The name of a telnet command code (``DO``, ``WILL`` ...), else the number."""
    return _COMMAND_NAMES.get(code, str(code))


def option_name(option: int) -> str:
    """The name of a telnet option (``ECHO``, ``TTYPE`` ...), else the number."""
    return _OPTION_NAMES.get(option, str(option))


class TelnetCoreError(CoreProtocolError):
    """Base of this core's errors: catch a side (:class:`TelnetReplyError`,
    :class:`TelnetCommandError`)."""


class TelnetReplyError(TelnetCoreError, RemoteProtocolError):
    """The peer broke the protocol: bytes a Telnet client cannot accept."""


class TelnetCommandError(TelnetCoreError, LocalProtocolError):
    """Our side asked for something the protocol cannot say (a request the Q method forbids)."""


# -- events -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommandReceived:
    """A two-byte command the server sent (``GA``, ``NOP``, ``AYT``, ``DM`` ..., or an
    unknown code): an event, not a command line of ours (see ``common.CommandLine``)."""

    code: int

    def __str__(self) -> str:
        return f"IAC {command_name(self.code)}"


@dataclass(frozen=True)
class Negotiation:
    """The server sent ``IAC verb option``; ``reply`` is the verb we answered, or None.

    ``reply`` is None when the request did not change anything (RFC 854 rule 3: no
    acknowledgement of an acknowledgement).
    """

    verb: int
    option: int
    reply: int | None

    def __str__(self) -> str:
        return f"IAC {command_name(self.verb)} {option_name(self.option)}"

    @property
    def reply_text(self) -> str | None:
        """The answer sent to the negotiation, as a trace shows it, or None."""
        if self.reply is None:
            return None
        return f"IAC {command_name(self.reply)} {option_name(self.option)}"


@dataclass(frozen=True)
class Subnegotiation:
    """``IAC SB option parameters IAC SE`` from the server, ``IAC IAC`` undoubled.

    ``answered`` says whether the core replied (a TERMINAL-TYPE ``SEND``).
    """

    option: int
    parameters: bytes
    answered: bool = False

    def __str__(self) -> str:
        return f"IAC SB {option_name(self.option)} {self.parameters!r} IAC SE"


Event = Data | CommandReceived | Negotiation | Subnegotiation | ConnectionClosed


# -- RFC 1143 option state ------------------------------------------------------------------


class QState(enum.Enum):
    """RFC 1143's per-option state (the Q method): no, yes, or waiting for an answer."""
    NO = "NO"
    YES = "YES"
    WANTNO = "WANTNO"
    WANTYES = "WANTYES"


@dataclass
class _Q:
    """One side of one option: the state and the one-bit queue of RFC 1143 section 7."""

    state: QState = QState.NO
    opposite: bool = False  # the queue bit: True = OPPOSITE, False = EMPTY

    def receive_positive(self, agree: bool) -> bool | None:
        """WILL (him) / DO (us) arrived; return True to send the positive verb, False
        for the negative one, None to send nothing."""
        s = self.state
        if s is QState.NO:
            if agree:
                self.state = QState.YES
                return True
            return False
        if s is QState.YES:
            return None
        if s is QState.WANTNO:
            # A positive answer to our "please disable": RFC 1143 calls it an error;
            # settle on the state the peer claims, or on YES if we queued a re-enable.
            if self.opposite:
                self.state, self.opposite = QState.YES, False
            else:
                self.state = QState.NO
            return None
        # WANTYES: the peer acknowledged our request.
        if self.opposite:
            self.state, self.opposite = QState.WANTNO, False
            return False
        self.state = QState.YES
        return None

    def receive_negative(self) -> bool | None:
        """WONT (him) / DONT (us) arrived; same return convention."""
        s = self.state
        if s is QState.NO:
            return None
        if s is QState.YES:
            self.state = QState.NO
            return False
        if s is QState.WANTNO:
            if self.opposite:
                self.state, self.opposite = QState.WANTYES, False
                return True
            self.state = QState.NO
            return None
        # WANTYES: refused.
        self.state, self.opposite = QState.NO, False
        return None

    def request(self, enable: bool) -> bool | None:
        """We want the option on (``enable``) or off; same return convention."""
        s = self.state
        if enable:
            if s is QState.NO:
                self.state = QState.WANTYES
                return True
            if s is QState.WANTNO and not self.opposite:
                self.opposite = True
            elif s is QState.WANTYES and self.opposite:
                self.opposite = False
            return None
        if s is QState.YES:
            self.state = QState.WANTNO
            return False
        if s is QState.WANTYES and not self.opposite:
            self.opposite = True
        elif s is QState.WANTNO and self.opposite:
            self.opposite = False
        return None


class _P(enum.Enum):
    """Parser states."""

    DATA = "DATA"
    CR = "CR"  # a CR arrived; the next byte decides what it meant
    IAC = "IAC"
    OPTION = "OPTION"  # after IAC WILL|WONT|DO|DONT
    SB_OPTION = "SB_OPTION"  # after IAC SB
    SB_DATA = "SB_DATA"
    SB_IAC = "SB_IAC"  # IAC inside a sub-negotiation
    CLOSED = "CLOSED"


_NVT_LINE_ENDS = re.compile(rb"\r\n|\r|\n")


def encode_nvt(data: bytes) -> bytes:
    """``data`` as NVT bytes: 255 doubled, each line end ``CR LF``, a lone CR ``CR NUL``.

    ``\\n`` and ``\\r\\n`` both become ``CR LF``; a ``\\r`` not followed by ``\\n``
    becomes ``CR NUL`` (RFC 854: CR must not appear in any other combination).
    """
    data = data.replace(b"\xff", b"\xff\xff")
    return _NVT_LINE_ENDS.sub(lambda m: b"\r\x00" if m.group() == b"\r" else b"\r\n", data)


def _escape_parameters(parameters: bytes) -> bytes:
    return parameters.replace(b"\xff", b"\xff\xff")


class TelnetClient:
    """The client side of a Telnet connection: parse, negotiate, encode; no I/O.

    ``terminal_type`` (e.g. ``"DUMB"``) makes us accept TERMINAL-TYPE and answer every
    ``SEND`` with that one name; ``window_size`` (columns, rows) makes us accept NAWS and
    report that size. Without them both options are refused.
    """

    #: Options we let the server perform (it asks with WILL).
    SERVER_OPTIONS: Final[frozenset[int]] = frozenset({ECHO, SGA})

    def __init__(
        self,
        *,
        terminal_type: str | None = None,
        window_size: tuple[int, int] | None = None,
    ):
        if terminal_type is not None and (
            not terminal_type or not terminal_type.isascii() or not terminal_type.isprintable()
        ):
            raise ValueError(f"bad terminal type {terminal_type!r}")
        self.terminal_type = terminal_type
        self.window_size = window_size
        self._us: dict[int, _Q] = {}
        self._him: dict[int, _Q] = {}
        self._state = _P.DATA
        self._verb = 0
        self._sb_option = 0
        self._sb = bytearray()
        self._data = bytearray()
        self._events: deque[Event] = deque()
        self._out = bytearray()

    # -- policy and state ----------------------------------------------------------------

    def our_options(self) -> frozenset[int]:
        """Options we agree to perform when the server asks with DO."""
        options = {SGA}
        if self.terminal_type is not None:
            options.add(TTYPE)
        if self.window_size is not None:
            options.add(NAWS)
        return frozenset(options)

    def us(self, option: int) -> QState:
        """Whether we perform ``option``."""
        return self._us.get(option, _Q()).state

    def him(self, option: int) -> QState:
        """Whether the server performs ``option`` (``him(ECHO) is YES``: it echoes)."""
        return self._him.get(option, _Q()).state

    @property
    def closed(self) -> bool:
        """Whether the server closed the connection."""
        return self._state is _P.CLOSED

    # -- output -----------------------------------------------------------------------------

    def data_to_send(self) -> bytes:
        """Everything owed to the server since the last call (may be ``b""``)."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def send_data(self, data: bytes) -> None:
        """Queue terminal data, encoded for the NVT (:func:`encode_nvt`)."""
        self._out += encode_nvt(data)

    def send_command(self, code: int) -> None:
        """Queue a two-byte command such as ``AYT``, ``IP`` or ``NOP``."""
        if code in (SB, SE, WILL, WONT, DO, DONT, IAC) or not 0 <= code <= 255:
            raise TelnetCommandError(f"{command_name(code)} is not a two-byte command")
        self._out += bytes((IAC, code))

    def request_server(self, option: int, enable: bool) -> None:
        """Ask the server to start (DO) or stop (DONT) performing ``option``."""
        q = self._him.setdefault(option, _Q())
        answer = q.request(enable)
        if answer is not None:
            self._out += bytes((IAC, DO if answer else DONT, option))

    def request_us(self, option: int, enable: bool) -> None:
        """Offer (WILL) or withdraw (WONT) an option we perform."""
        if enable and option not in self.our_options():
            raise TelnetCommandError(f"we do not implement {option_name(option)}")
        q = self._us.setdefault(option, _Q())
        before = q.state
        answer = q.request(enable)
        if answer is not None:
            self._out += bytes((IAC, WILL if answer else WONT, option))
        self._after_us_change(option, before)

    def set_window_size(self, columns: int, rows: int) -> None:
        """Record a new size; tell the server when NAWS is in effect (RFC 1073)."""
        self.window_size = (columns, rows)
        if self.us(NAWS) is QState.YES:
            self._send_naws()

    def _send_naws(self) -> None:
        assert self.window_size is not None
        columns, rows = (max(0, min(0xFFFF, v)) for v in self.window_size)
        params = bytes((columns >> 8, columns & 0xFF, rows >> 8, rows & 0xFF))
        self._out += bytes((IAC, SB, NAWS)) + _escape_parameters(params) + bytes((IAC, SE))

    def _after_us_change(self, option: int, before: QState) -> None:
        if option == NAWS and before is not QState.YES and self.us(NAWS) is QState.YES:
            self._send_naws()

    # -- input ------------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Feed bytes from the server; ``b""`` means it closed its side."""
        if self._state is _P.CLOSED:
            if data:
                raise TelnetCommandError("data received after the end of the stream")
            return
        if not data:
            self._finish()
            return
        i, n = 0, len(data)
        while i < n:
            state = self._state
            if state is _P.DATA:
                # Fast path: copy the run of plain bytes up to the next IAC or CR.
                j = i
                while j < n and data[j] != IAC and data[j] != 13:
                    j += 1
                if j > i:
                    self._data += data[i:j]
                    i = j
                    continue
                self._state = _P.IAC if data[i] == IAC else _P.CR
                i += 1
                continue
            b = data[i]
            i += 1
            if state is _P.CR:
                self._state = _P.DATA
                if b == 10:  # CR LF: a new line
                    self._data += b"\n"
                elif b == 0:  # CR NUL: a carriage return
                    self._data += b"\r"
                elif b == 13:  # CR CR: keep the first, decide about the second
                    self._data += b"\r"
                    self._state = _P.CR
                elif b == IAC:  # robustness: a bare CR, then a command
                    self._data += b"\r"
                    self._state = _P.IAC
                else:  # robustness: a bare CR before other data
                    self._data += bytes((13, b))
            elif state is _P.IAC:
                self._command(b)
            elif state is _P.OPTION:
                self._state = _P.DATA
                self._negotiate(self._verb, b)
            elif state is _P.SB_OPTION:
                self._sb_option = b
                self._sb.clear()
                self._state = _P.SB_DATA
            elif state is _P.SB_DATA:
                if b == IAC:
                    self._state = _P.SB_IAC
                elif len(self._sb) < MAX_SUBNEGOTIATION:
                    self._sb.append(b)
            elif state is _P.SB_IAC:
                if b == SE:
                    self._state = _P.DATA
                    self._subnegotiation(self._sb_option, bytes(self._sb))
                elif b == IAC:
                    self._state = _P.SB_DATA
                    if len(self._sb) < MAX_SUBNEGOTIATION:
                        self._sb.append(IAC)
                else:
                    # IAC <other> inside SB: a peer that forgot IAC SE. End the
                    # sub-negotiation here and treat the byte as the command it is.
                    self._subnegotiation(self._sb_option, bytes(self._sb))
                    self._command(b)
        self._flush_data()

    def _command(self, b: int) -> None:
        self._state = _P.DATA
        if b == IAC:
            self._data.append(IAC)
        elif b in (WILL, WONT, DO, DONT):
            self._verb = b
            self._state = _P.OPTION
        elif b == SB:
            self._state = _P.SB_OPTION
        elif b == SE:
            pass  # a stray SE outside a sub-negotiation: ignore
        else:
            self._emit(CommandReceived(b))

    def _flush_data(self) -> None:
        if self._data:
            self._events.append(Data(bytes(self._data)))
            self._data.clear()

    def _emit(self, event: Event) -> None:
        self._flush_data()
        self._events.append(event)

    def _finish(self) -> None:
        if self._state is _P.CR:
            self._data += b"\r"
        # An unterminated sub-negotiation or command at EOF is discarded.
        self._state = _P.CLOSED
        self._emit(ConnectionClosed())

    def _negotiate(self, verb: int, option: int) -> None:
        reply: int | None = None
        if verb in (WILL, WONT):
            q = self._him.setdefault(option, _Q())
            if verb == WILL:
                answer = q.receive_positive(option in self.SERVER_OPTIONS)
            else:
                answer = q.receive_negative()
            if answer is not None:
                reply = DO if answer else DONT
        else:
            q = self._us.setdefault(option, _Q())
            before = q.state
            if verb == DO:
                answer = q.receive_positive(option in self.our_options())
            else:
                answer = q.receive_negative()
            if answer is not None:
                reply = WILL if answer else WONT
        if reply is not None:
            self._out += bytes((IAC, reply, option))
        self._emit(Negotiation(verb, option, reply))
        if verb in (DO, DONT):
            self._after_us_change(option, before)

    def _subnegotiation(self, option: int, parameters: bytes) -> None:
        answered = False
        if (
            option == TTYPE
            and parameters[:1] == bytes((TTYPE_SEND,))
            and self.us(TTYPE) is QState.YES
            and self.terminal_type is not None
        ):
            # RFC 1091: one type only, so every SEND gets the same name (which also
            # tells a server cycling through a list that the list has ended).
            name = self.terminal_type.upper().encode("ascii")
            self._out += (
                bytes((IAC, SB, TTYPE, TTYPE_IS)) + _escape_parameters(name) + bytes((IAC, SE))
            )
            answered = True
        self._emit(Subnegotiation(option, parameters, answered))

    def next_event(self) -> Event | NeedData:
        """The next complete event, or :data:`NEED_DATA`."""
        if self._events:
            return self._events.popleft()
        return NEED_DATA
