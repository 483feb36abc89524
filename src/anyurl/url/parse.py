"""The RFC 1738 parser: section 5's BNF, section 2.2's escaping, the Appendix's wrappers.

Strategy. The text is first *unwrapped* (``<URL:...>``, ``<...>``, a bare ``URL:``
prefix, and whitespace inside a wrapper, which the Appendix says to ignore), keeping a
map from each remaining character back to its index in the input so that an error
can name the position the user typed. Then the structure is cut where the BNF cuts it:
``scheme ":"``, ``#fragment``, ``//login/url-path`` for the schemes of section 3.1,
and each scheme's own url-path grammar. What is each scheme's (whether it is of section
3.1's syntax, whether its login holds a password, its url-path's production) is asked
of the scheme: the :class:`~anyurl.url.grammar.Grammar` its view module publishes
(:func:`grammar_of`), so a plug-in's scheme is read as a built-in's; this module keeps
what every scheme shares, and ``file:``'s host and path.

Two modes. *Strict* checks every character against the production it falls in
(``uchar``, ``xchar``, ``hsegment`` ...) and refuses a user or password where the
scheme has none. *Lenient* (the default) accepts what real-world URLs carry, such as
``~`` or a space in a path, and escapes it, so ``str(url)`` is always a URL the strict
parser accepts (lenient parsing never changes what a URL means, only how it is
written; the one exception is a host name holding ``_``, which lenient mode accepts as
real hosts carry it and no escape can make valid). Structural errors are refused in
both modes: a missing scheme, a bad port, a host against section 5's ``hostname``
rule (a label starting or ending with ``-``, a top label starting with a digit), an
unknown ftp typecode, a scheme path its production
does not allow (a news or nntp group outside ``group``, an nntp URL without a group,
anything after a telnet URL's final ``/``, a wais path other than ``/database``,
``/database?search`` or ``/database/wtype/wpath``, a prospero field without ``=``, a
file URL with a port or without ``/`` after the host), and an encoded CR, LF or NUL in
any part a server receives decoded (section 6; every part but an http path and search
and the fragment, see :meth:`_Parser.check_wire`). Raw CR and LF are
removed wherever they are (a URL folded in text, as the Appendix says), never escaped.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Sequence

from anyurl.errors import URLSyntaxError
from anyurl.numbers import ascii_int, is_ascii_digits
from anyurl.registry import default_port, names, spec_for
from anyurl.url.charset import (
    DIGIT,
    HEX,
    SCHEME_CHARS,
    UCHAR_PLAIN,
    XCHAR_PLAIN,
    decode,
    escape_unsafe,
)
from anyurl.url.grammar import Grammar
from anyurl.url.model import URL

__all__ = ["FSEGMENT", "HSEGMENT", "SEARCH", "WIRE_BREAK", "grammar_of", "host_error",
           "ip_based", "parse", "segments", "unwrap"]

_WHITESPACE = frozenset(" \t\r\n\f\v")
_ANY_WHITESPACE = re.compile("[ \t\r\n\f\v]")
_LOGIN_CHARS = UCHAR_PLAIN | frozenset(";?&=")
#: Section 5's ``fsegment`` (an ftp or file path's) and ``hsegment`` (an http path's).
FSEGMENT = UCHAR_PLAIN | frozenset("?:@&=")
HSEGMENT = UCHAR_PLAIN | frozenset(";:@&=")
#: Section 5's one ``search`` rule, the http, gopher and wais search alike: no ``/``, no ``?``.
SEARCH = UCHAR_PLAIN | frozenset(";:@&=")
#: An encoded CR, LF or NUL, or a raw NUL (lenient mode would escape it to %00).
WIRE_BREAK = re.compile("%0[0dDaA]|\x00")
#: The grammar of a scheme that has none of its own: section 5's ``*xchar``.
_GENERIC = Grammar()
#: Each scheme name's grammar, once found: the name it is read as and its grammar.
_GRAMMARS: dict[str, tuple[str, Grammar | None]] = {}


def grammar_of(scheme: str) -> tuple[str, Grammar | None]:
    """The name ``scheme`` (lower case) is read as and its :class:`Grammar`, which its
    descriptor's view module publishes (``GRAMMARS``); a name over TLS that has none of
    its own is read as its plain name (``nntps`` as ``nntp``). None: section 5's
    generic ``*xchar``."""
    found = _GRAMMARS.get(scheme)
    if found is not None:
        return found
    spec = spec_for(scheme)
    if spec is None or not spec.view_module:
        return scheme, None  # not kept: a scheme may be added later
    grammars = getattr(importlib.import_module(spec.view_module), "GRAMMARS", {})
    name = scheme if scheme in grammars else spec.plain_names.get(scheme, scheme)
    found = _GRAMMARS[scheme] = (name, grammars.get(name))
    return found


def _missing_scheme() -> str:
    """The problem of a URL without a scheme, shown with the first known scheme of
    section 3.1's syntax that has a port (a network one) as the example."""
    example = next((name for name in names()
                    if default_port(name) is not None and ip_based(name)), "scheme")
    return f"missing scheme (expected 'scheme:' as in '{example}://host/')"


def ip_based(scheme: str) -> bool:
    """Whether ``scheme``'s schemepart is section 3.1's ``//<login>/<url-path>``."""
    grammar = grammar_of(scheme.lower())[1]
    return grammar is not None and grammar.ip


class _Text:
    """The unwrapped text and the map back to input positions."""

    def __init__(self, original: str):
        self.original = original
        if not original.startswith("<") and not _ANY_WHITESPACE.search(original):
            # The common case, a URL as written: no wrapper, nothing to drop, so the
            # map back to the input is an offset (built per character, it was a
            # tenth of a short fetch's parse).
            skip = 4 if original[:4].upper() == "URL:" else 0
            self.text = original[skip:]
            self.index: Sequence[int] = range(skip, len(original))
            self.wrapped = False
            return
        chars: list[str] = []
        index: list[int] = []
        start, end = 0, len(original)
        while start < end and original[start] in _WHITESPACE:
            start += 1
        while end > start and original[end - 1] in _WHITESPACE:
            end -= 1
        wrapped = end - start >= 2 and original[start] == "<" and original[end - 1] == ">"
        if wrapped:
            start, end = start + 1, end - 1
        for i in range(start, end):
            ch = original[i]
            if ch in "\r\n" or (wrapped and ch in _WHITESPACE):
                # the Appendix: line breaks (a URL folded in text) and, inside a
                # wrapper, all whitespace are ignored, not escaped or refused
                continue
            chars.append(ch)
            index.append(i)
        text = "".join(chars)
        if text[:4].upper() == "URL:":
            text, index = text[4:], index[4:]
        self.text = text
        self.index = index
        self.wrapped = wrapped

    def position(self, i: int) -> int:
        """The input position of character ``i`` of the unwrapped text."""
        if not self.index:
            return 0
        if i >= len(self.index):
            return self.index[-1] + 1
        return self.index[i]



def unwrap(text: str) -> str:
    """The URL inside ``text``'s wrappers, with the wrapper's whitespace removed."""
    return _Text(text).text


class _Parser:
    def __init__(self, text: str, strict: bool):
        self.src = _Text(text)
        self.s = self.src.text
        self.strict = strict
        #: The scheme as written (lower case); the grammar may read it as another.
        self._named = ""
        #: The grammar of the scheme (:func:`grammar_of`).
        self.grammar = _GENERIC

    def fail(self, problem: str, i: int) -> URLSyntaxError:
        return URLSyntaxError(problem, self.src.position(i), text=self.src.original)

    # -- character checks -------------------------------------------------------

    def check_chars(self, start: int, end: int, allowed: frozenset[str], what: str) -> None:
        """Strict: every character of s[start:end] is in ``allowed`` or a %XX escape.

        Lenient: only the structure is checked here; unsafe characters are escaped
        later by :func:`escape_unsafe`.
        """
        s = self.s
        i = start
        while i < end:
            ch = s[i]
            if ch == "%":
                if i + 2 < end and s[i + 1] in HEX and s[i + 2] in HEX:
                    i += 3
                    continue
                if self.strict:
                    raise self.fail(f"'%' not followed by two hex digits in {what}", i)
            elif ch not in allowed and self.strict:
                raise self.fail(f"{_describe(ch)} must be %-escaped in {what}", i)
            i += 1

    def norm(self, raw: str, keep: frozenset[str] = XCHAR_PLAIN) -> str:
        return raw if self.strict else escape_unsafe(raw, keep)

    # -- the whole URL ----------------------------------------------------------

    def parse(self) -> URL:
        url = self._parse()
        if self._named != url.scheme:  # nntps: read as nntp is, named as written
            url = url.replace(scheme=self._named)
        return url

    def _parse(self) -> URL:
        s = self.s
        if not s:
            raise self.fail("empty URL", 0)
        colon = s.find(":")
        if colon <= 0:
            raise self.fail(_missing_scheme(), 0)
        for i in range(colon):
            if s[i] not in SCHEME_CHARS:
                if i == 0 or s[i] in "/?#":
                    raise self.fail(_missing_scheme(), 0)
                raise self.fail(f"{_describe(s[i])} is not allowed in a scheme name", i)
        scheme = s[:colon].lower()
        self._named = scheme
        scheme, grammar = grammar_of(scheme)
        grammar = self.grammar = grammar or _GENERIC
        if scheme == "url":
            # The Appendix's prefix: "URL:x:" is x:, so no URL can round-trip with it.
            raise self.fail("'URL:' is the Appendix's prefix, not a scheme: the URL "
                            "after it is missing", 0)

        hash_at = s.find("#", colon + 1)
        end = len(s) if hash_at < 0 else hash_at
        if spec_for(scheme) is not None:
            # every scheme anyurl speaks, a plug-in's too: its handler decodes its parts
            self.check_wire(scheme, colon + 1, end)
        fragment = None
        if hash_at >= 0:
            self.check_chars(hash_at + 1, len(s), XCHAR_PLAIN, "the fragment")
            fragment = self.norm(s[hash_at + 1 :])

        start = colon + 1
        has_slashes = s.startswith("//", start)
        if has_slashes and not grammar.ip and grammar.slashes != "never":
            # schemepart = *xchar | ip-schemepart: "//" may start a login and host
            # (x-foo://host/, and news://host/group as later RFCs write it) or just be
            # characters (a news message-id may begin with "//"). Try the first reading,
            # fall back to the second; a grammar may read it so in lenient mode only.
            if not (self.strict and grammar.slashes == "lenient"):
                try:
                    return self.parse_ip(scheme, start + 2, end, fragment)
                except URLSyntaxError:
                    pass
            return self.parse_opaque(scheme, start, end, fragment)
        if grammar.ip:
            if not has_slashes:
                if scheme == "file" and not self.strict and s.startswith("/", start):
                    # file:/etc/motd, as many programs write it: an empty host.
                    return self.finish_file(URL("file", host="", path=None), start + 1, end,
                                            fragment)
                raise self.fail(f"expected '//' after '{scheme}:'", start)
            return self.parse_ip(scheme, start + 2, end, fragment)
        return self.parse_opaque(scheme, start, end, fragment)

    def check_wire(self, scheme: str, start: int, end: int) -> None:
        """Section 6: no encoded CR, LF or NUL in a part that reaches the server decoded.

        Every part of every scheme anyurl speaks is decoded before it is sent (a login,
        a selector, a group, an address, a database, a file name) but two: an http
        path and search travel still %-encoded (section 3.3), and a fragment is never
        sent; nor a wais wpath, a binary document-id that travels length-prefixed. A
        Gopher+ string may hold CR LF only as section 3.4.9's form. Checked
        before the structure, so whatever else is wrong, this is the error named.
        """
        s = self.s
        grammar = self.grammar
        stop = end if grammar.wire_end is None else grammar.wire_end(self, start, end)
        m = WIRE_BREAK.search(s, start, stop)
        if m is None:
            return
        login_end = start
        if s.startswith("//", start):
            path_at = s.find("/", start + 2, end)
            login_end = end if path_at < 0 else path_at
        at = s.rfind("@", start, login_end)
        login = grammar.ip or s.startswith("//", start)
        if login and m.start() < at:
            part = "the user name or password"
        elif login and m.start() < login_end:
            part = "the host or port"
        else:
            part = grammar.part or f"the {scheme} URL"
        code = "%00" if m.group() == "\x00" else m.group().upper()
        raise self.fail(f"an encoded CR, LF or NUL ({code}) in {part} would reach the "
                        "server as a line break or NUL and could end its command line "
                        "early (RFC 1738 section 6)", m.start())

    # -- //login/url-path ---------------------------------------------------------

    def parse_ip(self, scheme: str, start: int, end: int, fragment: str | None) -> URL:
        s = self.s
        slash = s.find("/", start, end)
        login_end = end if slash < 0 else slash
        grammar = self.grammar
        if grammar.search_after_host and not self.strict:
            q = s.find("?", start, login_end)
            if q >= 0:  # http://host?query: the path is empty, not absent
                login_end = q
        user = password = None
        at = s.rfind("@", start, login_end)
        host_start = start
        if at >= 0:
            colon = s.find(":", start, at)
            user_end = at if colon < 0 else colon
            self.check_chars(start, user_end, _LOGIN_CHARS, "the user name")
            user = self.login_part(start, user_end, "user name")
            if colon >= 0:
                self.check_chars(colon + 1, at, _LOGIN_CHARS, "the password")
                password = self.login_part(colon + 1, at, "password")
            if self.strict and grammar.ip and not grammar.login:
                raise self.fail(f"{scheme} URLs have no user name or password", start)
            host_start = at + 1
        host, port = self.hostport(scheme, host_start, login_end)

        if scheme == "file":
            if port is not None or s.find(":", host_start, login_end) >= 0:
                raise self.fail("a file URL has no port (fileurl = file://host/fpath)",
                                s.find(":", host_start, login_end))
            if login_end == end:
                raise self.fail("a file URL needs '/' after the host", end)
        url = URL(scheme, user=user, password=password, host=host, port=port,
                  fragment=fragment)
        if login_end == end:
            if grammar.needs_path is not None:
                raise self.fail(grammar.needs_path, end)
            return url
        if s[login_end] == "?":  # lenient http://host?query: an empty path, then the search
            self.check_chars(login_end, end, XCHAR_PLAIN, "the path")
            return url.replace(path=self.norm(s[login_end:end]))
        return self.url_path(url, login_end + 1, end)

    def login_part(self, start: int, end: int, what: str) -> str:
        raw = self.s[start:end]
        if "/" in raw and self.strict:
            raise self.fail(f"'/' must be %-escaped in the {what}", start + raw.index("/"))
        return decode(self.norm(raw, _LOGIN_CHARS | frozenset("@:/")))

    def hostport(self, scheme: str, start: int, end: int) -> tuple[str, int | None]:
        s = self.s
        port: int | None = None
        if s.startswith("[", start) and not self.strict:
            close = s.find("]", start, end)
            if close < 0:
                raise self.fail("'[' of an IPv6 address is never closed", start)
            host = s[start : close + 1]
            if not re.fullmatch(r"\[[0-9A-Fa-f:.]+\]", host):
                raise self.fail("malformed IPv6 address", start)
            rest = close + 1
        else:
            colon = s.find(":", start, end)
            rest = end if colon < 0 else colon
            host = s[start:rest]
            self.check_host(scheme, host, start)
            if not self.strict and host.endswith(".") and host != ".":
                host = host[:-1]  # the root's dot of "example.org.": the same host
        if rest < end:
            if s[rest] != ":":
                raise self.fail(f"unexpected {_describe(s[rest])} after the host", rest)
            digits = s[rest + 1 : end]
            if digits == "":
                if self.strict:
                    raise self.fail("empty port after ':'", rest + 1)
            elif not is_ascii_digits(digits):
                bad = next(i for i, c in enumerate(digits) if c not in DIGIT)
                raise self.fail("port must be decimal digits", rest + 1 + bad)
            else:
                port = ascii_int(digits.lstrip("0") or "0", max_digits=6)
                if port is None or not 0 < port < 65536:
                    raise self.fail(f"port {digits[:8]} is out of range 1-65535", rest + 1)
        return host, port

    def check_host(self, scheme: str, host: str, start: int) -> None:
        if host == "":
            if scheme == "file":
                return
            raise self.fail("missing host name", start)
        if self.strict:
            err = _strict_host_error(host)
        else:
            err = _lenient_host_error(host)
        if err is not None:
            problem, offset = err
            raise self.fail(problem, start + offset)

    # -- url-paths, per scheme ------------------------------------------------------

    def url_path(self, url: URL, start: int, end: int) -> URL:
        s = self.s
        raw = s[start:end]
        if url.scheme == "file":
            for seg_start, seg_end in segments(start, end, s, "/"):
                self.check_chars(seg_start, seg_end, FSEGMENT, "an file path segment")
            path = self.norm(raw, FSEGMENT | frozenset("/"))
            return self.finish_file(url, start, end, url.fragment, path=path)
        if self.grammar.path is not None:
            return self.grammar.path(self, url, start, end)
        # other schemes: the url-path is *xchar.
        self.check_chars(start, end, XCHAR_PLAIN, "the url-path")
        return url.replace(path=self.norm(raw))

    def finish_file(self, url: URL, start: int, end: int, fragment: str | None,
                    path: str | None = None) -> URL:
        if path is None:
            raw = self.s[start:end]
            for seg_start, seg_end in segments(start, end, self.s, "/"):
                self.check_chars(seg_start, seg_end, FSEGMENT, "a file path segment")
            path = self.norm(raw, FSEGMENT | frozenset("/"))
        return url.replace(path=path, fragment=fragment)

    # -- schemes without //: their grammar's, or generic ------------------------------

    def parse_opaque(self, scheme: str, start: int, end: int, fragment: str | None) -> URL:
        if self.grammar.opaque is not None:
            return self.grammar.opaque(self, scheme, start, end, fragment)
        self.check_chars(start, end, XCHAR_PLAIN, "the scheme-specific part")
        return URL(scheme, opaque=self.norm(self.s[start:end]), fragment=fragment)


def segments(start: int, end: int, s: str, sep: str) -> list[tuple[int, int]]:
    """The (start, end) of each part of ``s[start:end]`` between ``sep``s."""
    out = []
    i = start
    while True:
        j = s.find(sep, i, end)
        if j < 0:
            out.append((i, end))
            return out
        out.append((i, j))
        i = j + 1


def _describe(ch: str) -> str:
    if ch == " ":
        return "a space"
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return f"control character 0x{ord(ch):02X}"
    if ord(ch) > 0x7E:
        return f"non-ASCII character {ch!r}"
    return f"{ch!r}"


def host_error(host: str, strict: bool) -> tuple[str, int] | None:
    """What is wrong with ``host`` (section 5's ``hostname | hostnumber`` when
    ``strict``, real-world hosts else) and at which offset, or None."""
    return _strict_host_error(host) if strict else _lenient_host_error(host)


@functools.lru_cache(maxsize=1024)
def _strict_host_error(host: str) -> tuple[str, int] | None:
    """Section 5's ``hostname | hostnumber``; the problem and its offset, or None."""
    labels = host.split(".")
    if all(is_ascii_digits(label) for label in labels):
        if len(labels) != 4:
            return ("a host number is four decimal groups separated by '.'", 0)
        offset = 0
        for label in labels:
            octet = ascii_int(label.lstrip("0") or "0", max_digits=3)
            if octet is None or octet > 255:
                return (f"{label} is not an octet of a host number", offset)
            offset += len(label) + 1
        return None
    offset = 0
    for n, label in enumerate(labels):
        if label == "":
            return ("empty label in host name", offset)
        for j, ch in enumerate(label):
            if not (ch.isascii() and (ch.isalnum() or ch == "-")):
                return (f"{_describe(ch)} is not allowed in a host name", offset + j)
        if label[0] == "-" or label[-1] == "-":
            return ("a host name label must start and end with a letter or digit",
                    offset if label[0] == "-" else offset + len(label) - 1)
        if n == len(labels) - 1 and not label[0].isalpha():
            return ("the last label of a host name must start with a letter", offset)
        offset += len(label) + 1
    return None


@functools.lru_cache(maxsize=1024)  # a run of many URLs names few hosts
def _lenient_host_error(host: str) -> tuple[str, int] | None:
    """Real-world hosts: letters, digits, '-', '_' and '.', no empty inner label."""
    for j, ch in enumerate(host):
        if not (ch.isascii() and (ch.isalnum() or ch in "-_.")):
            return (f"{_describe(ch)} is not allowed in a host name", j)
    # one trailing dot is the root's ("example.org."); a second is an empty label
    labels = (host[:-1] if host.endswith(".") else host).split(".")
    offset = 0
    numeric = all(is_ascii_digits(label) for label in labels)
    for n, label in enumerate(labels):
        if label == "":
            return ("empty label in host name", offset)
        if label[0] == "-" or label[-1] == "-":
            return ("a host name label must start and end with a letter or digit",
                    offset if label[0] == "-" else offset + len(label) - 1)
        if n == len(labels) - 1 and not numeric and not label[0].isalpha():
            return ("the last label of a host name must start with a letter", offset)
        offset += len(label) + 1
    if numeric:
        offset = 0
        if len(labels) != 4:
            return ("a host number is four decimal groups separated by '.'", 0)
        for label in labels:
            octet = ascii_int(label.lstrip("0") or "0", max_digits=3)
            if octet is None or octet > 255:
                return (f"{label} is not an octet of a host number", offset)
            offset += len(label) + 1
    return None


def parse(text: str, *, strict: bool = False) -> URL:
    """Parse ``text`` as an RFC 1738 URL.

    ``text`` may carry the Appendix's wrappers (``<URL:...>``, ``<...>``) and, inside
    them, whitespace and line breaks, which are removed. In the default lenient mode,
    characters that section 2.2 says must be escaped are accepted and escaped in the
    result; ``strict=True`` refuses them. Raises :class:`URLSyntaxError` naming the
    problem and its 0-based position in ``text``.
    """
    fast = _plain(text, strict)
    if fast is not None:
        return fast
    lone = _LONE_SURROGATE.search(text)
    if lone is not None:  # no encoding can carry it; \udc80-\udcff are raw bytes
        raise URLSyntaxError(
            f"U+{ord(lone.group()):04X} is a lone surrogate, not a character",
            lone.start(), text=text)
    return _Parser(text, strict).parse()


#: The common URL of a long list (``anyurl get -i``, a mirror's queue): a URL of a scheme
#: whose grammar reads it as written (:attr:`Grammar.plain`: http, https, ftp) with a
#: host name or number, maybe a port, and a path of letters, digits, ``-``, ``.``, ``_``
#: and ``/`` only: nothing to escape, decode, check against section 6 or split (no
#: login, ``%``, ``;type=``, ``?`` or ``#``).
_PLAIN = re.compile(
    r"([a-z][a-z0-9+.-]*)://([A-Za-z0-9.-]+)(?::([1-9][0-9]{0,4}))?/([A-Za-z0-9._/-]*)\Z")


def _plain(text: str, strict: bool) -> URL | None:
    """The URL :class:`_Parser` makes of ``text`` when it matches :data:`_PLAIN`, else
    None (then the parser reads it).

    The parser is the truth; this is its answer for the one shape that needs none of
    its work, at a tenth of its cost (about 4 µs against 36 µs a URL on the
    development machine; ``tests/unit/test_url_fast_path.py`` compares the two over
    many URLs, valid and not). A host the parser would refuse, or change (the root's
    trailing dot), and a port out of range go to the parser, which names the problem.
    """
    m = _PLAIN.match(text)
    if m is None:
        return None
    scheme, host, digits, path = m.groups()
    name, grammar = grammar_of(scheme)
    if grammar is None or not grammar.plain or name != scheme:
        return None
    if host.endswith(".") or (
            _strict_host_error(host) if strict else _lenient_host_error(host)) is not None:
        return None
    port = None
    if digits is not None:
        port = int(digits)
        if port > 65535:
            return None
    return URL(scheme, host=host, port=port, path=path)


#: Surrogates other than the ``surrogateescape`` range that stands for undecodable bytes.
_LONE_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
