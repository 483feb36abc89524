"""A loopback Gopher+ server for what real servers cannot do: forms, views, odd framings.

pygopherd speaks Gopher+ but answers only ``!`` for attributes (no single-attribute
requests), has no +ASK forms and never sends ``--1``, ``+-1`` or a short ``+n``; no
maintained server does. This server exists so that the client's handling of those can be
tested, on both anyio backends, and shown by ``anyurl demo``. It is not a general server:
its items are fixed (see :data:`CATALOGUE` below and the root menu), plus, with
``--root DIR``, the files under DIR as ``/data/...``.

Run it with ``python -m anyurl.schemes.gopher.loopback --host 127.0.0.1 --port 7072``, or in
a program::

    async with serve_gopherplus() as server:
        url = server.url("0/hello.txt")

Items (selector: what it does):

* ``""`` (root): a Gopher+ menu (``+-1`` framed) whose items carry ``+``/``?`` markers;
* ``/hello.txt``: text with three views (``text/plain``, ``text/plain De_DE``,
  ``application/json``), an abstract, and answers ``!+NAME`` with just that block;
* ``/dots.txt``: text whose lines start with dots (stuffing, ``+-1``);
* ``/form``: an item with a +ASK form; answers the filled form with what it received;
* ``/search``: a type-7 search answering a menu of results;
* ``/binary.bin``: 4 KiB of binary holding CR LF "." CR LF sequences (``+n``);
* ``/stream``: a ``+-2`` body (until close) holding a "." line;
* ``/short``: ``+100`` and then only 40 bytes before the close;
* ``/missing`` and any unknown selector: ``--1`` code 1 (gopher0: a type-3 line);
* ``/busy``: ``--2`` code 2, try again later;
* ``/menu``: a gopher0 menu with malformed lines, an ``h`` ``URL:`` item, a mirror;
* ``/slow``: a text that never ends (for read timeouts).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.abc

from anyurl.numbers import ascii_int
from anyurl.testing._server import command_line, open_tcp, serve_until_interrupted

__all__ = ["ADMIN", "BINARY", "CATALOGUE", "GopherPlusServer", "main", "serve_gopherplus"]

log = logging.getLogger("anyurl.schemes.gopher.loopback")

ADMIN = "anyurl loopback <gopher@localhost>"
MOD_DATE = "<20240101120000>"
HELLO = b"Hello from the anyurl Gopher+ loopback server.\r\nThis is the default view.\r\n"
HELLO_DE = b"Hallo vom Gopher+-Server von anyurl.\r\nDies ist die deutsche Ansicht.\r\n"
HELLO_JSON = b'{"greeting": "hello", "view": "application/json"}\n'
DOTS = b".\r\n..\r\n.leading dot\r\nno dot\r\n...three\r\n"
BINARY = bytes((i * 31 + 7) % 256 for i in range(4096 - 5)) + b"\r\n.\r\n"
STREAM = b"sent with +-2, read until close\r\n.\r\nthis line follows a dot line\r\n"
SHORT_ANNOUNCED = 100
SHORT_SENT = b"only forty bytes of the hundred promised"
ASK = (
    "Note: Tell us about yourself",
    "Ask: Your name?",
    "AskP: Password",
    "AskL: Comments",
    "Select: Subscribe:0",
    "Choose: Scheme\tgopher\tftp\tnews",
)


@dataclass
class Item:
    """One item: its menu type, display string, bodies by view, attribute blocks."""

    gtype: str
    name: str
    views: dict[str, bytes] = field(default_factory=dict)
    abstract: str | None = None
    ask: tuple[str, ...] = ()
    special: str | None = None

    @property
    def marker(self) -> str:
        """The Gopher+ menu marker: ``?`` for an item with a +ASK form, else ``+``."""
        return "?" if self.ask else "+"


#: Selector -> item; the root menu lists them in this order.
CATALOGUE: dict[str, Item] = {
    "/hello.txt": Item("0", "Hello, in three views", {
        "text/plain": HELLO, "text/plain De_DE": HELLO_DE, "application/json": HELLO_JSON,
    }, abstract="A greeting.\nIt has an English, a German and a JSON view."),
    "/dots.txt": Item("0", "Lines starting with dots", {"text/plain": DOTS}),
    "/form": Item("0", "A survey with a +ASK form", {"text/plain": b""}, ask=ASK),
    "/search": Item("7", "Search the loopback server", special="search"),
    "/binary.bin": Item("9", "Binary data, 4 KiB", {"application/octet-stream": BINARY}),
    "/stream": Item("0", "A +-2 answer", {"text/plain": STREAM}, special="stream"),
    "/short": Item("0", "A +n answer that ends short", {"text/plain": SHORT_SENT},
                   special="short"),
    "/missing": Item("0", "An item that is not there", special="missing"),
    "/busy": Item("0", "An item whose server is busy", special="busy"),
    "/menu": Item("1", "A gopher0 menu with bad lines", special="menu"),
    "/slow": Item("0", "A text that never ends", special="slow"),
}


@dataclass
class Request:
    """One parsed request: selector, search, Gopher+ string and a client data block."""

    selector: str
    search: str | None
    plus: str | None
    data: list[bytes] | None  # the lines of a client data block (+ASK answers)


class GopherPlusServer:
    """The request handler; ``host``/``port`` are what menus advertise."""

    def __init__(self, host: str, port: int, root: Path | None = None):
        self.host = host
        self.port = port
        self.root = root
        self.requests: list[bytes] = []  # every request line received, for tests

    def url(self, path: str = "") -> str:
        """A gopher URL of this server for ``path`` (type and selector)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"gopher://{host}:{self.port}/{path}"

    # -- connections ------------------------------------------------------------------------

    async def handle(self, client: anyio.abc.ByteStream) -> None:
        """Answer one request on an accepted connection, and close it."""
        try:
            async with client:
                with anyio.fail_after(30):
                    request = await self._read_request(client)
                if request is not None:
                    await self._respond(client, request)
        except Exception:  # one bad connection never stops the server
            log.debug("connection failed", exc_info=True)

    async def _read_request(self, client: anyio.abc.ByteStream) -> Request | None:
        buf = bytearray()
        while b"\n" not in buf:
            try:
                chunk = await client.receive(65536)
            except anyio.EndOfStream:
                return None
            buf += chunk
            if len(buf) > 1 << 16:
                return None
        line, _, rest = bytes(buf).partition(b"\n")
        line = line.rstrip(b"\r")
        self.requests.append(line)
        fields = line.decode("utf-8", "surrogateescape").split("\t")
        selector, others = fields[0], fields[1:]
        data: list[bytes] | None = None
        if len(others) >= 2 and others[-1] == "1" and others[-2].startswith("+"):
            data = await self._read_block(client, bytearray(rest))
            others = others[:-1]
        search: str | None = None
        plus: str | None = None
        if others and (len(others) >= 2 or others[-1][:1] in ("+", "!", "$")):
            plus = others[-1]
            search = others[0] if len(others) >= 2 else None
        elif others:
            search = others[0]
        return Request(selector, search, plus, data)

    async def _read_block(self, client: anyio.abc.ByteStream, buf: bytearray) -> list[bytes]:
        """A client data block: ``+-1`` lines up to ``.``, or ``+n`` bytes."""
        async def more() -> bool:
            try:
                buf.extend(await client.receive(65536))
                return True
            except anyio.EndOfStream:
                return False

        while b"\n" not in buf:
            if not await more():
                return []
        header, _, body = bytes(buf).partition(b"\n")
        count = header.strip()[1:]  # +-1, +-2 or +n (a non-number: an empty block)
        size = -1 if count in (b"", b"-1") else (ascii_int(count, max_digits=12) or 0)
        buf[:] = body
        if size >= 0:
            while len(buf) < size and await more():
                pass
            return bytes(buf[:size]).splitlines()
        while not (buf.startswith(b".\r\n") or b"\n.\r\n" in buf or b"\n.\n" in buf):
            if not await more():
                break
        lines = []
        for raw in bytes(buf).split(b"\n"):
            raw = raw.rstrip(b"\r")
            if raw == b".":
                break
            lines.append(raw[1:] if raw.startswith(b".") else raw)
        return lines

    # -- answers ------------------------------------------------------------------------------

    def _line(self, gtype: str, name: str, selector: str, marker: str | None = "+") -> bytes:
        text = f"{gtype}{name}\t{selector}\t{self.host}\t{self.port}"
        if marker:
            text += f"\t{marker}"
        return text.encode("utf-8", "surrogateescape") + b"\r\n"

    def _root_menu(self) -> bytes:
        lines = [b"iWelcome to the anyurl Gopher+ loopback server\t\tfake\t0\r\n"]
        for selector, item in CATALOGUE.items():
            lines.append(self._line(item.gtype, item.name, selector, item.marker))
        lines.append(b"hThe anyurl home page\tURL:http://example.org/anyurl\tfake\t0\r\n")
        if self.root is not None:
            lines.append(self._line("1", "Files of the data root", "/data/"))
        return b"".join(lines)

    def _odd_menu(self) -> bytes:
        return b"".join([
            b"iA menu with lines a client must survive\t\tfake\t0\r\n",
            self._line("0", "Hello", "/hello.txt", None),
            b"this line has no tabs at all\r\n",
            b"0A bad port\t/x\tsomewhere\tseventy\r\n",
            self._line("+", "Hello, from a mirror", "/hello.txt", None),
            b"hA web link\tURL:http://example.org/\tfake\t0\r\n",
            b"3An error line inside a menu\t\terror.host\t1\r\n",
            self._line("9", "Binary", "/binary.bin", None),
        ])

    def _info(self, selector: str, item: Item) -> str:
        return (f"+INFO: {item.gtype}{item.name}\t{selector}\t{self.host}\t{self.port}"
                f"\t{item.marker}")

    def _blocks(self, selector: str, item: Item) -> dict[str, str]:
        blocks = {
            "+INFO": self._info(selector, item) + "\r\n",
            "+ADMIN": f"+ADMIN:\r\n Admin: {ADMIN}\r\n Mod-Date: {MOD_DATE}\r\n",
        }
        if item.views:
            blocks["+VIEWS"] = "+VIEWS:\r\n" + "".join(
                f" {view}: <{max(1, len(body) // 1024)}k>\r\n" for view, body in item.views.items()
            )
        if item.abstract:
            blocks["+ABSTRACT"] = "+ABSTRACT:\r\n" + "".join(
                f" {line}\r\n" for line in item.abstract.splitlines())
        if item.ask:
            blocks["+ASK"] = "+ASK:\r\n" + "".join(f" {line}\r\n" for line in item.ask)
        return blocks

    def _attributes(self, selector: str, item: Item, wanted: str) -> bytes:
        blocks = self._blocks(selector, item)
        names = [n for n in wanted.replace(" ", "+").split("+") if n]
        if names:  # the +INFO block first, then only what was asked for (G+ 2.7)
            keep = {"+INFO"} | {"+" + n for n in names}
            blocks = {k: v for k, v in blocks.items() if k in keep}
        return "".join(blocks.values()).encode()

    async def _respond(self, client: anyio.abc.ByteStream, req: Request) -> None:
        send = client.send
        sel, plus = req.selector, req.plus
        if self.root is not None and sel.startswith("/data/"):
            await send(self._data_answer(sel, plus))
            return
        if sel in ("", "/"):
            if plus and plus.startswith("$"):
                body = b"".join(self._attributes(s, i, plus[1:]) for s, i in CATALOGUE.items())
                await send(b"+-1\r\n" + _stuff(body) + b".\r\n")
            elif plus is not None:
                await send(b"+-1\r\n" + _stuff(self._root_menu()) + b".\r\n")
            else:
                await send(self._root_menu() + b".\r\n")
            return
        item = CATALOGUE.get(sel)
        if item is None or item.special == "missing":
            await send(_not_found(sel, plus))
            return
        if plus is not None and plus.startswith("!"):
            body = self._attributes(sel, item, plus[1:])
            await send(b"+%d\r\n" % len(body) + body)
            return
        if item.special == "busy":
            await send(b"--2\r\n2 " + ADMIN.encode() +
                       b"\r\nThe server is too busy; try again later.\r\n")
            return
        if item.ask:
            await send(self._form_answer(sel, item, req))
            return
        if item.special == "search":
            await send(self._search_answer(req))
            return
        if item.special == "menu":
            menu = self._odd_menu()
            await send(b"+-2\r\n" + menu if plus is not None else menu + b".\r\n")
            return
        if item.special == "slow":
            if plus is not None:
                await send(b"+-1\r\n")
            await send(b"the first line, and then nothing\r\n")
            await anyio.sleep_forever()
        view = plus[1:].strip() if plus and plus.startswith("+") else ""
        content = item.views.get(view or next(iter(item.views)))
        if content is None:
            await send(b"--1\r\n1 " + ADMIN.encode() +
                       f"\r\nNo view {view!r} of {sel!r}.\r\n.\r\n".encode())
            return
        if item.special == "short":
            await send(b"+%d\r\n" % SHORT_ANNOUNCED + content)
        elif item.special == "stream":
            await send(b"+-2\r\n" + content if plus is not None else _stuff(content) + b".\r\n")
        elif item.gtype == "9":
            await send(b"+%d\r\n" % len(content) + content if plus is not None else content)
        elif plus is not None:
            await send(b"+-1\r\n" + _stuff(content) + b".\r\n")
        else:
            await send(_stuff(content) + b".\r\n")

    def _search_answer(self, req: Request) -> bytes:
        words = (req.search or "").split()
        lines = [b"iResults for %s\t\tfake\t0\r\n" % " ".join(words).encode()]
        for word in words:
            lines.append(self._line("0", f"Hello, matching {word!r}", "/hello.txt"))
        menu = b"".join(lines)
        return (b"+-1\r\n" + menu + b".\r\n") if req.plus is not None else menu + b".\r\n"

    def _form_answer(self, sel: str, item: Item, req: Request) -> bytes:
        if req.plus is None:  # G+ 2.8: an old-style request gets an old-style error
            return (b"3This item has a form: use a Gopher+ client that can fill it in"
                    b"\t\terror.host\t1\r\n.\r\n")
        if req.data is None:
            return (b"--1\r\n1 " + ADMIN.encode() +
                    b"\r\nThis item is a form; send its answers in a data block.\r\n.\r\n")
        body = b"Thank you. The form had %d answer lines:\r\n" % len(req.data)
        body += b"".join(b"answer: " + line + b"\r\n" for line in req.data)
        body += b"as JSON: " + json.dumps(
            [line.decode("utf-8", "replace") for line in req.data]).encode() + b"\r\n"
        return b"+-1\r\n" + _stuff(body) + b".\r\n"

    def _data_answer(self, sel: str, plus: str | None) -> bytes:
        assert self.root is not None
        rel = sel[len("/data/"):]
        root = self.root.resolve()
        path = (root / rel).resolve()
        if (root != path and root not in path.parents) or not path.exists():
            return _not_found(sel, plus)
        if path.is_dir():
            lines = []
            for child in sorted(path.iterdir()):
                child_sel = "/data/" + str(child.relative_to(root)) + ("/" if child.is_dir()
                                                                       else "")
                gtype = "1" if child.is_dir() else "0" if child.suffix == ".txt" else "9"
                lines.append(self._line(gtype, child.name, child_sel))
            menu = b"".join(lines)
            return (b"+-1\r\n" if plus is not None else b"") + _stuff(menu) + b".\r\n"
        content = path.read_bytes()
        if path.suffix == ".txt":
            return (b"+-1\r\n" if plus is not None else b"") + _stuff(content) + b".\r\n"
        return (b"+%d\r\n" % len(content) if plus is not None else b"") + content


def _stuff(body: bytes) -> bytes:
    """Dot-stuff a text body (a leading "." doubled on every line)."""
    if body.startswith(b"."):
        body = b"." + body
    return body.replace(b"\n.", b"\n..")


def _not_found(sel: str, plus: str | None) -> bytes:
    if plus is not None:
        return (b"--1\r\n1 " + ADMIN.encode() +
                f"\r\nThe item {sel!r} does not exist.\r\n.\r\n".encode("utf-8", "replace"))
    return f"3{sel!r} does not exist\t\terror.host\t1\r\n".encode("utf-8", "replace")


def serve_gopherplus(host: str = "127.0.0.1", port: int = 0,
                     root: Path | None = None) -> AbstractAsyncContextManager[GopherPlusServer]:
    """Serve on ``host:port`` (port 0: a free one) until the block exits."""
    return open_tcp(lambda me, bound: GopherPlusServer(me, bound, root), host, port)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.gopher.loopback``: serve until interrupted."""
    parser = command_line("gopherplus", __doc__, 7072)
    parser.add_argument("--root", type=Path, default=None,
                        help="also serve the files under this directory as /data/...")
    args = parser.parse_args(argv)
    return serve_until_interrupted(
        lambda: serve_gopherplus(args.host, args.port, args.root),
        lambda server: print(f"gopherplus listening on {server.host}:{server.port}", flush=True),
        backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
