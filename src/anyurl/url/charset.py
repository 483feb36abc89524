"""Character classes of RFC 1738 section 5 and the escaping rules of section 2.2.

Two things happen to a character of a URL: it is *checked* (strict mode refuses what
the BNF does not allow, with its position) and, in lenient mode, *normalised* (a
character that must be escaped, such as a space, ``~`` or a byte above 0x7F, is
written as ``%XX`` on output). Decoding turns ``%XX`` triplets into octets; octets
become text with UTF-8 and ``surrogateescape`` so that any octet string survives the
trip back to the wire unchanged (``encode_wire``).
"""

from __future__ import annotations

import re
import string

__all__ = [
    "ALPHA",
    "DIGIT",
    "HEX",
    "RESERVED",
    "UCHAR_PLAIN",
    "UNRESERVED",
    "XCHAR_PLAIN",
    "decode",
    "decode_bytes",
    "display",
    "encode_wire",
    "printable",
    "quote",
]

LOWALPHA = frozenset(string.ascii_lowercase)
ALPHA = frozenset(string.ascii_letters)
DIGIT = frozenset(string.digits)
HEX = frozenset(string.hexdigits)
SAFE = frozenset("$-_.+")
EXTRA = frozenset("!*'(),")
NATIONAL = frozenset("{}|\\^~[]`")
PUNCTUATION = frozenset('<>#%"')
RESERVED = frozenset(";/?:@&=")
UNRESERVED = ALPHA | DIGIT | SAFE | EXTRA
#: Characters that may stand for themselves in a ``uchar`` (escapes are checked apart).
UCHAR_PLAIN = UNRESERVED
#: Characters that may stand for themselves in an ``xchar``.
XCHAR_PLAIN = UNRESERVED | RESERVED
SCHEME_CHARS = LOWALPHA | frozenset(string.ascii_uppercase) | DIGIT | frozenset("+-.")


def _hex2(text: str, i: int) -> bool:
    return i + 1 < len(text) and text[i] in HEX and text[i + 1] in HEX


def quote(text: str, safe: frozenset[str] = UCHAR_PLAIN) -> str:
    """Escape every character of ``text`` that is not in ``safe`` (octets via UTF-8).

    ``text`` is decoded text (the result of :func:`decode`); lone surrogates from
    ``surrogateescape`` go back to the octets they came from.
    """
    out: list[str] = []
    for ch in text:
        if ch in safe:
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogateescape"))
    return "".join(out)


def decode_bytes(text: str) -> bytes:
    """Replace each ``%XX`` of ``text`` with its octet; other characters as UTF-8."""
    out = bytearray()
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "%" and _hex2(text, i + 1):
            out.append(int(text[i + 1 : i + 3], 16))
            i += 3
        else:
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
    return bytes(out)


def decode(text: str) -> str:
    """Decode ``%XX`` escapes; the octets become text (UTF-8, surrogateescape)."""
    if "%" not in text:
        return text
    return decode_bytes(text).decode("utf-8", "surrogateescape")


def encode_wire(text: str) -> bytes:
    """The exact octets a decoded component stands for, to send on the wire."""
    return text.encode("utf-8", "surrogateescape")


def display(text: str | None) -> str | None:
    """Decoded text made printable for JSON and messages.

    Octets that were not UTF-8 (held as lone surrogates) are shown as Latin-1
    characters, which is what an 8-bit FTP or Gopher server most likely meant.
    """
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return encode_wire(text).decode("latin-1")
    return text


_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str | None) -> str | None:
    """:func:`display`, with control characters but TAB and LF shown as ``\\xNN``.

    For text a server chose (menu display strings, attribute blocks) that is rendered
    for a terminal: no escape sequence of the server's reaches the terminal raw.
    """
    shown = display(text)
    if shown is None:
        return None
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", shown)


def escape_unsafe(raw: str, keep: frozenset[str] = XCHAR_PLAIN) -> str:
    """Escape what must be escaped in an already-encoded component (lenient mode).

    Well-formed escapes stay as written; a ``%`` not followed by two hex digits is
    written ``%25``; every character outside ``keep`` is escaped.
    """
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch == "%" and _hex2(raw, i + 1):
            out.append(raw[i : i + 3])
            i += 3
            continue
        if ch in keep:
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogateescape"))
        i += 1
    return "".join(out)
