"""Page requisites: what a browser loads to render a page, found in HTML and in CSS.

Each form a page can name a requisite in (issue 30): style sheets and what they
``@import``, ``url()`` in ``<style>`` blocks and ``style=`` attributes, ``srcset``,
``poster``, media sources, ``<object data>``, ``<embed>``, frames, ``<link rel>`` icons
and preloads, ``<meta http-equiv=refresh>``; and a style sheet's own ``@import`` and
``url()`` in every quoting. Then the scope's rule: a requisite is taken above the start
directory and past the depth limit, on the start URLs' servers only.
"""

from __future__ import annotations

import pytest

from anyurl import Config
from anyurl.links import FILE, PAGE, Link
from anyurl.mirror.scope import REQUISITE_HOPS, Scope
from anyurl.resource import ResourceInfo
from anyurl.schemes.http import HTTPHandler, css_links
from anyurl.schemes.http.css_links import css_references, declared_charset, style_references
from anyurl.url import parse

PAGE_URL = "http://h.example/docs/page.html"
D = "http://h.example/docs/"


def links(body: bytes, content_type: str = "text/html; charset=utf-8",
          url: str = PAGE_URL) -> list[Link]:
    info = ResourceInfo(url=parse(url), content_type=content_type)
    return HTTPHandler(Config()).links(info, body)


def found(body: bytes, content_type: str = "text/html; charset=utf-8",
          url: str = PAGE_URL) -> list[tuple[str, str, bool]]:
    return [(link.url, link.kind, link.requisite) for link in links(body, content_type, url)]


EVERY_FORM = b"""<!doctype html><html><head>
<link rel="stylesheet" href="css/main.css">
<link rel="icon" href="/favicon.ico">
<link rel="preload" href="fonts/f.woff2" as="font">
<link rel="modulepreload" href="js/mod.js">
<link rel="manifest" href="site.webmanifest">
<link rel="search" href="opensearch.xml">
<meta http-equiv="Refresh" content="30; URL='next.html'">
<style>
@import "css/print.css" print;
body { background: url(img/bg.png) }
.logo { background-image: url("data:image/png;base64,AAAA") }
</style>
<script src="js/app.js"></script>
</head><body>
<img src="img/a.png" srcset="img/a-2x.png 2x, img/a,comma.png 3x" alt="A">
<picture><source srcset="img/b.webp 640w,img/b-big.webp 1280w" type="image/webp">
<img src="img/b.png"></picture>
<video src="media/v.mp4" poster="img/poster.jpg"><source src="media/v.webm"></video>
<audio src="media/a.ogg"></audio>
<object data="media/o.svg"></object><embed src="media/e.swf">
<iframe src="frames/f.html"></iframe>
<input type="image" src="img/button.png" alt="Go"><input type="text" src="no.png">
<p style="background: url('img/p.png')">text</p>
<table background="img/table.png"><tr><td background="img/td.png">x</td></tr></table>
<a href="other.html">a page, not a requisite</a>
</body></html>
"""


def test_every_requisite_form_of_a_page() -> None:
    assert found(EVERY_FORM) == [
        (D + "css/main.css", FILE, True),
        ("http://h.example/favicon.ico", FILE, True),
        (D + "fonts/f.woff2", FILE, True),
        (D + "js/mod.js", FILE, True),
        (D + "site.webmanifest", FILE, True),
        (D + "opensearch.xml", FILE, False),
        (D + "next.html", PAGE, True),
        (D + "css/print.css", FILE, True),
        (D + "img/bg.png", FILE, True),
        (D + "js/app.js", FILE, True),
        (D + "img/a.png", FILE, True),
        (D + "img/a-2x.png", FILE, True),
        (D + "img/a,comma.png", FILE, True),
        (D + "img/b.webp", FILE, True),
        (D + "img/b-big.webp", FILE, True),
        (D + "img/b.png", FILE, True),
        (D + "media/v.mp4", FILE, True),
        (D + "img/poster.jpg", FILE, True),
        (D + "media/v.webm", FILE, True),
        (D + "media/a.ogg", FILE, True),
        (D + "media/o.svg", FILE, True),
        (D + "media/e.swf", FILE, True),
        (D + "frames/f.html", PAGE, True),
        (D + "img/button.png", FILE, True),
        (D + "img/p.png", FILE, True),
        (D + "img/table.png", FILE, True),
        (D + "img/td.png", FILE, True),
        (D + "other.html", PAGE, False),
    ]


@pytest.mark.parametrize(("content", "target"), [
    ("0; url=a.html", "a.html"), ("5;URL=&quot;b.html&quot;", "b.html"), ("1, c.html", "c.html"),
    ("2.5 ; url = 'd e.html' trailing", "d%20e.html"), ("3;url=e.html#top", "e.html"),
])
def test_meta_refresh_forms(content: str, target: str) -> None:
    body = f'<meta http-equiv="refresh" content="{content}">'.encode()
    assert found(body) == [(D + target, PAGE, True)]


@pytest.mark.parametrize("content", ["5", "", "x; url=a.html"])
def test_a_refresh_without_a_url_names_nothing(content: str) -> None:
    assert found(f'<meta http-equiv="refresh" content="{content}">'.encode()) == []


def test_a_url_named_twice_is_a_requisite_if_either_mention_is() -> None:
    body = b'<a href="pic.png">the picture</a><img src="pic.png" alt="p">'
    assert links(body) == [Link(D + "pic.png", PAGE, "the picture", requisite=True)]


def test_what_a_browser_never_loads_is_no_requisite() -> None:
    body = (b'<template><img src="in-template.png"></template>'
            b'<textarea><img src="in-textarea.png"></textarea>'
            b'<!-- <img src="in-comment.png"> -->'
            b'<script>document.write(\'<img src="in-script.png">\')</script>'
            b'<link rel="prefetch" href="later.html">'
            b'<link rel="dns-prefetch" href="//cdn.example">')
    assert found(body) == [(D + "later.html", FILE, False)]


# -- style sheets ------------------------------------------------------------------------------

CSS = rb"""@charset "utf-8";
@import url("quoted-url.css");
@import url(unquoted-url.css) screen;
@import 'single.css';
@import "double.css" print;
/* url(in-a-comment.png) and @import "commented.css"; */
a { content: "url(in-a-string.png)"; background: url( spaced.png ) }
b { background: url(esc\ aped\).png), url("q\"uote.png"), url('../up.png') }
c { background: url(data:image/png;base64,iVBORw0KGgo=); cursor: url(#fragment-only) }
@media print { d { background: url(media/in-media.png) } @import "nested-import.css"; }
@font-face { font-family: F; src: url(fonts/f.woff2) format("woff2"), local(F) }
e { background-image: image-set("set-1x.png" 1x, url(set-2x.png) 2x) }
f { background: url(http://other.example/abs.png) }
g { background: url(unclosed.png"""


def test_css_references_in_every_quoting() -> None:
    assert css_references(CSS.decode()) == [
        "quoted-url.css", "unquoted-url.css", "single.css", "double.css", "spaced.png",
        "esc aped).png", 'q"uote.png', "../up.png",
        "data:image/png;base64,iVBORw0KGgo=", "#fragment-only", "media/in-media.png",
        "fonts/f.woff2", "set-1x.png", "set-2x.png", "http://other.example/abs.png",
        "unclosed.png"]


def test_css_without_a_parenthesis_or_an_at_sign_is_not_tokenized(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``url()`` is written with a ``(`` even when its name is escaped, an ``@import``
    with an ``@``: a ``style=`` attribute or a sheet without them names nothing."""
    assert style_references(r"background: \75rl(esc.png)") == ["esc.png"]
    assert css_references(r'@\69mport "esc.css";') == ["esc.css"]
    with monkeypatch.context() as patched:
        patched.setattr(css_links.tinycss2, "parse_component_value_list", None)
        assert style_references("width: 50%; u\\72l: x.png") == []
        assert css_references("p { color: red } /* url x.png */") == []


def test_a_style_sheet_response_names_requisites_resolved_against_itself() -> None:
    got = found(CSS, "text/css", url="http://h.example/docs/_static/main.css")
    s = "http://h.example/docs/_static/"
    assert got == [
        (s + "quoted-url.css", FILE, True), (s + "unquoted-url.css", FILE, True),
        (s + "single.css", FILE, True), (s + "double.css", FILE, True),
        (s + "spaced.png", FILE, True), (s + "esc%20aped).png", FILE, True),
        (s + "q%22uote.png", FILE, True), (D + "up.png", FILE, True),
        (s + "media/in-media.png", FILE, True), (s + "fonts/f.woff2", FILE, True),
        (s + "set-1x.png", FILE, True), (s + "set-2x.png", FILE, True),
        ("http://other.example/abs.png", FILE, True), (s + "unclosed.png", FILE, True)]


def test_a_style_sheets_charset() -> None:
    latin1 = '@charset "iso-8859-1";\na { background: url(caf\xe9.png) }'.encode("latin-1")
    assert declared_charset(latin1) == "iso-8859-1"
    assert found(latin1, "text/css", url="http://h/s.css") == [
        ("http://h/caf%C3%A9.png", FILE, True)]
    # the header's charset wins over @charset; undeclared non-UTF-8 octets are kept
    assert found(latin1, "text/css; charset=utf-8", url="http://h/s.css") == [
        ("http://h/caf%E9.png", FILE, True)]
    assert declared_charset(b"a { }") is None


def test_a_style_block_resolves_against_the_pages_base() -> None:
    body = b'<base href="/assets/"><style>@import "x.css"; p { background: url(y.png) }</style>'
    assert found(body) == [("http://h.example/assets/x.css", FILE, True),
                           ("http://h.example/assets/y.png", FILE, True)]


def test_undeclared_octets_in_an_html_page_go_back_as_written() -> None:
    body = b'<img src="caf\xe9.png" alt="caf\xe9"><a href="\xff.html">\xff</a>'
    assert links(body, "text/html") == [
        Link(D + "caf%E9.png", FILE, "caf\xe9", requisite=True),
        Link(D + "%FF.html", PAGE, "\xff")]


# -- the scope's rule --------------------------------------------------------------------------

def test_a_requisite_is_taken_above_the_start_directory_and_past_the_depth() -> None:
    scope = Scope((parse("http://h.example/docs/sub/"),), max_depth=1)
    above = parse("http://h.example/static/style.css")
    assert not scope.admits(above, 1)
    assert scope.admits(above, 1, requisite=True)
    assert not scope.admits(parse("http://h.example/docs/sub/deep.html"), 2)
    assert scope.admits(parse("http://h.example/docs/sub/deep.png"), 2, requisite=True)
    assert scope.admits(above, 1 + REQUISITE_HOPS, requisite=True)
    assert not scope.admits(above, 2 + REQUISITE_HOPS, requisite=True)  # bounded


def test_a_requisite_stays_on_the_start_servers_and_under_the_patterns() -> None:
    scope = Scope((parse("http://h.example/docs/"),), exclude=("*.js",))
    assert not scope.admits(parse("http://cdn.example/style.css"), 1, requisite=True)
    assert not scope.admits(parse("http://h.example:8080/style.css"), 1, requisite=True)
    assert not scope.admits(parse("https://h.example/style.css"), 1, requisite=True)
    assert not scope.admits(parse("http://h.example/app.js"), 1, requisite=True)


def test_no_page_requisites_holds_them_to_the_directory_and_the_depth() -> None:
    scope = Scope((parse("http://h.example/docs/"),), max_depth=1, page_requisites=False)
    assert not scope.admits(parse("http://h.example/style.css"), 1, requisite=True)
    assert not scope.admits(parse("http://h.example/docs/deep.png"), 2, requisite=True)
    assert scope.admits(parse("http://h.example/docs/deep.png"), 1, requisite=True)
