"""ARDP version 0, the datagram layer under Prospero: sans-I/O, one request at a time.

Strategy
--------
Prospero runs over UDP with its own small reliability layer, the *Asynchronous Reliable
Delivery Protocol* (appendix of "The Prospero Protocol, Version 5", 1993; the Prospero 5.3
``lib/ardp`` code). A message (one request, or the whole reply to it) is cut into packets of
at most 1250 octets of payload, each behind a variable-length header::

    octet 0      version (top 2 bits, 0) | header length (low 6 bits, includes octet 0)
    octets 1-2   connection id            (default 0; a reply echoes the request's)
    octets 3-4   sequence number          (default 1; 0 = unsequenced control packet)
    octets 5-6   total packets            (0 = unknown, keep what we had)
    octets 7-8   received-through         (acknowledgement of the *other* direction)
    octets 9-10  wait, in seconds         (the server is busy: do not retransmit sooner)
    octet 11     flags                    (0x80 please acknowledge, 0x40 sequenced control)
    octet 12     option                   (1 refused, 2 reset rt, 4/5 redirect, 254 queue)

A header may stop after any field; whatever is missing takes its default. Clients send
the 9-octet form; servers send 7 octets for plain data and more when they acknowledge,
change the wait or ask for an acknowledgement, so the parser below accepts every length.

This module has no socket and no clock. :class:`ARDPClient` is fed datagrams
(:meth:`~ARDPClient.receive_datagram`) and timer expiries (:meth:`~ARDPClient.timer_expired`)
and answers with events from :meth:`~ARDPClient.next_event`:

* :class:`Transmit` -- datagrams to send to the peer now (the request, retransmissions,
  acknowledgements);
* :class:`SetTimer` -- the *intention* to be woken after that many seconds: the driver
  re-arms one timer (each ``SetTimer`` replaces the previous one) and calls
  :meth:`~ARDPClient.timer_expired` if it fires before the reply is complete;
* :class:`WaitDeadline` -- a second, longer clock: the server asked us to wait, and the
  request's waits share one deadline; the driver calls
  :meth:`~ARDPClient.wait_deadline_passed` when it passes (``None``: forget it);
* :class:`MessageReceived` -- the reassembled reply;
* :class:`Refused`, :class:`Redirected`, :class:`QueueStatus`, :class:`GaveUp`,
  :class:`WaitCapped`, :class:`PacketIgnored` (a datagram that was not for us or not
  understood, for ``-v``).

Retransmission follows the 5.3 defaults: the whole request is sent again after 4 s, the
timeout doubles each time, three retries; a "wait" from the server raises the timeout to at
least that value (at most ``max_wait``: the caller's read timeout, else
:data:`MAX_SERVER_WAIT`; a longer one is reported as :class:`WaitCapped`) and resets the
retry count; progress (a new reply packet) also resets the
retry count, so a long reply over a slow link is not abandoned halfway. Capping each wait
is not enough: a server answering every retransmission with "wait" (or "wait 0") would
reset the retries for ever, so the first wait starts one deadline of ``max_wait`` for all
of them (:class:`WaitDeadline`), which only a new reply packet lifts; when it passes, the
request gives up (:class:`GaveUp` with ``waited``). Retransmitted
request packets carry our received-through count, which tells the server which reply
packets to send again. Packets flagged 0x80 are acknowledged at once with the 9-octet
ACK ``09 cid 0000 0000 rt`` so that a windowed server can continue.

A packet whose connection id is ours byte-swapped belongs to our request: Prospero 5.3's
dirsrv writes the id that way from its second window on (a server bug), so such packets
are accepted (:func:`swap_cid`). Packets with any other id are dropped and counted, and
:class:`GaveUp` says how many came and after how many reply packets.
"""

from __future__ import annotations

import enum
import random
import struct
from dataclasses import dataclass, field

from anyurl.protocols.common import (
    NEED_DATA,
    CoreProtocolError,
    LocalProtocolError,
    NeedData,
    RemoteProtocolError,
)

__all__ = [
    "DEFAULT_PORT",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "DEFAULT_WINDOW",
    "FLAG_ACK_REQUESTED",
    "FLAG_SEQUENCED_CONTROL",
    "MAX_RECEIVE_PAYLOAD",
    "MAX_SEND_PAYLOAD",
    "MAX_SERVER_WAIT",
    "NEED_DATA",
    "ARDPClient",
    "ARDPCommandError",
    "ARDPCoreError",
    "ARDPReplyError",
    "ConnectionIDs",
    "Event",
    "GaveUp",
    "Header",
    "MessageReceived",
    "PacketIgnored",
    "QueueStatus",
    "Reassembly",
    "Redirected",
    "Refused",
    "SetTimer",
    "State",
    "Transmit",
    "WaitCapped",
    "WaitDeadline",
    "ack_packet",
    "build_header",
    "fragment",
    "parse_packet",
    "swap_cid",
]

DEFAULT_PORT = 1525
#: Payload octets per packet when sending (``ARDP_PTXT_LEN``).
MAX_SEND_PAYLOAD = 1250
#: Largest payload accepted (``ARDP_PTXT_LEN_R``); larger packets are still taken.
MAX_RECEIVE_PAYLOAD = 1405
DEFAULT_TIMEOUT = 4.0
DEFAULT_RETRIES = 3
#: The longest server-requested wait honoured when the caller gives no cap: a "wait" of
#: 65535 s (18 hours) in one packet must not hold a transfer (issue 20).
MAX_SERVER_WAIT = 300.0
#: Packets a peer may send beyond the last acknowledged one.
DEFAULT_WINDOW = 16
MAX_WINDOW = 256

FLAG_ADDRESS = 0x01
FLAG_PRIORITY = 0x02
FLAG_PROTOCOL = 0x04
FLAG_WINDOW = 0x08
FLAG_SEQUENCED_CONTROL = 0x40
FLAG_ACK_REQUESTED = 0x80

OPTION_NONE = 0
OPTION_REFUSED = 1
OPTION_RESET_RT = 2
OPTION_BITMAP = 3
OPTION_REDIRECT = 4
OPTION_REDIRECT_PERMANENT = 5
OPTION_FORWARDED = 6
OPTION_FORWARDED_NOTIFY = 7
OPTION_QUEUE_REQUEST = 253
OPTION_QUEUE_STATUS = 254


class ARDPCoreError(CoreProtocolError):
    """Base of this core's errors: catch a side (:class:`ARDPReplyError`,
    :class:`ARDPCommandError`)."""


class ARDPReplyError(ARDPCoreError, RemoteProtocolError):
    """A datagram that cannot be an ARDP v0 packet (too short, other version, bad header)."""


class ARDPCommandError(ARDPCoreError, LocalProtocolError):
    """Our side misused the client (a request started twice)."""


# -- headers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """A parsed ARDP v0 header; fields the sender left out hold their defaults.

    ``received_through`` and ``wait`` are None when absent (absent is not the same as 0:
    a wait of 0 tells the client to go back to its own timer).
    """

    length: int
    cid: int = 0
    seq: int = 1
    total: int = 0
    received_through: int | None = None
    wait: int | None = None
    flags: int = 0
    option: int = OPTION_NONE
    #: Extra octets after octet 12 (flag fields, then the option's data), unparsed.
    extra: bytes = b""
    window: int | None = None
    priority: int | None = None
    option_data: bytes = b""

    @property
    def ack_requested(self) -> bool:
        """Whether the sender asks for an acknowledgement of this packet."""
        return bool(self.flags & FLAG_ACK_REQUESTED)

    @property
    def sequenced_control(self) -> bool:
        """Whether the sequenced-control flag (0x40) is set."""
        return bool(self.flags & FLAG_SEQUENCED_CONTROL)


def parse_packet(datagram: bytes) -> tuple[Header, bytes]:
    """Split a datagram into its header and payload.

    Raises :class:`ARDPReplyError` for a datagram that is empty, whose octet 0 is above 31
    (the 5.3 client's test for an old-format, pre-version-5 reply) or whose header is
    longer than the datagram.
    """
    if not datagram:
        raise ARDPReplyError("empty datagram")
    first = datagram[0]
    if first > 31:
        raise ARDPReplyError(
            f"octet 0 is {first:#04x}: not an ARDP v0 header (an old-format or v1 packet)"
        )
    length = first & 0x3F
    if length < 1 or length > len(datagram):
        raise ARDPReplyError(
            f"header length {length} does not fit a {len(datagram)}-octet datagram")
    h = datagram[:length]

    def u16(offset: int) -> int:
        return int(struct.unpack_from(">H", h, offset)[0])

    cid = u16(1) if length >= 3 else 0
    if length >= 5:
        seq = u16(3)
        total = u16(5) if length >= 7 else 0
    else:
        # A bare reply: one packet, the whole message.
        seq, total = 1, 1
    received_through = u16(7) if length >= 9 else None
    wait = u16(9) if length >= 11 else None
    flags = h[11] if length >= 12 else 0
    option = h[12] if length >= 13 else OPTION_NONE
    extra = bytes(h[13:]) if length > 13 else b""
    # Flag fields come first, low bit first; then the option's data.
    rest = extra
    window = priority = None
    try:
        if flags & FLAG_ADDRESS:
            addr_len = rest[1]
            rest = rest[2 + addr_len:]
        if flags & FLAG_PRIORITY:
            priority = struct.unpack_from(">h", rest)[0]
            rest = rest[2:]
        if flags & FLAG_PROTOCOL:
            rest = rest[2:]
        if flags & FLAG_WINDOW:
            window = int(struct.unpack_from(">H", rest)[0])
            rest = rest[2:]
    except (IndexError, struct.error):
        raise ARDPReplyError("header flag fields are cut short") from None
    return (
        Header(
            length=length, cid=cid, seq=seq, total=total, received_through=received_through,
            wait=wait, flags=flags, option=option, extra=extra, window=window,
            priority=priority, option_data=bytes(rest),
        ),
        bytes(datagram[length:]),
    )


def build_header(
    *,
    cid: int,
    seq: int,
    total: int,
    received_through: int | None = None,
    wait: int | None = None,
    flags: int | None = None,
    option: int | None = None,
    extra: bytes = b"",
) -> bytes:
    """The shortest v0 header carrying the fields given (7, 9, 11, 12 or 13+ octets).

    Clients always pass ``received_through`` (the 9-octet form of the 5.3 client);
    servers pass only what they need.
    """
    if option is not None or extra:
        length = 13 + len(extra)
    elif flags is not None:
        length = 12
    elif wait is not None:
        length = 11
    elif received_through is not None:
        length = 9
    else:
        length = 7
    if length > 31:
        raise ARDPReplyError(f"a {length}-octet header is longer than v0 allows here")
    out = bytearray([length])
    out += struct.pack(">HHH", cid, seq, total)
    if length >= 9:
        out += struct.pack(">H", received_through or 0)
    if length >= 11:
        out += struct.pack(">H", wait or 0)
    if length >= 12:
        out.append(flags or 0)
    if length >= 13:
        out.append(option or 0)
        out += extra
    return bytes(out)


def fragment(
    message: bytes, cid: int, *, received_through: int = 0, max_payload: int = MAX_SEND_PAYLOAD
) -> list[bytes]:
    """A client's request packets: 9-octet headers, payloads of at most ``max_payload``."""
    if max_payload < 1:
        raise ValueError("max_payload must be positive")
    pieces = [message[i : i + max_payload] for i in range(0, len(message), max_payload)] or [b""]
    total = len(pieces)
    return [
        build_header(cid=cid, seq=n, total=total, received_through=received_through) + piece
        for n, piece in enumerate(pieces, start=1)
    ]


def swap_cid(cid: int) -> int:
    """``cid`` with its two octets swapped: how Prospero 5.3's dirsrv writes it after its
    first window of reply packets (a server bug, seen on loopback)."""
    return ((cid & 0xFF) << 8) | (cid >> 8)


def ack_packet(cid: int, received_through: int) -> bytes:
    """The client's acknowledgement: ``09 cid 0000 0000 rt`` (unsequenced, total 0)."""
    return build_header(cid=cid, seq=0, total=0, received_through=received_through)


class ConnectionIDs:
    """Connection ids as the 5.3 client makes them: a random start, then +1, never 0."""

    def __init__(self, start: int | None = None):
        self._next = start if start is not None else random.randrange(1, 0x10000)

    def next(self) -> int:
        """The next connection id: 16 bits, never 0 (ARDP reserves it)."""
        cid = self._next & 0xFFFF
        if cid == 0:
            cid = 1
        self._next = cid + 1
        return cid


# -- reassembly ---------------------------------------------------------------------------


@dataclass
class Reassembly:
    """Packets of one message, stored by sequence number until 1..total are all in.

    Shared by the client (the reply) and the loopback server (a multi-packet request).
    ``received_through`` is the highest n such that packets 1..n are all here.
    """

    total: int = 0
    received_through: int = 0
    packets: dict[int, bytes] = field(default_factory=dict)
    #: Sequenced control packets: they hold a sequence number but carry no data.
    control: set[int] = field(default_factory=set)

    def add(self, header: Header, payload: bytes) -> bool:
        """Store one sequenced packet; True if it was new (not a duplicate)."""
        if header.total:
            self.total = header.total
        seq = header.seq
        if seq == 0 or seq in self.packets or seq in self.control:
            return False
        if header.sequenced_control:
            self.control.add(seq)
        else:
            self.packets[seq] = payload
        while (self.received_through + 1) in self.packets or (
            self.received_through + 1
        ) in self.control:
            self.received_through += 1
        return True

    @property
    def complete(self) -> bool:
        """Whether every packet of the message, up to the announced total, is here."""
        return self.total > 0 and self.received_through >= self.total

    def message(self) -> bytes:
        """The message's bytes: the packets joined in sequence order."""
        return b"".join(self.packets[n] for n in sorted(self.packets) if n <= self.total)


# -- events ---------------------------------------------------------------------------------




@dataclass(frozen=True)
class Transmit:
    """Send these datagrams to the peer, in order."""

    datagrams: tuple[bytes, ...]
    reason: str  # "request", "retransmission", "ack"


@dataclass(frozen=True)
class SetTimer:
    """Call :meth:`ARDPClient.timer_expired` after ``seconds`` (replaces any earlier timer)."""

    seconds: float


@dataclass(frozen=True)
class WaitDeadline:
    """Call :meth:`ARDPClient.wait_deadline_passed` after ``seconds`` unless another
    ``WaitDeadline`` comes first; ``None`` forgets the deadline (a reply packet came).

    Separate from :class:`SetTimer`, which every wait re-arms: this one is set once, by
    the first of a run of waits, so the server cannot extend it."""

    seconds: float | None


@dataclass(frozen=True)
class MessageReceived:
    """The whole reply, packets concatenated in sequence order."""

    payload: bytes
    packets: int


@dataclass(frozen=True)
class Refused:
    """The server refused the connection (option 1)."""


@dataclass(frozen=True)
class Redirected:
    """Option 4/5: resend to ``host:port`` (``permanent``: use that server from now on).

    The client has already queued the retransmission; the driver must send it (and any
    later datagram) to the new address.
    """

    host: str
    port: int
    permanent: bool


@dataclass(frozen=True)
class QueueStatus:
    """Option 254: our place in the server's queue and/or the expected wait."""

    position: int | None
    seconds: int | None


@dataclass(frozen=True)
class WaitCapped:
    """The server asked for a longer wait than the client's cap: ``used`` s instead."""

    asked: int
    used: float


@dataclass(frozen=True)
class GaveUp:
    """No complete reply after every retry."""

    attempts: int
    received_packets: int
    total_packets: int
    #: Datagrams that came with another connection id (dropped), the last such id,
    #: and how many reply packets had arrived when the first of them came.
    unexpected_packets: int = 0
    unexpected_cid: int | None = None
    unexpected_after: int = 0
    #: The deadline (s) of the server's waits when it was that which ran out, else None.
    waited: float | None = None


@dataclass(frozen=True)
class PacketIgnored:
    """A datagram that was dropped (other connection id, not ARDP, a duplicate ...)."""

    reason: str


Event = (
    Transmit | SetTimer | MessageReceived | Refused | Redirected | QueueStatus | GaveUp
    | PacketIgnored | WaitCapped | WaitDeadline
)


class State(enum.Enum):
    """Where a request is: not sent, waiting for its reply, answered, or given up."""
    IDLE = "idle"
    WAITING = "waiting"  # request sent, reply incomplete
    DONE = "done"
    FAILED = "failed"


class ARDPClient:
    """One ARDP request and its reply, as a state machine.

    ``client = ARDPClient(cid, message); client.start()``, then loop: take events with
    :meth:`next_event` until ``NEED_DATA``; wait for a datagram or the timer; feed it.
    """

    def __init__(
        self,
        cid: int,
        message: bytes,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        max_payload: int = MAX_SEND_PAYLOAD,
        max_wait: float = MAX_SERVER_WAIT,
    ):
        if not 0 < cid <= 0xFFFF:
            raise ValueError("the connection id must be a non-zero 16-bit number")
        self.cid = cid
        self.message = message
        self.initial_timeout = timeout
        self.timeout = timeout
        self.retries = retries
        self.retries_left = retries
        self.max_payload = max_payload
        #: The longest server-requested wait honoured (the caller's read timeout).
        self.max_wait = max_wait
        self.state = State.IDLE
        self.reply = Reassembly()
        self.attempts = 0
        #: How many of our request packets the server says it has (its received-through).
        self.peer_received_through = 0
        self.peer_window = DEFAULT_WINDOW
        #: Packets that came with our connection id byte-swapped (accepted).
        self.swapped_packets = 0
        #: Packets with another connection id (dropped): how many, the last id, and how
        #: many reply packets had arrived when the first of them came.
        self.unexpected_packets = 0
        self.unexpected_cid: int | None = None
        self.unexpected_after = 0
        #: Whether a :class:`WaitDeadline` is running (a wait came, no reply packet since).
        self.wait_deadline_running = False
        self._events: list[Event] = []
        self._request_total = len(fragment(message, cid, max_payload=max_payload))
        self._sent_through = 0  # highest request packet sent so far

    # -- inputs -----------------------------------------------------------------------------

    def start(self) -> None:
        """Queue the first transmission of the request and the retransmission timer."""
        if self.state is not State.IDLE:
            raise ARDPCommandError("start() called twice")
        self.state = State.WAITING
        self.attempts = 1
        self._send_window("request", resend=False)
        self._events.append(SetTimer(self.timeout))

    def receive_datagram(self, datagram: bytes) -> None:
        """Feed one datagram that arrived from the server's host."""
        if self.state is not State.WAITING:
            self._events.append(PacketIgnored(f"datagram after the request is {self.state.value}"))
            return
        try:
            header, payload = parse_packet(datagram)
        except ARDPReplyError as exc:
            self._events.append(PacketIgnored(str(exc)))
            return
        if not self._ours(header.cid):
            return
        progress = fresh = False
        if header.window is not None:
            self.peer_window = max(1, min(header.window, MAX_WINDOW))
        if header.received_through is not None:
            if header.option == OPTION_RESET_RT:
                self.peer_received_through = header.received_through
            elif header.received_through > self.peer_received_through:
                self.peer_received_through = header.received_through
                if self._sent_through < self._request_total:
                    self._send_window("request", resend=False)
        if header.wait is not None:
            if header.wait:
                wanted = float(header.wait)
                if wanted > self.max_wait:
                    self._events.append(WaitCapped(header.wait, self.max_wait))
                    wanted = self.max_wait
                self.timeout = max(self.initial_timeout, wanted)
            else:
                self.timeout = self.initial_timeout
            self.retries_left = self.retries
            progress = True
        if header.option == OPTION_REFUSED:
            self.state = State.FAILED
            self._events.append(Refused())
            return
        if header.option in (OPTION_REDIRECT, OPTION_REDIRECT_PERMANENT):
            data = header.option_data
            if len(data) >= 6:
                host = ".".join(str(b) for b in data[:4])
                port = int(struct.unpack_from(">H", data, 4)[0])
                self._events.append(
                    Redirected(host, port, header.option == OPTION_REDIRECT_PERMANENT)
                )
                self._send_window("retransmission", resend=True)
                progress = True
        if header.option == OPTION_QUEUE_STATUS:
            self._events.append(_queue_status(header.option_data))
        if header.seq != 0:
            if self.reply.add(header, payload):
                progress = fresh = True
                self.retries_left = self.retries
            else:
                self._events.append(PacketIgnored(f"duplicate packet {header.seq}"))
        if self.reply.complete:
            if header.ack_requested:
                self._events.append(
                    Transmit((ack_packet(self.cid, self.reply.received_through),), "ack")
                )
            self.state = State.DONE
            self._events.append(
                MessageReceived(self.reply.message(), len(self.reply.packets))
            )
            return
        if header.ack_requested:
            self._events.append(
                Transmit((ack_packet(self.cid, self.reply.received_through),), "ack")
            )
        self._wait_deadline(asked_to_wait=header.wait is not None, fresh=fresh)
        if progress:
            self._events.append(SetTimer(self.timeout))

    def wait_deadline_passed(self) -> None:
        """The :class:`WaitDeadline` ran out: the server's waits took the whole of it."""
        if self.state is not State.WAITING or not self.wait_deadline_running:
            return
        self.state = State.FAILED
        self.wait_deadline_running = False
        self._events.append(
            GaveUp(self.attempts, len(self.reply.packets), self.reply.total,
                   self.unexpected_packets, self.unexpected_cid, self.unexpected_after,
                   waited=self.max_wait)
        )

    def timer_expired(self) -> None:
        """The last :class:`SetTimer` ran out without a complete reply."""
        if self.state is not State.WAITING:
            return
        if self.retries_left <= 0:
            self.state = State.FAILED
            self._events.append(
                GaveUp(self.attempts, len(self.reply.packets), self.reply.total,
                       self.unexpected_packets, self.unexpected_cid, self.unexpected_after)
            )
            return
        self.retries_left -= 1
        self.attempts += 1
        self.timeout *= 2
        self._send_window("retransmission", resend=True)
        self._events.append(SetTimer(self.timeout))

    # -- outputs ----------------------------------------------------------------------------

    def next_event(self) -> Event | NeedData:
        """The next event of the received datagrams, or ``NEED_DATA``."""
        if self._events:
            return self._events.pop(0)
        return NEED_DATA

    # -- internals --------------------------------------------------------------------------

    def _ours(self, cid: int) -> bool:
        """Whether a packet with connection id ``cid`` belongs to our request; one that
        does not is counted and reported."""
        if cid == self.cid:
            return True
        if cid == swap_cid(self.cid):
            # Prospero 5.3's dirsrv sends the id byte-swapped after its first window
            # (a server bug): the same request's packets, accepted.
            self.swapped_packets += 1
            if self.swapped_packets == 1:
                self._events.append(PacketIgnored(
                    f"connection id {cid:#06x} is ours ({self.cid:#06x}) "
                    "byte-swapped, as Prospero 5.3's dirsrv sends it after its first "
                    "window: accepted"))
            return True
        if not self.unexpected_packets:
            self.unexpected_after = len(self.reply.packets)
        self.unexpected_packets += 1
        self.unexpected_cid = cid
        self._events.append(PacketIgnored(f"connection id {cid} is not ours ({self.cid})"))
        return False

    def _wait_deadline(self, *, asked_to_wait: bool, fresh: bool) -> None:
        """Start the waits' deadline at the first wait, lift it at a new reply packet.

        A datagram with both (the last packet of a window carries ``wait 0``) is
        progress, and starts nothing."""
        if fresh:
            if self.wait_deadline_running:
                self.wait_deadline_running = False
                self._events.append(WaitDeadline(None))
        elif asked_to_wait and not self.wait_deadline_running:
            self.wait_deadline_running = True
            self._events.append(WaitDeadline(self.max_wait))

    def _send_window(self, reason: str, *, resend: bool) -> None:
        """Send request packets the server may accept now (its rt + window).

        On a retransmission the whole window is sent again, each packet restamped with our
        current received-through, which tells the server what of its reply we hold.
        """
        packets = fragment(
            self.message, self.cid, received_through=self.reply.received_through,
            max_payload=self.max_payload,
        )
        limit = min(len(packets), self.peer_received_through + self.peer_window)
        first = 0 if resend else self._sent_through
        chosen = packets[first:limit]
        if resend and not chosen and packets:
            chosen = packets[-1:]
        if chosen:
            self._sent_through = max(self._sent_through, limit)
            self._events.append(Transmit(tuple(chosen), reason))


def _queue_status(data: bytes) -> QueueStatus:
    if not data:
        return QueueStatus(None, None)
    flags, rest = data[0], data[1:]
    position = seconds = None
    if flags & 0x01 and len(rest) >= 2:
        position = int(struct.unpack_from(">H", rest)[0])
        rest = rest[2:]
    if flags & 0x02 and len(rest) >= 4:
        seconds = int(struct.unpack_from(">I", rest)[0])
    return QueueStatus(position, seconds)
