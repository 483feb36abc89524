"""Fuzz: the cores' ``receive_data``/``next_event`` and the URL parser, fed protocol
lines whose number fields hold other scripts' digits, signs, underscores, blank space
and control characters, end in their own protocol error (or a URL syntax error), never
another exception.

A few thousand cases run by default; ``ANYURL_FUZZ_CASES=1000000`` runs a million (about
two minutes on one core), ``ANYURL_FUZZ_SEED`` picks another sequence. A failure names
the case's seed and input, so it can be run again alone.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

from anyurl import mask, parse
from anyurl.errors import AnyURLError
from anyurl.protocols import nntp, wais
from anyurl.protocols.common import NEED_DATA, ConnectionClosed, EndOfData, RemoteProtocolError
from anyurl.protocols.ftp import Command, FTPClient, fact_size, fact_time, parse_mlsd
from anyurl.protocols.gopher import Framing, PlusError, ResponseReader, parse_menu
from anyurl.protocols.prospero import parse_reply
from anyurl.protocols.replies import Grammar, ReplyReader
from anyurl.protocols.telnet import TelnetClient
from anyurl.schemes.http.pipeline import Malformed
from anyurl.schemes.http.pipeline import ResponseReader as HTTPReader

CASES = int(os.environ.get("ANYURL_FUZZ_CASES", "3000"))
SEED = int(os.environ.get("ANYURL_FUZZ_SEED", "29"))

#: What may stand where a number goes: ASCII digits most often, then what int() or
#: isdigit() take besides, and control characters.
NUMBERISH = (list("0123456789") * 4 + ["²", "٣", "１", "߀", "𝟗", "৪", "+", "-", "_", " ",
             "\t", "\u00a0", "\u2007", "\x00", "\x7f", "\x1b", "\r", "\n", "\x85", "é"])
#: Characters of a URL: its delimiters, letters, digits, and the same hostile ones.
URLISH = list("abcxyz019:/@?#;=%.-_~[]&+ ") + NUMBERISH


def _number(rng: random.Random) -> str:
    return "".join(rng.choice(NUMBERISH) for _ in range(rng.randint(0, 6)))


#: Server lines with number fields, by core; each ``{}`` becomes a hostile number.
LINES = {
    "ftp": ["{} ok\r\n", "213 {}\r\n", "227 Entering (1,2,3,4,{},{})\r\n",
            "229 Entering (|||{}|)\r\n", "{}-multi\r\n{} end\r\n"],
    "nntp": ["{} hello\r\n", "211 {} {} {} group\r\n", "220 {} <a@b>\r\nbody\r\n.\r\n",
             "224 ok\r\n{}\ts\tf\td\t<m>\t\t{}\t{}\r\n.\r\n", "215 list\r\ng {} {} y\r\n.\r\n"],
    "smtp": ["{} ready\r\n", "{}-EHLO\r\n{} ok\r\n"],
    "gopher": ["+{}\r\nbody", "--{}\r\n{} error <admin>\r\n", "1Menu\tsel\thost\t{}\r\n.\r\n",
               "+-{}\r\n.\r\n"],
    "wais": ["{}{}z0000000000000", "0000000{}z"],
    "http": ["HTTP/1.1 {} OK\r\nContent-Length: {}\r\n\r\nxx",
             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{}\r\nx\r\n0\r\n\r\n",
             "HTTP/1.{} 2{}0 OK\r\n\r\n"],
    "prospero": ["ERROR {}\n", "LINK L FILE x HOST({}) ASCII a\n", "{}\n"],
    "mlsd": ["type=file;size={};modify=2024010100000{}.{}; name\r\n"],
    "telnet": ["\xff\xfa\x18{}\xff\xf0{}", "{}\xff\xfb\x01"],
}


def _fill(rng: random.Random, template: str) -> bytes:
    text = template.format(*(_number(rng) for _ in range(template.count("{}"))))
    return text.encode("utf-8", "surrogateescape")


def _drain(next_event: Callable[[], object]) -> bool:
    """Take events until more data is needed (False) or the stream has ended (True)."""
    for _ in range(1000):
        event = next_event()
        if event is NEED_DATA:
            return False
        if isinstance(event, ConnectionClosed | EndOfData | PlusError):
            return True
    return False


def _feed(core: object, data: bytes, sizes: list[int]) -> None:
    """``data`` in chunks, then the end of the stream, draining events after each."""
    at = 0
    for piece in [*sizes, len(data)]:
        core.receive_data(data[at : at + piece])  # type: ignore[attr-defined]
        if _drain(core.next_event):  # type: ignore[attr-defined]
            return
        at += piece
    core.receive_data(b"")  # type: ignore[attr-defined]
    _drain(core.next_event)  # type: ignore[attr-defined]


def _ftp(data: bytes, sizes: list[int]) -> None:
    client = FTPClient()
    head, _, rest = data.partition(b"\r\n")
    client.receive_data(head + b"\r\n")
    _drain(client.next_event)
    if client.state.value == "idle":
        client.send(Command("SIZE", "x"))
    _feed(client, rest, sizes)


def _nntp(data: bytes, sizes: list[int]) -> None:
    client = nntp.NNTPClient()
    head, _, rest = data.partition(b"\r\n")
    client.receive_data(head + b"\r\n")
    _drain(client.next_event)
    if client.state.value == "idle":
        client.send(nntp.Command("OVER", ("1-2",)))
    _feed(client, rest, sizes)
    for line in rest.split(b"\r\n"):
        for parser in (nntp.parse_overview_line, nntp.parse_active_line):
            try:
                parser(line)
            except RemoteProtocolError:
                pass


def _http(data: bytes, sizes: list[int]) -> None:
    reader = HTTPReader()
    reader.receive_data(data)
    reader.receive_data(b"")
    head = reader.next_head()
    if head is not None:
        reader.start_body(head, "GET")
        for _ in range(100):
            if reader.next_piece() is None or reader.body_done:
                break


def _gopher(data: bytes, sizes: list[int]) -> None:
    _feed(ResponseReader(Framing.DOT, gopher_plus=True), data, sizes)
    parse_menu(data)


def _prospero(data: bytes, sizes: list[int]) -> None:
    parse_reply(data)


def _mlsd(data: bytes, sizes: list[int]) -> None:
    for entry in parse_mlsd(data):
        fact_size(entry)
        fact_time(entry)


CORES: dict[str, Callable[[bytes, list[int]], None]] = {
    "ftp": _ftp,
    "nntp": _nntp,
    "smtp": lambda data, sizes: _feed(ReplyReader(Grammar.CODED_LINES), data, sizes),
    "gopher": _gopher,
    "wais": lambda data, sizes: _feed(wais.WAISConnection(max_message=1 << 16), data, sizes),
    "http": _http,
    "prospero": _prospero,
    "mlsd": _mlsd,
    "telnet": lambda data, sizes: _feed(TelnetClient(terminal_type="DUMB"), data, sizes),
}
#: What a core may raise: its protocol error (the pipeline's Malformed is HTTP's, and its
#: EOFError a body cut by the close, which the caller names).
CLEAN = (RemoteProtocolError, Malformed, EOFError)


def _url(rng: random.Random) -> str:
    scheme = rng.choice(["http", "ftp", "gopher", "nntp", "news", "wais", "telnet",
                         "prospero", "mailto", "file", "x-other"])
    host = "".join(rng.choice(URLISH) for _ in range(rng.randint(0, 8)))
    path = "".join(rng.choice(URLISH) for _ in range(rng.randint(0, 12)))
    return f"{scheme}://{host}:{_number(rng)}/{path}"


def _one_url(text: str) -> None:
    mask(text)
    for strict in (False, True):
        try:
            url = parse(text, strict=strict)
        except AnyURLError:
            continue
        url.masked()
        url.effective_port  # noqa: B018  (a property: the registry's port)
        url.parts  # noqa: B018  (a property: the scheme's view, numbers read)


class TestNumberFuzz:
    """``CASES`` cases in all, spread over the cores and the URL parser."""

    def test_cores(self) -> None:
        rng = random.Random(SEED)
        names = sorted(CORES)
        per_core = max(1, CASES // (len(names) + 1))
        for name in names:
            run = CORES[name]
            for case in range(per_core):
                data = b"".join(_fill(rng, rng.choice(LINES[name]))
                                for _ in range(rng.randint(1, 3)))
                sizes = [rng.randint(1, 16) for _ in range(rng.randint(0, 3))]
                try:
                    run(data, sizes)
                except CLEAN:
                    pass
                except Exception as exc:  # the failure to report, with how to repeat it
                    raise AssertionError(f"{name} case {case} (seed {SEED}): {data!r} "
                                         f"raised {exc!r}") from exc

    def test_url_parser(self) -> None:
        rng = random.Random(SEED + 1)
        for case in range(max(1, CASES // (len(CORES) + 1))):
            text = _url(rng)
            try:
                _one_url(text)
            except Exception as exc:
                raise AssertionError(f"URL case {case} (seed {SEED}): {text!r} raised "
                                     f"{exc!r}") from exc
