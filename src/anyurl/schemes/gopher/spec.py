"""The gopher scheme's descriptor (RFC 1738 3.4): port 70, an opaque selector."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anyurl.registry.spec import Crawl, CrawlFetch, DemoCase, DemoServer, SchemeSpec, directory_of
from anyurl.schemes.gopher.flags import FLAGS
from anyurl.schemes.gopher.view import GopherPath, gopher_path
from anyurl.url.model import URL
from anyurl.url.segments import has_dot_segment

if TYPE_CHECKING:
    from anyurl.options import SchemeOptions

__all__ = ["SPEC"]


def _parts(url: URL) -> GopherPath:
    parts = url.parts
    return parts if isinstance(parts, GopherPath) else gopher_path(url.path)


def _path_key(url: URL) -> str:
    selector = _parts(url).selector
    return selector if selector.startswith("/") else "/" + selector


def _start_prefix(url: URL) -> str:
    key = _path_key(url)
    if _parts(url).gophertype == "1":  # a menu: what is below it
        return key if key.endswith("/") else key + "/"
    return directory_of(key)


#: gophernicus writes a directory's selector (a menu's, type 1) with each byte outside
#: its safe set as ``#`` and three octal digits (``/日本/`` is ``/#346#227#245#346#234#254/``,
#: ``/a b/`` is ``/a#040b/``) but its files' selectors raw (``/日本/a.txt``): a menu's
#: selector written wholly so is read back, so that a menu and its items land in one
#: directory of the mirror.
_OCTAL = re.compile(r"#([0-3][0-7]{2})")


def _menu_name(selector: str) -> str:
    """A menu's ``selector`` with gophernicus's ``#ooo`` escapes decoded, when every
    ``#`` in it is one and the bytes they make are UTF-8; else as written."""
    if "#" not in selector or selector.count("#") != len(_OCTAL.findall(selector)):
        return selector
    try:
        raw = selector.encode("utf-8")
        decoded = _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), raw.decode("latin-1"))
        return decoded.encode("latin-1").decode("utf-8")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return selector


def _tree_path(url: URL) -> tuple[list[str], bool]:
    parts = _parts(url)
    selector = parts.selector
    if parts.gophertype == "1":
        selector = _menu_name(selector)
    segments = selector.split("/")
    plus = parts.gopher_plus
    if plus and segments:  # a Gopher+ request: beside the item, never over it
        if plus.startswith("+") and len(plus) > 1:
            segments[-1] += "@" + plus[1:]  # an alternate view: name@text_plain De_DE
        elif plus.startswith("!"):
            segments[-1] += ".attributes"
        return segments, False
    if parts.search:  # each search's answer (a menu) beside the others: name@words/
        segments[-1] += "@" + parts.search
        return segments, True
    return segments, parts.gophertype == "1" or selector.endswith("/")


def _fetch_options(given: tuple[SchemeOptions, ...],
                   crawl: CrawlFetch) -> tuple[SchemeOptions, ...]:
    """A mirror's fetches: menus and attribute blocks as the server sent them (a
    rendering is saved beside them only with ``--render``)."""
    import dataclasses

    from anyurl.schemes.base import FetchOptions
    from anyurl.schemes.gopher.options import GopherOptions

    options = FetchOptions(schemes=given)
    return options.with_scheme(dataclasses.replace(options.get(GopherOptions),
                                                   render=False)).schemes


def _a_view(url: URL) -> bool:
    """A Gopher+ view (``+TYPE``) is a document: its Gopher+ header and framing go, as
    they would in any other copy of it."""
    return (_parts(url).gopher_plus or "").startswith("+")


_SERVER = DemoServer("anyurl.schemes.gopher.loopback", ("--root", "{data}"))

#: The kinds a stored copy's content type says (a menu, a Gopher+ attribute block).
_STORED_KINDS = {"application/gopher-menu": "menu",
                 "application/gopher+-attributes": "attributes"}


def _stored_kind(url: URL, content_type: str, dialogue: Sequence[str],
                 ) -> tuple[str, dict[str, Any]]:
    """A stored menu or attribute block, by the content type the fetch gave it."""
    return _STORED_KINDS.get(content_type, "file"), {}


SPEC = SchemeSpec(
    names=("gopher",),
    flags=FLAGS,
    handler="anyurl.schemes.gopher.handler:GopherHandler",
    summary="Gopher menus, documents and searches (RFC 1436, Gopher+)",
    example="gopher://gopher.example.org/1/",
    default_port=70,
    view=lambda url: gopher_path(url.path),
    view_module="anyurl.schemes.gopher.view",
    cli_hints={"gopher_view": "Drop --view, or the Gopher+ string (%09%09...) from the URL."},
    options_module="anyurl.schemes.gopher.options",
    local_name=lambda url: _parts(url).selector.rstrip("/").rsplit("/", 1)[-1],
    proxied=True,
    # A selector is opaque (only the server knows what it means) and is requested as
    # written; but one with a "." or ".." segment is not "under" the start selector.
    stored_kind=_stored_kind,
    crawl=Crawl(index_name="gophermap", called="a Gopher hole", path_key=_path_key,
                start_prefix=_start_prefix,
                refused=lambda url: has_dot_segment(_parts(url).selector),
                tree_path=_tree_path, fetch_options=_fetch_options, document=_a_view),
    demo=(
        DemoCase("gopher://127.0.0.1:{port}/", "the root menu, as text", _SERVER),
        DemoCase("gopher://127.0.0.1:{port}/7/search%09hello", "a type-7 search for 'hello'",
                 _SERVER),
        DemoCase("gopher://127.0.0.1:{port}/0/hello.txt%09%09!",
                 "Gopher+ attributes of an item (!)", _SERVER),
    ),
)
