"""What a Gopher client sends (RFC 1738 3.4, RFC 1436, Gopher+): selector lines and
the data block of a filled-in +ASK form (RFC 1738 3.4.9), dot-stuffed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from anyurl.protocols.gopher.errors import GopherCommandError
from anyurl.schemes.gopher.view import GopherPath, gopher_plus_problem
from anyurl.url import encode_wire

__all__ = [
    "CRLF",
    "build_request",
    "data_block",
    "form_request",
]


CRLF: Final = b"\r\n"


def build_request(path: GopherPath, *, search: str | None = None,
                  gopher_plus: str | None = None) -> bytes:
    """The bytes to send for ``path``: selector [TAB search] [TAB gopher+] CR LF.

    ``search`` is used when the URL has none (the CLI's ``--search``); ``gopher_plus``
    replaces the URL's Gopher+ string (``--view`` asks for ``+<view>``). An empty search
    field is dropped in front of a Gopher+ string except for type 7: RFC 1738 3.4.3 makes
    the URL carry one, but a Gopher+ server reads ``sel<TAB><TAB>+`` as an (empty) search,
    and dropping it turns the URL of 3.4.9 into exactly the bytes 3.4.9 says to send. A
    Gopher+ string that carries a data block (3.4.9) already ends with CR LF.
    """
    if path.search is not None:
        search = path.search
    plus = gopher_plus if gopher_plus is not None else path.gopher_plus
    for name, value in (("selector", path.selector), ("search", search)):
        if value is not None and any(c in value for c in "\t\r\n\x00"):
            raise GopherCommandError(
                f"a gopher {name} may not contain TAB, CR, LF or NUL: {value!r}")
    problem = None if plus is None else gopher_plus_problem(plus)
    if problem is not None:  # a URL built without the parser, or a --view with CR LF
        raise GopherCommandError(f"{problem}: {plus!r}")
    line = path.selector
    if plus is None:
        if search is not None:
            line += "\t" + search
    else:
        if search or (search is not None and path.gophertype == "7"):
            line += "\t" + search
        elif path.gophertype == "7" and plus[:1] in ("!", "$"):
            line += "\t"  # attributes of a search item: sel<TAB><TAB>! (G+ appendix II)
        line += "\t" + plus
    data = encode_wire(line)
    if not data.endswith(CRLF):
        data += CRLF
    return data


def _stuff(line: bytes) -> bytes:
    return b"." + line if line.startswith(b".") else line


def data_block(lines: Sequence[str], file: bytes | None = None) -> bytes:
    """A client data block: ``+-1``, the lines, an optional file, and the ``.`` line.

    Lines that start with ``.`` are stuffed so that an answer of ``.`` cannot end the
    block early (the server unstuffs ``+-1`` data as it would gopher0 text).
    """
    out = bytearray(b"+-1\r\n")
    for text in lines:
        out += _stuff(encode_wire(text)) + CRLF
    if file:
        for raw in file.splitlines(keepends=True):
            out += _stuff(raw.rstrip(b"\r\n")) + CRLF
    out += b".\r\n"
    return bytes(out)


def form_request(selector: str, lines: Sequence[str], *, file: bytes | None = None,
                 search: str | None = None, view: str = "") -> bytes:
    """The filled-in form of RFC 1738 3.4.9: ``sel<TAB>+<TAB>1`` CR LF and a data block.

    For a search item the words come before the Gopher+ field (G+ 2.4).
    """
    head = selector + (f"\t{search}" if search else "") + f"\t+{view}\t1"
    if any(c in head for c in "\r\n"):
        raise GopherCommandError(f"a gopher selector may not contain CR or LF: {selector!r}")
    return encode_wire(head) + CRLF + data_block(lines, file)
