"""A loopback Prospero (version 5 over ARDP v0) server with a small fixed catalogue.

No Prospero server is packaged anywhere and the 1994 C server does not build without a
port, so this one stands in for tests and ``anyurl demo``. It speaks the same bytes the
client sends and reads (it shares the message code of :mod:`anyurl.protocols.prospero`
and :mod:`anyurl.protocols.ardp`), so it proves that client and server agree with each
other and with our reading of the 1993 protocol document -- not interoperability with
the historical implementation.

Run it with ``python -m anyurl.schemes.prospero.loopback --host 127.0.0.1 --port 1525``, or in a
program::

    async with serve_prospero() as server:
        url = server.url("/pub/README")

Commands understood: ``VERSION``, ``AUTHENTICATE`` (anything is accepted),
``GET-OBJECT-INFO``, ``DIRECTORY`` + ``LIST`` (``*``/``?`` wildcards), ``STATUS``; anything
else answers ``ERROR``. Replies are cut into 1250-octet packets with 7-octet headers; the
last packet of each window of 16 asks for an acknowledgement (12-octet header, flag
0x80), and the next window goes out when the client's received-through says so.

Objects (hsoname: what it is or does):

* ``/`` and ``/pub``: directories;
* ``/pub/README``: a file with an AFTP access method (``pub/readme.txt``, TEXT) and a GOPHER
  one; versions 0 and 1 (``;OBJECT-VERSION=1`` gets a different AFTP path);
* ``/pub/hello``: AFTP ``hello.txt`` BINARY; ``/pub/menu``: GOPHER; ``/pub/login``: TELNET;
* ``/pub/local``: a LOCAL access method to ``--local-file`` (default: this module's file);
* ``/pub/wais``: a WAIS access method in its all-default form (no URL can be made of it);
* ``/pub/many``: a directory of 300 links: a reply of about 24 packets, two windows;
* ``/pub/contents``: a PROSPERO-CONTENTS file of several lines (:data:`CONTENTS_TEXT`);
* ``/archive``: a directory to mirror: PROSPERO-CONTENTS files (``notes``, ``dos`` with
  CR LF, ``sub/deep``) and ``readme``, AFTP ``pub/readme.txt`` BINARY;
* ``/old``: ``FORWARDED`` to ``/pub/README`` on this server;
* ``/private``: ``FAILURE NOT-AUTHORIZED``;
* ``/lossy``: like README plus 50 DESCRIPTION lines (a 4-packet reply); the first time its
  reply goes out, packet 2 is "lost";
* ``/deaf``: the first request datagram of each connection id is ignored;
* ``/busy``: first a control packet asking the client to wait 2 s, the reply 0.3 s later;
* ``/sleepy``: a control packet asking the client to wait 65535 s, and never a reply;
* ``/otherport``: the reply comes from another UDP port (as servers on port 191 do);
* ``/dup``: every reply packet is sent twice, in reverse order.

``serve_prospero(swap_cid=True)`` (``--swap-cid``) sends every reply packet after the first
window with the connection id byte-swapped, as the real dirsrv does.

The AFTP/GOPHER/TELNET access methods name ``--ftp``, ``--gopher`` and ``--telnet``
(``HOST:PORT``, default: this server's host on the standard ports). In LINK and FORWARDED
lines the server names itself ``LOCALHOST`` when it listens on a loopback address, as a
real Prospero 5.3 dirsrv does, not by the address it was reached at.
"""

from __future__ import annotations

import fnmatch
import logging
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
import anyio.abc

from anyurl.numbers import ascii_int
from anyurl.protocols.ardp import (
    DEFAULT_WINDOW,
    FLAG_ACK_REQUESTED,
    MAX_SEND_PAYLOAD,
    ARDPReplyError,
    Reassembly,
    build_header,
    parse_packet,
)
from anyurl.protocols.prospero import (
    ProsperoCoreError,
    qsprintf_token,
    quote_token,
    tokenize,
)
from anyurl.testing._server import advertised, background, command_line, serve_until_interrupted

__all__ = ["ProsperoServer", "main", "serve_prospero"]

log = logging.getLogger("anyurl.schemes.prospero.loopback")

MANY_COUNT = 300
BUSY_WAIT_SECONDS = 2
#: What ``/sleepy`` asks for: the largest wait ARDP can carry (18 hours).
SLEEPY_WAIT_SECONDS = 65535
BUSY_DELAY = 0.3
#: Connections (reply state kept for retransmissions) are forgotten after this long.
CONNECTION_TTL = 120.0


@dataclass
class PObject:
    """One object of the catalogue: its attribute lines, links, and test behaviour."""

    attributes: list[tuple[str, ...]] = field(default_factory=list)  # (name, *values)
    links: list[tuple[str, str, str]] = field(default_factory=list)  # (name, target, hsoname)
    versions: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    forward_to: str | None = None
    failure: str | None = None
    #: What ``GET-OBJECT-INFO CONTENTS`` answers (a PROSPERO-CONTENTS object).
    contents: str | None = None
    behaviour: str | None = None

    @property
    def is_directory(self) -> bool:
        """Whether its ``BASE-TYPE`` attribute says ``DIRECTORY``."""
        return any(a[0] == "BASE-TYPE" and "DIRECTORY" in a[1:] for a in self.attributes)


#: The contents of ``/pub/contents`` (its PROSPERO-CONTENTS access method): several lines
#: and a quote, sent as Prospero 5.3's dirsrv sends a file (one quoted token over lines).
CONTENTS_TEXT = ("The contents of a Prospero object,\nread with GET-OBJECT-INFO CONTENTS.\n"
                 "It's sent as one token that spans lines.\n")


#: The contents of ``/archive/dos``: CR LF line ends, kept as they are.
DOS_TEXT = "a\r\nb\r\n"


def _hostport(host: str, port: int, default: int) -> str:
    return host if port == default else f"{host}({port})"


def build_catalogue(
    *, ftp: tuple[str, int], gopher: tuple[str, int],
    telnet: tuple[str, int], local_file: str,
) -> dict[str, PObject]:
    """The fixed catalogue, hsoname -> object, with access methods naming these peers."""
    ftp_host = _hostport(ftp[0], ftp[1], 21)
    gopher_host = _hostport(gopher[0], gopher[1], 70)
    telnet_host = _hostport(telnet[0], telnet[1], 23)

    def file(*methods: tuple[str, ...]) -> PObject:
        return PObject(attributes=[("BASE-TYPE", "FILE"), ("OWNER", "anyurl"),
                                   *(("ACCESS-METHOD", *m) for m in methods)])

    def contents(text: str) -> PObject:
        return PObject(attributes=[("BASE-TYPE", "FILE"),
                                   ("ACCESS-METHOD", "PROSPERO-CONTENTS", "", "", "", "")],
                       contents=text)

    readme_methods = (
        ("AFTP", "INTERNET-D", ftp_host, "ASCII", "pub/readme.txt", "TEXT"),
        ("GOPHER", "INTERNET-D", gopher_host, "ASCII", "/pub/readme.txt", "0"),
    )
    cat: dict[str, PObject] = {
        "/": PObject(attributes=[("BASE-TYPE", "DIRECTORY")],
                     links=[("pub", "DIRECTORY", "/pub"), ("old", "FILE", "/old"),
                            ("private", "FILE", "/private")]),
        "/pub": PObject(attributes=[("BASE-TYPE", "DIRECTORY")], links=[
            ("README", "FILE", "/pub/README"), ("hello", "FILE", "/pub/hello"),
            ("menu", "FILE", "/pub/menu"), ("login", "FILE", "/pub/login"),
            ("local", "FILE", "/pub/local"), ("wais", "FILE", "/pub/wais"),
            ("many", "DIRECTORY", "/pub/many"), ("with space", "FILE", "/pub/with space"),
        ]),
        "/pub/README": file(*readme_methods),
        "/pub/hello": file(("AFTP", "INTERNET-D", ftp_host, "ASCII", "hello.txt", "BINARY")),
        "/pub/with space": file(
            ("AFTP", "INTERNET-D", ftp_host, "ASCII", "pub/with space.txt", "TEXT")),
        "/pub/menu": file(("GOPHER", "INTERNET-D", gopher_host, "ASCII", "1/", "1")),
        "/pub/login": file(("TELNET", "INTERNET-D", telnet_host, "ASCII", "")),
        "/pub/local": file(("LOCAL", "", "", "ASCII", local_file)),
        "/pub/wais": file(("WAIS", "", "", "", "")),
        "/pub/contents": PObject(
            attributes=[("BASE-TYPE", "FILE"),
                        ("ACCESS-METHOD", "PROSPERO-CONTENTS", "", "", "", "")],
            contents=CONTENTS_TEXT),
        "/pub/many": PObject(
            attributes=[("BASE-TYPE", "DIRECTORY")],
            links=[(f"file{i:03d}.txt", "FILE", f"/pub/many/file{i:03d}.txt")
                   for i in range(MANY_COUNT)]),
        "/archive": PObject(attributes=[("BASE-TYPE", "DIRECTORY")], links=[
            ("notes", "FILE", "/archive/notes"), ("dos", "FILE", "/archive/dos"),
            ("readme", "FILE", "/archive/readme"), ("sub", "DIRECTORY", "/archive/sub"),
        ]),
        "/archive/notes": contents(CONTENTS_TEXT),
        "/archive/dos": contents(DOS_TEXT),
        "/archive/readme": file(
            ("AFTP", "INTERNET-D", ftp_host, "ASCII", "pub/readme.txt", "BINARY")),
        "/archive/sub": PObject(attributes=[("BASE-TYPE", "DIRECTORY")],
                                links=[("deep", "FILE", "/archive/sub/deep")]),
        "/archive/sub/deep": contents("deep inside\n"),
        "/old": PObject(forward_to="/pub/README"),
        "/private": PObject(failure="NOT-AUTHORIZED you may not read /private"),
    }
    for i in range(MANY_COUNT):
        cat[f"/pub/many/file{i:03d}.txt"] = file(
            ("AFTP", "INTERNET-D", ftp_host, "ASCII", f"many/file{i:03d}.txt", "TEXT"))
    cat["/pub/README"].versions["1"] = [
        ("BASE-TYPE", "FILE"),
        ("ACCESS-METHOD", "AFTP", "INTERNET-D", ftp_host, "ASCII", "hello.txt", "TEXT"),
    ]
    # Padding so that these replies take several packets (about 4 KB: 4 packets).
    padding = [("DESCRIPTION", f"line {i:02d} of a long description " + "x" * 60)
               for i in range(50)]
    for name in ("lossy", "deaf", "busy", "otherport", "dup", "sleepy"):
        cat[f"/{name}"] = PObject(attributes=[*cat["/pub/README"].attributes, *padding],
                                  behaviour=name)
    cat["/"].links.extend((name, "FILE", f"/{name}")
                          for name in ("lossy", "deaf", "busy", "otherport", "dup"))
    return cat


def _attr_line(attr: tuple[str, ...]) -> str:
    name, *values = attr
    return " ".join(["ATTRIBUTE OBJECT FIELD", name, *(quote_token(v) for v in values)])


@dataclass
class _Connection:
    """One client request (by address and connection id) and our reply to it."""

    address: tuple[str, int]
    request: Reassembly = field(default_factory=Reassembly)
    reply: list[bytes] | None = None  # payloads
    client_rt: int = 0
    sent_through: int = 0
    created: float = 0.0
    first_send_done: bool = False
    ignored_first: bool = False
    behaviour: str | None = None


class ProsperoServer:
    """The protocol logic; :func:`serve_prospero` gives it sockets."""

    def __init__(self, host: str, port: int, catalogue: dict[str, PObject],
                 window: int = DEFAULT_WINDOW, name: str | None = None,
                 swap_cid: bool = False):
        self.host = host
        self.port = port
        #: The name the server gives itself in LINK and FORWARDED lines: ``LOCALHOST``
        #: on a loopback address, as a real dirsrv there does (not the address).
        self.name = name or ("LOCALHOST" if host in ("127.0.0.1", "::1") else host)
        #: Send reply packets after the first window with the connection id byte-swapped,
        #: as Prospero 5.3's dirsrv does (a server bug the client must live with).
        self.swap_cid = swap_cid
        self.catalogue = catalogue
        self.window = window
        self.connections: dict[tuple[tuple[str, int], int], _Connection] = {}
        #: Every request message received, decoded (for tests).
        self.requests: list[str] = []
        #: How many request datagrams arrived (retransmissions included).
        self.datagrams_received = 0
        self._sock: anyio.abc.UDPSocket | None = None
        self._other: anyio.abc.UDPSocket | None = None
        self._tg: anyio.abc.TaskGroup | None = None

    def url(self, hsoname: str) -> str:
        """The prospero URL of ``hsoname`` on this server."""
        from anyurl.url import quote
        from anyurl.url.charset import UCHAR_PLAIN

        return f"prospero://{self.host}:{self.port}/" + quote(hsoname, UCHAR_PLAIN | {"/"})

    # -- messages ---------------------------------------------------------------------------

    def answer(self, message: str) -> tuple[str, str | None]:
        """The reply text to one request message, and the behaviour of the object asked."""
        out: list[str] = []
        behaviour: str | None = None
        directory: PObject | None = None
        directory_failed = False
        for raw in message.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            if not raw.strip():
                continue
            try:
                tokens = tokenize(raw)
            except ProsperoCoreError:
                out.append(f"ERROR cannot parse {raw!r}")
                continue
            command, args = tokens[0], tokens[1:]
            if command == "VERSION":
                if not args:
                    out.append("VERSION 5 anyurl-testing")
                elif args[0] != "5":
                    out.append("VERSION-NOT-SUPPORTED TRY 5")
                    break
            elif command == "AUTHENTICATE":
                continue
            elif command == "STATUS":
                out += [f"anyurl loopback Prospero server (anyurl-testing) {self.host}",
                        "Contact: nobody", f"Root: {self.host}"]
            elif command == "GET-OBJECT-INFO" and len(args) >= 3:
                names, _, hsoname, *rest = args
                version = rest[0] if rest else "0"
                obj = self.catalogue.get(hsoname or "/")
                behaviour = obj.behaviour if obj else None
                out += self._object_info(obj, hsoname, names, version)
            elif command == "DIRECTORY" and len(args) >= 2:
                hsoname = args[1]
                obj = self.catalogue.get(hsoname or "/")
                directory, directory_failed = None, True
                if obj is None:
                    out.append(f"FAILURE NOT-FOUND OBJECT {quote_token(hsoname)}")
                elif obj.forward_to is not None:
                    out.append(self._forwarded(obj.forward_to))
                elif not obj.is_directory:
                    out.append(f"FAILURE NOT-A-DIRECTORY {quote_token(hsoname)}")
                else:
                    directory, directory_failed = obj, False
            elif command == "LIST":
                if directory_failed:
                    continue
                if directory is None:
                    out.append("ERROR LIST without DIRECTORY")
                    continue
                wanted = args[2:] if len(args) > 2 else ["*"]
                lines = [self._link_line(name, target, hso)
                         for name, target, hso in directory.links
                         if any(fnmatch.fnmatchcase(name, w) for w in wanted)]
                out += lines or ["NONE-FOUND"]
            else:
                out.append(f"ERROR unknown or incomplete command {command}")
        return "\n".join(out) + ("\n" if out else ""), behaviour

    def _object_info(self, obj: PObject | None, hsoname: str, names: str,
                     version: str) -> list[str]:
        if obj is None:
            return [f"FAILURE NOT-FOUND OBJECT {quote_token(hsoname)}"]
        if obj.forward_to is not None:
            return [self._forwarded(obj.forward_to)]
        if obj.failure is not None:
            return [f"FAILURE {obj.failure}"]
        if version in ("0", ""):
            attributes = obj.attributes
        elif version in obj.versions:
            attributes = obj.versions[version]
        else:
            return [f"FAILURE NOT-FOUND OBJECT version {version} of {quote_token(hsoname)}"]
        wanted = {n for n in names.split("+") if n}
        if wanted == {"CONTENTS"}:  # as Prospero 5.3's dirsrv answers it
            if obj.contents is None:
                return ["NONE-FOUND"]
            # One token, quoted by qsprintf from its first special character on: a
            # file's line ends stay inside the quotes (dirsrv's "nested' file\n'").
            return ["ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA "
                    + qsprintf_token(obj.contents)]
        if not wanted & {"#ALL", "#OBJECT", "#INTERESTING", "#FIELD"}:
            attributes = [a for a in attributes if a[0] in wanted]
        return [_attr_line(a) for a in attributes] or ["NONE-FOUND"]

    def _me(self) -> str:
        return _hostport(self.name, self.port, 1525)

    def _forwarded(self, hsoname: str) -> str:
        return f"FORWARDED INTERNET-D {self._me()} ASCII {quote_token(hsoname, always=True)} 0"

    def _link_line(self, name: str, target: str, hsoname: str) -> str:
        return (f"LINK L {target} {quote_token(name)} INTERNET-D {self._me()} ASCII "
                f"{quote_token(hsoname, always=True)} 0")

    # -- ARDP -------------------------------------------------------------------------------

    async def handle_datagram(self, data: bytes, address: tuple[str, int]) -> None:
        """Take one ARDP datagram from ``address``: collect the request, send the reply window."""
        try:
            header, payload = parse_packet(data)
        except ARDPReplyError as exc:
            log.info("dropping a datagram from %s: %s", address, exc)
            return
        key = (address, header.cid)
        now = anyio.current_time()
        self._expire(now)
        conn = self.connections.get(key)
        if conn is None:
            if header.seq == 0:
                return  # an ACK for a connection we forgot
            conn = self.connections[key] = _Connection(address, created=now)
        if header.received_through is not None:
            conn.client_rt = max(conn.client_rt, header.received_through)
        if header.seq == 0:
            await self._send_window(key, conn)
            return
        self.datagrams_received += 1
        if not conn.ignored_first and conn.reply is None:
            text = payload.decode("utf-8", "replace")
            if "'/deaf'" in text:
                conn.ignored_first = True
                log.info("ignoring the first datagram of cid %d (/deaf)", header.cid)
                return
        conn.request.add(header, payload)
        if not conn.request.complete:
            return
        if conn.reply is None:
            message = conn.request.message().decode("utf-8", "surrogateescape")
            self.requests.append(message)
            text, behaviour = self.answer(message)
            conn.behaviour = behaviour
            body = text.encode("utf-8", "surrogateescape")
            conn.reply = [body[i:i + MAX_SEND_PAYLOAD]
                          for i in range(0, len(body), MAX_SEND_PAYLOAD)] or [b""]
            if behaviour == "sleepy":
                assert self._sock is not None
                wait = build_header(cid=header.cid, seq=0, total=0,
                                    received_through=conn.request.total,
                                    wait=SLEEPY_WAIT_SECONDS)
                await self._sock.sendto(wait, *address)
                return  # and never a reply
            if behaviour == "busy":
                assert self._sock is not None
                wait = build_header(cid=header.cid, seq=0, total=0,
                                    received_through=conn.request.total,
                                    wait=BUSY_WAIT_SECONDS)
                await self._sock.sendto(wait, *address)
                assert self._tg is not None
                self._tg.start_soon(self._send_later, key, conn, BUSY_DELAY)
                return
        else:
            # A retransmitted request: send again what the client does not have.
            conn.sent_through = conn.client_rt
        await self._send_window(key, conn)

    async def _send_later(self, key: tuple[tuple[str, int], int], conn: _Connection,
                          delay: float) -> None:
        await anyio.sleep(delay)
        await self._send_window(key, conn)

    async def _send_window(self, key: tuple[tuple[str, int], int], conn: _Connection) -> None:
        if conn.reply is None:
            return
        total = len(conn.reply)
        first = max(conn.sent_through, conn.client_rt) + 1
        last = min(total, conn.client_rt + self.window)
        if first > last:
            return
        packets: list[tuple[int, bytes]] = []
        for seq in range(first, last + 1):
            ask = (seq == last and last < total) or (seq == total and total > 1)
            cid = key[1]
            if self.swap_cid and seq > self.window:
                cid = ((cid & 0xFF) << 8) | (cid >> 8)
            if ask:
                header = build_header(cid=cid, seq=seq, total=total,
                                      received_through=conn.request.total, wait=0,
                                      flags=FLAG_ACK_REQUESTED)
            else:
                header = build_header(cid=cid, seq=seq, total=total)
            packets.append((seq, header + conn.reply[seq - 1]))
        conn.sent_through = last
        behaviour = conn.behaviour
        if behaviour == "lossy" and not conn.first_send_done and total >= 1:
            lost = 2 if total >= 2 else 1
            packets = [(s, p) for s, p in packets if s != lost]
        if behaviour == "dup":
            packets = [p for p in reversed(packets) for _ in range(2)]
        conn.first_send_done = True
        sock = self._other if behaviour == "otherport" and self._other else self._sock
        assert sock is not None
        for _, datagram in packets:
            await sock.sendto(datagram, *conn.address)

    def _expire(self, now: float) -> None:
        for key, conn in list(self.connections.items()):
            if now - conn.created > CONNECTION_TTL:
                del self.connections[key]


@asynccontextmanager
async def serve_prospero(
    host: str = "127.0.0.1", port: int = 0, *, ftp: tuple[str, int] | None = None,
    gopher: tuple[str, int] | None = None, telnet: tuple[str, int] | None = None,
    local_file: str | None = None, window: int = DEFAULT_WINDOW, swap_cid: bool = False,
) -> AsyncIterator[ProsperoServer]:
    """Serve on ``host:port`` (port 0: a free one) until the block exits; ``swap_cid``:
    byte-swap the connection id after the first window, as Prospero 5.3's dirsrv does."""
    sock = await anyio.create_udp_socket(local_host=host, local_port=port)
    other = await anyio.create_udp_socket(local_host=host, local_port=0)
    bound = sock.extra(anyio.abc.SocketAttribute.local_port)
    me = advertised(host)
    catalogue = build_catalogue(
        ftp=ftp or (me, 21), gopher=gopher or (me, 70),
        telnet=telnet or (me, 23), local_file=local_file or os.path.abspath(__file__),
    )
    server = ProsperoServer(me, bound, catalogue, window=window, swap_cid=swap_cid)
    server._sock, server._other = sock, other

    async def loop() -> None:
        async for data, address in sock:
            try:
                await server.handle_datagram(data, (str(address[0]), int(address[1])))
            except OSError as exc:  # a client that went away: ICMP errors on sendto
                log.info("sending to %s failed: %s", address, exc)

    async with sock, other, background() as tg:
        server._tg = tg
        tg.start_soon(loop)
        yield server


def _hostport_arg(text: str) -> tuple[str, int]:
    host, _, port_text = text.rpartition(":")
    port = ascii_int(port_text, max_digits=5)
    if port is None:
        raise ValueError(f"{text!r} is not HOST:PORT")  # argparse: a usage error
    return host, port


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.prospero.loopback``: serve until interrupted."""
    parser = command_line("prospero", __doc__, 1525)
    parser.add_argument("--ftp", type=_hostport_arg, default=None, metavar="HOST:PORT",
                        help="where AFTP access methods point (default: HOST:21)")
    parser.add_argument("--gopher", type=_hostport_arg, default=None, metavar="HOST:PORT")
    parser.add_argument("--telnet", type=_hostport_arg, default=None, metavar="HOST:PORT")
    parser.add_argument("--swap-cid", action="store_true",
                        help="byte-swap the connection id after the first window (as "
                        "Prospero 5.3's dirsrv does)")
    parser.add_argument("--local-file", default=None,
                        help="the path /pub/local's LOCAL access method names")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    return serve_until_interrupted(
        lambda: serve_prospero(args.host, args.port, ftp=args.ftp, gopher=args.gopher,
                               telnet=args.telnet, local_file=args.local_file,
                               swap_cid=args.swap_cid),
        lambda server: print(f"prospero listening on udp {server.host}:{server.port}",
                             flush=True),
        backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
