"""Prospero protocol version 5 messages: building requests, parsing replies, access methods.

Strategy
--------
A Prospero message is text: lines separated by LF, tokens separated by unquoted spaces
or TABs, single quotes quoting a token or part of one (``''`` inside quotes is a quote;
``''`` alone is the empty token). Requests and replies travel as one ARDP message each
(:mod:`anyurl.protocols.ardp`); this module only deals with the text.

What a retrieval client sends (``lib/pfs/p__req.c``, ``pget_at.c``, ``p_get_dir.c``)::

    VERSION 5 anyurl
    AUTHENTICATE '' UNAUTHENTICATED <user>
    GET-OBJECT-INFO #ALL ASCII '<hsoname>' <version>

and, for a directory, ``DIRECTORY ASCII '<hsoname>' <version>`` + ``LIST ATTRIBUTES
COMPONENTS``. hsonames are always quoted (the spec's section 7 form); other tokens only
when they hold a character the 5.3 library quotes (space, TAB, FF, VT, CR, LF, ``/``,
``'``, ``+``, ``,``).

Replies are parsed line by line into small frozen dataclasses (:class:`Link`,
:class:`Attribute`, :class:`Forwarded`, :class:`Failure` ...). Free-text lines (``ERROR``,
``FAILURE``, ``WARNING``) keep their raw text too, because an apostrophe in a message
("can't") would otherwise open a quote. Unknown lines become :class:`UnknownLine` and are
ignored by callers, as the protocol document asks of clients.

``ACCESS-METHOD`` values are the point of resolving a prospero URL: each names a way to
fetch the object (AFTP, GOPHER, LOCAL ...). :func:`access_method_url` turns one into an
RFC 1738 URL where there is a faithful mapping, and says why not where there is none
(FTP needs credentials, NFS a mount, WAIS a database name that the method does not carry).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from anyurl.numbers import ascii_int
from anyurl.protocols.common import (
    CoreProtocolError,
    LocalProtocolError,
    RemoteProtocolError,
)
from anyurl.url import quote
from anyurl.url.charset import UCHAR_PLAIN

__all__ = [
    "DEFAULT_SOFTWARE_ID",
    "PROTOCOL_VERSION",
    "AccessMethod",
    "AccessURL",
    "Attribute",
    "Authenticated",
    "ErrorLine",
    "Failure",
    "Forwarded",
    "Link",
    "NoneFound",
    "ObjectInfo",
    "ProsperoCommandError",
    "ProsperoCoreError",
    "ProsperoReplyError",
    "Response",
    "Success",
    "UnknownLine",
    "Unresolved",
    "VersionNotSupported",
    "Warning_",
    "access_method_url",
    "build_message",
    "check_token_text",
    "collect",
    "contents_request",
    "contents_text",
    "directory_request",
    "object_info_request",
    "parse_reply",
    "qsprintf_token",
    "quote_token",
    "reply_lines",
    "request_preamble",
    "split_host_port",
    "tokenize",
]

PROTOCOL_VERSION = 5
DEFAULT_SOFTWARE_ID = "anyurl"

#: Characters after which the 5.3 library's ``%'s`` quotes a token (``vqsprintf.c``).
_QUOTE_TRIGGERS = frozenset(" \t\f\v\r\n/'+,")
#: Tokens' separators outside quotes.
_SEPARATORS = " \t"


class ProsperoCoreError(CoreProtocolError, ValueError):
    """Base of this core's errors: catch a side (:class:`ProsperoReplyError`,
    :class:`ProsperoCommandError`)."""


class ProsperoReplyError(ProsperoCoreError, RemoteProtocolError):
    """A line of the server's that cannot be read (an unterminated quote)."""


class ProsperoCommandError(ProsperoCoreError, LocalProtocolError):
    """A token we cannot write (a NUL or a line break in it)."""


# -- tokens -------------------------------------------------------------------------------


def check_token_text(text: str, what: str) -> None:
    """Refuse what no quoting can carry: NUL, and CR/LF (line delimiters of the protocol)."""
    for ch in ("\x00", "\r", "\n"):
        if ch in text:
            raise ProsperoCommandError(f"{what} contains {ch!r}, which cannot be sent")


def quote_token(token: str, *, always: bool = False) -> str:
    """A token as the 5.3 library writes it: quoted when it must be (or ``always``).

    The empty token is ``''``; a quote inside quotes is doubled.
    """
    check_token_text(token, "a token")
    if not always and token and not any(ch in _QUOTE_TRIGGERS for ch in token):
        return token
    return "'" + token.replace("'", "''") + "'"


def qsprintf_token(token: str) -> str:
    """A value as Prospero 5.3's ``qsprintf`` ``%'s`` writes it into a reply.

    The characters before the first one that needs quoting go as they are; from there
    the rest is quoted, a ``'`` inside doubled, line ends included (a file's contents:
    ``nested' file\n'``). The empty token is ``''``. :func:`reply_lines` and
    :func:`tokenize` read it back.
    """
    if "\x00" in token:
        raise ProsperoCommandError("a token cannot hold a NUL")
    for i, ch in enumerate(token):
        if ch in _QUOTE_TRIGGERS:
            return token[:i] + "'" + token[i:].replace("'", "''") + "'"
    return token or "''"


def tokenize(line: str) -> list[str]:
    """Split a line into tokens, honouring quotes anywhere in a token.

    ``'a b'c``, ``a' 'bc`` and ``'a bc'`` are the same token; a quoted part may hold line
    ends (a logical line of :func:`reply_lines`). An unterminated quote
    raises :class:`ProsperoCoreError`.
    """
    tokens: list[str] = []
    current: list[str] = []
    in_token = False
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch == "'":
            in_token = True
            i += 1
            while True:
                if i >= n:
                    raise ProsperoReplyError(f"unterminated quote in {line!r}")
                if line[i] == "'":
                    if i + 1 < n and line[i + 1] == "'":
                        current.append("'")
                        i += 2
                        continue
                    i += 1
                    break
                current.append(line[i])
                i += 1
        elif ch in _SEPARATORS:
            if in_token:
                tokens.append("".join(current))
                current, in_token = [], False
            i += 1
        else:
            current.append(ch)
            in_token = True
            i += 1
    if in_token:
        tokens.append("".join(current))
    return tokens


# -- requests -----------------------------------------------------------------------------


def request_preamble(user: str, software_id: str = DEFAULT_SOFTWARE_ID) -> list[str]:
    """``VERSION 5 <sw-id>`` and ``AUTHENTICATE '' UNAUTHENTICATED <user>``."""
    return [
        f"VERSION {PROTOCOL_VERSION} {quote_token(software_id)}",
        f"AUTHENTICATE '' UNAUTHENTICATED {quote_token(user)}",
    ]


def object_info_request(
    hsoname: str, *, version: str = "0", attributes: str = "#ALL"
) -> str:
    """``GET-OBJECT-INFO <attributes> ASCII '<hsoname>' <version>``."""
    check_token_text(hsoname, "the hsoname")
    return (
        f"GET-OBJECT-INFO {attributes} ASCII {quote_token(hsoname, always=True)} "
        f"{quote_token(version)}"
    )


def contents_request(hsoname: str, *, version: str = "0") -> str:
    """``GET-OBJECT-INFO CONTENTS ASCII '<hsoname>' <version>``: a PROSPERO-CONTENTS read."""
    return object_info_request(hsoname, version=version, attributes="CONTENTS")


def contents_text(info: ObjectInfo) -> str | None:
    """The text of ``ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA '<text>'``, or None."""
    for attribute in info.attributes:
        if attribute.name == "CONTENTS" and attribute.depth == 0:
            values = list(attribute.values)
            if values[:1] == ["DATA"]:
                values = values[1:]
            return "\n".join(values) if values else ""
    return None


def directory_request(
    hsoname: str, *, version: str = "0", options: str = "ATTRIBUTES",
    components: tuple[str, ...] = (),
) -> list[str]:
    """``DIRECTORY ASCII '<hsoname>' <version>`` and ``LIST <options> COMPONENTS [...]``."""
    check_token_text(hsoname, "the hsoname")
    listing = "LIST " + (options or "''") + " COMPONENTS"
    if components:
        listing += " " + " ".join(quote_token(c) for c in components)
    return [
        f"DIRECTORY ASCII {quote_token(hsoname, always=True)} {quote_token(version)}",
        listing,
    ]


def build_message(lines: list[str]) -> bytes:
    """Lines joined with LF (and a final LF), as UTF-8 with the URL's raw octets kept."""
    for line in lines:
        if "\n" in line or "\r" in line or "\x00" in line:
            raise ProsperoCommandError(f"line {line!r} contains a line break or NUL")
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


# -- replies ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """``LINK <L|U> <target> <name> <host-type> <host> <hsoname-type> <hsoname> <version>``."""

    link_type: str
    target: str
    name: str
    host_type: str
    host: str
    hsoname_type: str
    hsoname: str
    version: str
    dest_exp: str | None = None


@dataclass(frozen=True)
class Attribute:
    """``ATTRIBUTE[>...] <applies-to> <category> <name> [<type>] <values>...``.

    ``depth`` counts the ``>`` marks (sub-attributes of a link-valued attribute).
    ``value_type`` is None when the server left it out (the short form of well-known
    FIELD attributes such as ACCESS-METHOD).
    """

    applies_to: str
    category: str
    name: str
    value_type: str | None
    values: tuple[str, ...]
    depth: int = 0


@dataclass(frozen=True)
class Success:
    """``SUCCESS``: the request was carried out (with the server's text)."""
    info: str


@dataclass(frozen=True)
class NoneFound:
    """``NONE-FOUND``: the directory or object has nothing that matches."""


@dataclass(frozen=True)
class Unresolved:
    """``UNRESOLVED``: the name components the server could not resolve."""
    components: tuple[str, ...]


@dataclass(frozen=True)
class Forwarded:
    """``FORWARDED <host-type> <host> <hsoname-type> <hsoname> <version> ...``."""

    host_type: str
    host: str
    hsoname_type: str
    hsoname: str
    version: str
    raw: str


@dataclass(frozen=True)
class ErrorLine:
    """``ERROR <text>``: the server could not parse our request."""

    text: str


@dataclass(frozen=True)
class Failure:
    """``FAILURE <id> [text]`` (``NOT-FOUND OBJECT``, ``NOT-AUTHORIZED`` ...)."""

    code: str
    text: str
    raw: str


@dataclass(frozen=True)
class Warning_:
    """``WARNING <id> [text]``: to show the user; the reply goes on."""

    code: str
    text: str


@dataclass(frozen=True)
class VersionNotSupported:
    """``VERSION-NOT-SUPPORTED``: the server speaks another protocol version."""
    text: str


@dataclass(frozen=True)
class Authenticated:
    """``AUTHENTICATED``: the server accepted the client's identity."""
    text: str


@dataclass(frozen=True)
class UnknownLine:
    """A reply line this client does not know (kept, not fatal)."""
    line: str


Response = (
    Link | Attribute | Success | NoneFound | Unresolved | Forwarded | ErrorLine | Failure
    | Warning_ | VersionNotSupported | Authenticated | UnknownLine
)

_VALUE_TYPES = frozenset({"SEQUENCE", "LINK", "FILTER", "ASCII"})
_FAILURE_TWO_WORD = frozenset({"NOT-FOUND"})


def _rest_after(line: str, words: int) -> str:
    """The raw text after the first ``words`` whitespace-separated words of ``line``."""
    parts = line.split(None, words)
    return parts[words] if len(parts) > words else ""


def parse_line(line: str) -> Response:
    """One reply line as a :class:`Response` (unknown or malformed: :class:`UnknownLine`)."""
    stripped = line.strip()
    if not stripped:
        return UnknownLine(line)
    keyword = stripped.split(None, 1)[0]
    if keyword in ("ERROR", "FAILURE", "WARNING", "SUCCESS", "VERSION-NOT-SUPPORTED",
                   "AUTHENTICATED"):
        rest = _rest_after(stripped, 1)
        if keyword == "ERROR":
            return ErrorLine(rest)
        if keyword == "SUCCESS":
            return Success(rest)
        if keyword == "VERSION-NOT-SUPPORTED":
            return VersionNotSupported(rest)
        if keyword == "AUTHENTICATED":
            return Authenticated(rest)
        words = rest.split()
        code = words[0] if words else ""
        used = 1
        if code in _FAILURE_TWO_WORD and len(words) > 1:
            code = f"{code} {words[1]}"
            used = 2
        text = _rest_after(rest, used) if words else ""
        if keyword == "FAILURE":
            return Failure(code, text, rest)
        return Warning_(code, text)
    try:
        tokens = tokenize(stripped)
    except ProsperoCoreError:
        return UnknownLine(line)
    if keyword == "NONE-FOUND":
        return NoneFound()
    if keyword == "UNRESOLVED":
        return Unresolved(tuple(tokens[1:]))
    if keyword == "LINK" and len(tokens) >= 9:
        dest = tokens[10] if len(tokens) >= 11 and tokens[9] == "DEST-EXP" else None
        t = tokens
        return Link(t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], dest_exp=dest)
    if keyword == "FORWARDED" and len(tokens) >= 6:
        t = tokens
        return Forwarded(t[1], t[2], t[3], t[4], t[5], raw=stripped)
    if keyword.startswith("ATTRIBUTE") and set(keyword[len("ATTRIBUTE"):]) <= {">"}:
        depth = len(keyword) - len("ATTRIBUTE")
        if len(tokens) < 4:
            return UnknownLine(line)
        applies_to, category, name = tokens[1], tokens[2], tokens[3]
        values = tokens[4:]
        value_type: str | None = None
        if category in ("APPLICATION", "INTRINSIC") and values:
            value_type, values = values[0], values[1:]
        elif values and values[0] in _VALUE_TYPES:
            # Heuristic (spec 5.2): the optional type after FIELD <name>.
            value_type, values = values[0], values[1:]
        return Attribute(applies_to, category, name, value_type, tuple(values), depth)
    return UnknownLine(line)


#: Reply lines whose rest is free text: an apostrophe there ("can't") opens no quote.
_FREE_TEXT = frozenset({"ERROR", "FAILURE", "WARNING", "SUCCESS", "VERSION-NOT-SUPPORTED",
                        "AUTHENTICATED"})
_LINE_END = re.compile(r"\r\n|\r|\n")
_QUOTE_OR_LINE_END = re.compile(r"['\r\n]")


def reply_lines(text: str) -> list[str]:
    """A reply's lines, a quoted token that spans lines kept whole in its line.

    Prospero 5.3's dirsrv writes a value with ``qsprintf``'s ``%'s``: a file's contents
    (``ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA nested' file\n'``) is one token
    whose quoted part holds the file's line ends, so a line ends only at a line end
    outside quotes (a ``'`` inside quotes is doubled, which leaves the count even).
    Lines end with LF, CR or CR LF; inside quotes every octet is data. A free-text line
    (``ERROR``, ``FAILURE``, ``WARNING`` ...) ends at its line end whatever it holds.
    """
    lines: list[str] = []
    pos, n = 0, len(text)
    while pos < n:
        end = _LINE_END.search(text, pos)
        first = text[pos:end.start() if end else n].split(None, 1)
        if first and first[0] in _FREE_TEXT:
            lines.append(text[pos:end.start()] if end else text[pos:])
            pos = end.end() if end else n
            continue
        quoted = False
        i = pos
        while True:
            m = _QUOTE_OR_LINE_END.search(text, i)
            if m is None:
                lines.append(text[pos:])
                pos = n
                break
            if m.group() == "'":
                quoted = not quoted
                i = m.end()
                continue
            if quoted:
                i = m.end()
                continue
            stop = m.end() + (1 if text.startswith("\r\n", m.start()) else 0)
            lines.append(text[pos:m.start()])
            pos = stop
            break
    return lines


def parse_reply(payload: bytes) -> list[Response]:
    """A whole reply message (:func:`reply_lines`: quoted tokens may span lines)."""
    text = payload.decode("utf-8", "surrogateescape")
    return [parse_line(line) for line in reply_lines(text) if line.strip()]


@dataclass(frozen=True)
class ObjectInfo:
    """A reply sorted by kind: what a resolver needs to decide what to do next."""

    attributes: tuple[Attribute, ...]
    links: tuple[Link, ...]
    forwarded: Forwarded | None
    failure: Failure | None
    error: ErrorLine | None
    version_not_supported: VersionNotSupported | None
    warnings: tuple[Warning_, ...]
    none_found: bool
    unresolved: tuple[str, ...] | None

    def values(self, name: str) -> list[tuple[str, ...]]:
        """Values of the top-level attribute ``name`` (one tuple per line)."""
        return [a.values for a in self.attributes if a.name == name and a.depth == 0]

    @property
    def base_type(self) -> str | None:
        """The object's ``BASE-TYPE`` attribute (``DIRECTORY``, ``FILE`` ...), or None."""
        found = self.values("BASE-TYPE")
        return " ".join(found[0]) if found else None

    @property
    def is_directory(self) -> bool:
        """Whether the object is a directory (its base type says so)."""
        base = self.base_type
        return base is not None and "DIRECTORY" in base


def collect(responses: list[Response]) -> ObjectInfo:
    """The responses to one request gathered into an :class:`ObjectInfo`."""
    attributes = tuple(r for r in responses if isinstance(r, Attribute))
    links = tuple(r for r in responses if isinstance(r, Link))
    forwarded = next((r for r in responses if isinstance(r, Forwarded)), None)
    failure = next((r for r in responses if isinstance(r, Failure)), None)
    error = next((r for r in responses if isinstance(r, ErrorLine)), None)
    vns = next((r for r in responses if isinstance(r, VersionNotSupported)), None)
    warnings = tuple(r for r in responses if isinstance(r, Warning_))
    unresolved = next((r.components for r in responses if isinstance(r, Unresolved)), None)
    return ObjectInfo(
        attributes, links, forwarded, failure, error, vns, warnings,
        any(isinstance(r, NoneFound) for r in responses), unresolved,
    )


# -- access methods -----------------------------------------------------------------------


def split_host_port(host: str) -> tuple[str, int | None]:
    """``MERMAID.MICRO.UMN.EDU(150)`` -> ("MERMAID.MICRO.UMN.EDU", 150)."""
    m = re.fullmatch(r"(.*?)\(([0-9]+)\)", host.strip())
    port = ascii_int(m.group(2), max_digits=5) if m else None
    if m and port is not None:
        return m.group(1), port
    return host.strip(), None


@dataclass(frozen=True)
class AccessMethod:
    """One ACCESS-METHOD value, with ``''`` fields already replaced by the defaults."""

    method: str
    host_type: str
    host: str
    hsoname_type: str
    hsoname: str
    extra: tuple[str, ...]

    @classmethod
    def from_values(
        cls, values: tuple[str, ...], *, default_host: str, default_hsoname: str
    ) -> AccessMethod | None:
        """None when the value has fewer than the 5 elements every method has."""
        if len(values) < 5:
            return None
        method, host_type, host, hsoname_type, hsoname, *extra = values
        return cls(
            method.upper(),
            host_type or "INTERNET-D",
            host or default_host,
            hsoname_type or "ASCII",
            hsoname or default_hsoname,
            tuple(extra),
        )

    def display(self) -> str:
        """The access method as the server wrote it, tokens quoted where needed."""
        return " ".join(
            quote_token(t) for t in (self.method, self.host_type, self.host,
                                     self.hsoname_type, self.hsoname, *self.extra)
        )


@dataclass(frozen=True)
class AccessURL:
    """Where an access method leads: ``url``, or None with ``reason`` saying why not.

    ``local`` marks file: URLs that only make sense if the path is visible on this
    machine (LOCAL, AFS); the handler checks before using them. ``contents`` marks a
    PROSPERO-CONTENTS method: no URL of another scheme, the contents come from the
    Prospero server itself (:func:`contents_request`).
    """

    method: AccessMethod
    url: str | None
    reason: str | None = None
    local: bool = False
    contents: bool = False


_SEGMENT_SAFE = UCHAR_PLAIN
_SELECTOR_SAFE = UCHAR_PLAIN | frozenset("/")
_PATH_SAFE = UCHAR_PLAIN | frozenset("/")


def _hostport(host: str, default_port: int) -> str:
    name, port = split_host_port(host)
    name = name.lower()
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    if port is not None and port != default_port:
        return f"{name}:{port}"
    return name


def access_method_url(method: AccessMethod) -> AccessURL:
    """The RFC 1738 URL for one access method (spec section 6), or why there is none."""
    m = method.method
    if m == "AFTP":
        path = method.hsoname.lstrip("/")
        segments = "/".join(quote(seg, _SEGMENT_SAFE) for seg in path.split("/"))
        mode = method.extra[0].upper() if method.extra else ""
        suffix = {"TEXT": ";type=a", "BINARY": ";type=i"}.get(mode, "")
        return AccessURL(method, f"ftp://{_hostport(method.host, 21)}/{segments}{suffix}")
    if m == "GOPHER":
        if method.extra and method.extra[0]:
            gtype, selector = method.extra[0][0], method.hsoname
        elif method.hsoname:
            gtype, selector = method.hsoname[0], method.hsoname
        else:
            gtype, selector = "1", ""
        return AccessURL(
            method,
            f"gopher://{_hostport(method.host, 70)}/{quote(gtype + selector, _SELECTOR_SAFE)}",
        )
    if m == "TELNET":
        return AccessURL(method, f"telnet://{_hostport(method.host, 23)}/")
    if m == "LOCAL":
        path = method.hsoname if method.hsoname.startswith("/") else "/" + method.hsoname
        return AccessURL(method, "file://" + quote(path, _PATH_SAFE), local=True)
    if m == "AFS":
        path = "/afs/" + method.hsoname.lstrip("/")
        return AccessURL(method, "file://" + quote(path, _PATH_SAFE), local=True)
    if m == "FTP":
        return AccessURL(
            method, None,
            "FTP (non-anonymous) needs a user and password the access method does not carry",
        )
    if m == "WAIS":
        return AccessURL(
            method, None,
            "a WAIS access method names a server and record locator but no database or "
            "document type, so no wais: URL can be built",
        )
    if m == "NFS":
        return AccessURL(method, None, "NFS needs the remote file system mounted here")
    if m == "PROSPERO-CONTENTS":
        # What a Prospero 5.3 dirsrv implements: the contents are an attribute of the
        # object, read with GET-OBJECT-INFO CONTENTS from the method's host.
        return AccessURL(method, None, "the contents are read from the Prospero server "
                         f"{method.host} (GET-OBJECT-INFO CONTENTS)", contents=True)
    return AccessURL(method, None, f"access method {m} is not known to anyurl")
