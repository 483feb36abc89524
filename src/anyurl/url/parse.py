"""The RFC 1738 parser: section 5's BNF, section 2.2's escaping, the Appendix's wrappers.

Strategy. The text is first *unwrapped* (``<URL:...>``, ``<...>``, a bare ``URL:``
prefix, and whitespace inside a wrapper, which the Appendix says to ignore), keeping a
map from each remaining character back to its index in the input so that an error
can name the position the user typed. Then the structure is cut where the BNF cuts it:
``scheme ":"``, ``#fragment``, ``//login/url-path`` for the schemes of section 3.1,
and each scheme's own url-path grammar.

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
import re
from collections.abc import Sequence

from anyurl.errors import URLSyntaxError
from anyurl.numbers import ascii_int, is_ascii_digits
from anyurl.registry import spec_for
from anyurl.url.charset import (
    ALPHA,
    DIGIT,
    HEX,
    SCHEME_CHARS,
    UCHAR_PLAIN,
    XCHAR_PLAIN,
    decode,
    escape_unsafe,
)
from anyurl.url.model import URL

__all__ = ["IP_SCHEMES", "SAME_GRAMMAR", "parse", "unwrap"]

#: Schemes whose schemepart is section 3.1's ``//login/url-path``.
IP_SCHEMES = frozenset(
    {"ftp", "http", "https", "gopher", "nntp", "telnet", "wais", "file", "prospero"}
)
#: Schemes over TLS written as their plain scheme is (Lynx's snews:, nntps://, ftps://), the way
#: https is written as http: the grammar reads them as the plain one.
SAME_GRAMMAR = {"nntps": "nntp", "snews": "news", "ftps": "ftp"}
#: Schemes whose login may carry a user and password (section 5: ``login``).
LOGIN_SCHEMES = frozenset({"ftp", "telnet"})

_WHITESPACE = frozenset(" \t\r\n\f\v")
_ANY_WHITESPACE = re.compile("[ \t\r\n\f\v]")
_LOGIN_CHARS = UCHAR_PLAIN | frozenset(";?&=")
_FSEGMENT = UCHAR_PLAIN | frozenset("?:@&=")
_HSEGMENT = UCHAR_PLAIN | frozenset(";:@&=")
#: Section 5's one ``search`` rule, the http, gopher and wais search alike: no ``/``, no ``?``.
_SEARCH = UCHAR_PLAIN | frozenset(";:@&=")
_NEWS_GROUP = re.compile(r"[A-Za-z][A-Za-z0-9\-.+_]*\Z")
#: An encoded CR, LF or NUL, or a raw NUL (lenient mode would escape it to %00).
_WIRE_BREAK = re.compile("%0[0dDaA]|\x00")
_PATH_START = re.compile("[/?]")
#: A wpath in Lynx's record form (``1=host;2=/db;3=...;``), which holds raw slashes.
_LYNX_RECORDS = re.compile(r"(?:[0-9]{1,9}=[^;]*;)+")  # ASCII record types, int() safe
#: The schemes anyurl speaks, whose parts reach a server (or a file name) decoded.
WIRE_SCHEMES = IP_SCHEMES | {"mailto", "news"}
#: What :meth:`_Parser.check_wire` calls the part after the host, per scheme.
_WIRE_PARTS = {
    "ftp": "the ftp path", "file": "the file path",
    "gopher": "the gopher type, selector or search", "news": "the newsgroup or message-id",
    "nntp": "the nntp group or article", "telnet": "the telnet URL",
    "wais": "the wais database, search or type",
    "prospero": "the prospero name or fields", "mailto": "the recipient address",
}


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



def _split_ftp_path(raw: str) -> tuple[str, str | None]:
    from anyurl.schemes.ftp.view import split_ftp_path  # imported for ftp URLs only

    return split_ftp_path(raw)

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
            raise self.fail("missing scheme (expected 'scheme:' as in 'ftp://host/')", 0)
        for i in range(colon):
            if s[i] not in SCHEME_CHARS:
                if i == 0 or s[i] in "/?#":
                    raise self.fail(
                        "missing scheme (expected 'scheme:' as in 'ftp://host/')", 0
                    )
                raise self.fail(f"{_describe(s[i])} is not allowed in a scheme name", i)
        scheme = s[:colon].lower()
        self._named = scheme
        scheme = SAME_GRAMMAR.get(scheme, scheme)
        if scheme == "url":
            # The Appendix's prefix: "URL:x:" is x:, so no URL can round-trip with it.
            raise self.fail("'URL:' is the Appendix's prefix, not a scheme: the URL "
                            "after it is missing", 0)

        hash_at = s.find("#", colon + 1)
        end = len(s) if hash_at < 0 else hash_at
        if scheme in WIRE_SCHEMES or spec_for(scheme) is not None:
            # a plug-in's scheme too: its handler will decode its parts as ours do
            self.check_wire(scheme, colon + 1, end)
        fragment = None
        if hash_at >= 0:
            self.check_chars(hash_at + 1, len(s), XCHAR_PLAIN, "the fragment")
            fragment = self.norm(s[hash_at + 1 :])

        start = colon + 1
        has_slashes = s.startswith("//", start)
        if has_slashes and scheme not in IP_SCHEMES and scheme != "mailto":
            # schemepart = *xchar | ip-schemepart: "//" may start a login and host
            # (x-foo://host/, and news://host/group as later RFCs write it) or just be
            # characters (a news message-id may begin with "//"). Try the first reading,
            # fall back to the second; strict mode reads news: as RFC 1738 defines it.
            if not (self.strict and scheme == "news"):
                try:
                    return self.parse_ip(scheme, start + 2, end, fragment)
                except URLSyntaxError:
                    pass
            return self.parse_opaque(scheme, start, end, fragment)
        if scheme in IP_SCHEMES:
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
        stop = end
        if scheme in ("http", "https"):
            m = _PATH_START.search(s, start + 2, end) if s.startswith("//", start) else None
            stop = end if m is None else m.start()
        elif scheme == "wais" and s.startswith("//", start):
            # A wpath is a document-id, binary octets any of which may be a CR or NUL
            # (section 3.9), sent length-prefixed in Z39.50's encoding: never a line.
            slash = s.find("/", start + 2, end)
            db_end = -1 if slash < 0 else s.find("/", slash + 1, end)
            type_end = -1 if db_end < 0 else s.find("/", db_end + 1, end)
            if type_end >= 0 and s.find("?", slash, type_end) < 0:
                stop = type_end
        elif scheme == "gopher" and s.startswith("//", start):
            slash = s.find("/", start + 2, end)
            if slash >= 0:
                raw = s[slash + 1 : end]
                first = raw.find("%09", 3 if raw[:1] == "%" else 1)
                second = -1 if first < 0 else raw.find("%09", first + 3)
                if second >= 0:
                    from anyurl.schemes.gopher.view import gopher_plus_problem

                    stop = slash + 1 + second
                    problem = gopher_plus_problem(decode(raw[second + 3 :]))
                    if problem is not None:
                        m = _WIRE_BREAK.search(s, stop + 3, end)
                        raise self.fail(problem, stop + 3 if m is None else m.start())
        m = _WIRE_BREAK.search(s, start, stop)
        if m is None:
            return
        login_end = start
        if s.startswith("//", start):
            path_at = s.find("/", start + 2, end)
            login_end = end if path_at < 0 else path_at
        at = s.rfind("@", start, login_end)
        login = scheme in IP_SCHEMES or s.startswith("//", start)
        if login and m.start() < at:
            part = "the user name or password"
        elif login and m.start() < login_end:
            part = "the host or port"
        else:
            part = _WIRE_PARTS.get(scheme, f"the {scheme} URL")
        code = "%00" if m.group() == "\x00" else m.group().upper()
        raise self.fail(f"an encoded CR, LF or NUL ({code}) in {part} would reach the "
                        "server as a line break or NUL and could end its command line "
                        "early (RFC 1738 section 6)", m.start())

    # -- //login/url-path ---------------------------------------------------------

    def parse_ip(self, scheme: str, start: int, end: int, fragment: str | None) -> URL:
        s = self.s
        slash = s.find("/", start, end)
        login_end = end if slash < 0 else slash
        if scheme in ("http", "https") and not self.strict:
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
            if self.strict and scheme in IP_SCHEMES and scheme not in LOGIN_SCHEMES:
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
            if scheme == "nntp":
                raise self.fail("an nntp URL needs a newsgroup name", end)
            if scheme in ("wais", "prospero"):  # section 5: hostport "/" database|ppath
                after = "database" if scheme == "wais" else "ppath"
                raise self.fail(f"a {scheme} URL needs '/' after the host (section 5: "
                                f"{scheme}://hostport/{after})", end)
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
        scheme = url.scheme
        raw = s[start:end]
        if scheme == "ftp" or scheme == "file":
            fpath, typecode = _split_ftp_path(raw) if scheme == "ftp" else (raw, None)
            if typecode is not None and typecode not in ("a", "i", "d"):
                pos = start + len(fpath) + len(";type=")
                raise self.fail(f"unknown ftp typecode {typecode!r} (expected a, i or d)", pos)
            for seg_start, seg_end in _segments(start, start + len(fpath), s, "/"):
                self.check_chars(seg_start, seg_end, _FSEGMENT, f"an {scheme} path segment")
            tail = raw[len(fpath):]
            path = self.norm(fpath, _FSEGMENT | frozenset("/")) + tail
            if scheme == "file":
                return self.finish_file(url, start, end, url.fragment, path=path)
            return url.replace(path=path)
        if scheme in ("http", "https"):
            q = raw.find("?")
            hpath_end = end if q < 0 else start + q
            for seg_start, seg_end in _segments(start, hpath_end, s, "/"):
                self.check_chars(seg_start, seg_end, _HSEGMENT, "the http path")
            if q >= 0:
                self.check_chars(hpath_end + 1, end, _SEARCH, "the http search part")
            return url.replace(path=self.norm(raw))
        if scheme == "nntp":
            group, sep, article = raw.partition("/")
            if group == "":
                raise self.fail("an nntp URL needs a newsgroup name", start)
            if not _NEWS_GROUP.match(group):
                raise self.fail(f"{group!r} is not a newsgroup name", start + _group_error(group))
            if sep and not is_ascii_digits(article):
                raise self.fail("the article must be a decimal number", start + len(group) + 1)
            self.check_chars(start, end, UCHAR_PLAIN | frozenset("/"), "the nntp path")
            return url.replace(path=self.norm(raw))
        if scheme == "telnet":
            if raw:
                raise self.fail("a telnet URL has nothing after the final '/'", start)
            return url.replace(path=self.norm(raw))
        if scheme == "wais":
            return self.wais(url, start, end, raw)
        if scheme == "gopher":
            return self.gopher(url, start, end, raw)
        if scheme == "prospero":
            semi = raw.find(";")
            ppath_end = end if semi < 0 else start + semi
            for seg_start, seg_end in _segments(start, ppath_end, s, "/"):
                self.check_chars(seg_start, seg_end, _FSEGMENT, "the prospero hsoname")
            path = self.norm(s[start:ppath_end], _FSEGMENT | frozenset("/"))
            if semi >= 0:
                fieldchars = UCHAR_PLAIN | frozenset("?:@&")
                for f_start, f_end in _segments(ppath_end + 1, end, s, ";"):
                    eq = s.find("=", f_start, f_end)
                    if eq < 0:
                        raise self.fail("prospero field without '='", f_start)
                    self.check_chars(f_start, eq, fieldchars, "a prospero field name")
                    self.check_chars(eq + 1, f_end, fieldchars, "a prospero field value")
                    path += (f";{self.norm(s[f_start:eq], fieldchars)}"
                             f"={self.norm(s[eq + 1:f_end], fieldchars)}")
            return url.replace(path=path)
        # other schemes: the url-path is *xchar.
        self.check_chars(start, end, XCHAR_PLAIN, "the url-path")
        return url.replace(path=self.norm(raw))

    def gopher(self, url: URL, start: int, end: int, raw: str) -> URL:
        """``gtype selector [%09 search [%09 gopher+_string]]``: ``*xchar`` but the search.

        Section 5 writes the gopher search with the very ``search`` rule of http's
        (``uchar`` and ``;:@&=``), so strict mode refuses a raw ``/`` or ``?`` there
        (issue 29), in text order with the ``xchar`` checks of the other parts so the
        first problem is the one named. Lenient mode writes them ``%2F`` and ``%3F``:
        the search reaches the server decoded, so the escape changes nothing it is sent.
        """
        from anyurl.schemes.gopher.view import split_gopher_path  # of gopher URLs only

        gtype, selector, search, _ = split_gopher_path(raw)
        if search is None:
            self.check_chars(start, end, XCHAR_PLAIN, "the url-path")
            return url.replace(path=self.norm(raw))
        search_start = start + len(gtype) + len(selector) + len("%09")
        search_end = search_start + len(search)
        self.check_chars(start, search_start, XCHAR_PLAIN, "the url-path")
        self.check_chars(search_start, search_end, _SEARCH, "the gopher search")
        self.check_chars(search_end, end, XCHAR_PLAIN, "the url-path")
        path = self.norm(raw)
        if not self.strict:
            gtype, selector, search, plus = split_gopher_path(path)
            path = (f"{gtype}{selector}%09{escape_unsafe(search or '', _SEARCH)}"
                    + ("" if plus is None else f"%09{plus}"))
        return url.replace(path=path)

    def wais(self, url: URL, start: int, end: int, raw: str) -> URL:
        """``/database``, ``/database?search`` or ``/database/wtype/wpath``, in both modes.

        Section 5: ``database``, ``wtype`` and ``wpath`` are ``*uchar``, so each may be
        empty and none holds a ``/``. Lenient mode makes room for the two forms real
        clients wrote with slashes in the wpath, which the WAIS handler reads: CERN's
        ``/database/wtype/length/wpath`` (a decimal length segment) and Lynx's record
        form (``1=host;2=/db;...;``); any other ``/`` in a wpath is refused.
        """
        db, q, _ = raw.partition("?")
        pieces = db.split("/")
        shape = "a wais URL is /database, /database?search or /database/wtype/wpath"
        if q and len(pieces) != 1:
            raise self.fail(f"{shape}: a search follows the database alone",
                            start + len(pieces[0]))
        if len(pieces) == 2:
            raise self.fail(f"{shape}: the wpath is missing", start)
        if len(pieces) > 3:
            slash = start + len(pieces[0]) + len(pieces[1]) + len(pieces[2]) + 2
            wpath = "/".join(pieces[2:])
            cern = is_ascii_digits(pieces[2])
            tail = "/".join(pieces[3:])
            if self.strict or not (_LYNX_RECORDS.fullmatch(wpath) or (
                    cern and ("/" not in tail or _LYNX_RECORDS.fullmatch(tail)))):
                raise self.fail(f"{shape}: '/' must be %-escaped in the wpath "
                                "(wpath = *uchar)", slash)
        if self.strict:
            pos = start
            for piece in pieces:
                self.check_chars(pos, pos + len(piece), UCHAR_PLAIN, "the wais path")
                pos += len(piece) + 1
            if q:  # section 5's one search rule, as http's (issue 29)
                self.check_chars(start + len(db) + 1, end, _SEARCH, "the wais search")
        # Lenient mode keeps a wpath's reserved characters as written: the forms real
        # clients wrote (Lynx's "1=host;2=db;..." records, CERN's
        # /wtype/length/wpath) carry meaning in them that the WAIS handler reads. A
        # search's '/' and '?' it writes %2F and %3F: the search is sent decoded.
        path = self.norm(raw)
        if q and not self.strict:
            db, _, search = path.partition("?")
            path = f"{db}?{escape_unsafe(search, _SEARCH)}"
        return url.replace(path=path)

    def finish_file(self, url: URL, start: int, end: int, fragment: str | None,
                    path: str | None = None) -> URL:
        if path is None:
            raw = self.s[start:end]
            for seg_start, seg_end in _segments(start, end, self.s, "/"):
                self.check_chars(seg_start, seg_end, _FSEGMENT, "a file path segment")
            path = self.norm(raw, _FSEGMENT | frozenset("/"))
        return url.replace(path=path, fragment=fragment)

    # -- schemes without //: mailto, news, generic -----------------------------------

    def parse_opaque(self, scheme: str, start: int, end: int, fragment: str | None) -> URL:
        s = self.s
        raw = s[start:end]
        if scheme == "mailto":
            if raw == "":
                raise self.fail("a mailto URL needs an address", start)
            self.check_chars(start, end, XCHAR_PLAIN, "the mail address")
        elif scheme == "news":
            if raw == "":
                raise self.fail("a news URL needs a newsgroup, a message-id or '*'", start)
            if not self.strict and raw.startswith("<") and raw.endswith(">") and "@" in raw:
                raw = raw[1:-1]  # news:<id@host>, as people paste Message-IDs
                start += 1
                end -= 1
            if raw == "*":
                pass
            elif "@" in raw:
                at = raw.rfind("@")
                if at == 0:  # article = 1*[ uchar | ";" | "/" | "?" | ":" | "&" | "=" ] "@" host
                    raise self.fail("a message-id needs a part before '@'", start)
                self.check_chars(start, start + at, UCHAR_PLAIN | frozenset(";/?:&="),
                                 "the message-id")
                host = raw[at + 1 :]
                err = _strict_host_error(host) if self.strict else _lenient_host_error(host)
                if host == "":
                    err = ("a message-id needs a host after '@'", 0)
                if err is not None:
                    raise self.fail(err[0], start + at + 1 + err[1])
            elif not _NEWS_GROUP.match(raw):
                raise self.fail(f"{raw!r} is not a newsgroup name", start + _group_error(raw))
        else:
            self.check_chars(start, end, XCHAR_PLAIN, "the scheme-specific part")
        opaque = self.norm(raw)
        if scheme == "news" and not self.strict and "@" in opaque:
            # an '@' of the message-id's own is no article character: written %40, the
            # last '@' alone separates the host (the message-id decodes the same)
            local, _, host = opaque.rpartition("@")
            opaque = local.replace("@", "%40") + "@" + host
        return URL(scheme, opaque=opaque, fragment=fragment)


def _group_error(group: str) -> int:
    """The offset of the first character ``group = alpha *[ alpha | digit | ...]`` refuses."""
    return next((i for i, c in enumerate(group)
                 if (i == 0 and c not in ALPHA) or c not in ALPHA | DIGIT | frozenset("-.+_")),
                0)


def _segments(start: int, end: int, s: str, sep: str) -> list[tuple[int, int]]:
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


#: The common URL of a long list (``anyurl get -i``, a mirror's queue): an http, https
#: or ftp URL with a host name or number, maybe a port, and a path of letters, digits,
#: ``-``, ``.``, ``_`` and ``/`` only: nothing to escape, decode, check against
#: section 6 or split (no login, ``%``, ``;type=``, ``?`` or ``#``).
_PLAIN = re.compile(r"(https?|ftp)://([A-Za-z0-9.-]+)(?::([1-9][0-9]{0,4}))?/([A-Za-z0-9._/-]*)\Z")


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
