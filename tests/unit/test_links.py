"""links(): each handler reads its own listings back into URLs, from byte fixtures (no I/O).

The bodies are what the handlers yield with ``FetchOptions(raw=True)`` (checked against the
real servers in tests/integration/test_links.py): an HTML page as sent, a Gopher menu with
its terminator, MLSD lines as sent (CR LF), NLST names with LF, OVER and LIST lines (CR LF).
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anyurl import Config, Resolver
from anyurl.errors import OptionError
from anyurl.links import FILE, PAGE, Link, checked, unique
from anyurl.options import FTPOptions
from anyurl.protocols.ftp import (
    ListEntry,
    parse_list,
    parse_mlsd,
    parse_nlst,
    retrieval_commands,
    retrieval_for,
)
from anyurl.resource import ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.file.handler import FileHandler
from anyurl.schemes.ftp.handler import FTPHandler
from anyurl.schemes.gopher.handler import GopherHandler
from anyurl.schemes.http import HTTPHandler
from anyurl.schemes.http import html_links as html_links_module
from anyurl.schemes.http.html_links import MAX_HTML
from anyurl.schemes.news.handler import NewsHandler
from anyurl.schemes.prospero.handler import ProsperoHandler
from anyurl.schemes.telnet.handler import TelnetHandler
from anyurl.schemes.wais.handler import WAISHandler
from anyurl.url import FTPPath, parse

CONFIG = Config()


def info(url: str, kind: str = "file", content_type: str | None = None,
         **extra: Any) -> ResourceInfo:
    return ResourceInfo(url=parse(url), kind=kind, content_type=content_type, extra=extra)


def urls(links: list[Link]) -> list[str]:
    return [link.url for link in links]


# -- the Link value and the default --------------------------------------------------------


def test_unique_keeps_the_first_and_upgrades_to_page() -> None:
    got = unique([Link("http://h/a", FILE, None), Link("http://h/b", PAGE, "b"),
                  Link("http://h/a", PAGE, "the a"), Link("http://h/b", FILE, "other")])
    assert got == [Link("http://h/a", PAGE, "the a"), Link("http://h/b", PAGE, "b")]


def test_checked_drops_what_does_not_parse_and_writes_urls_as_the_parser_does() -> None:
    got = checked([Link("HTTP://h/a b#x", PAGE, "a"), Link("ftp://h/a%0Db", FILE, None),
                   Link("news:no group", PAGE, None), Link("http://h/a%20b", FILE, "again")])
    assert got == [Link("http://h/a%20b", PAGE, "a")]


def test_an_ftp_name_no_command_can_send_is_left_out() -> None:
    assert urls(ftp_links("ftp://h/", b"ok\ncr\rin the middle\n", "NLST")) == ["ftp://h/ok"]


def test_a_handler_without_listings_finds_no_links() -> None:
    handler = TelnetHandler(CONFIG)
    assert handler.links(info("telnet://h/"), b"login: ") == []


def test_links_are_frozen() -> None:
    link = Link("http://h/", PAGE, "home")
    with pytest.raises(AttributeError):
        link.url = "http://other/"  # type: ignore[misc]


# -- HTML --------------------------------------------------------------------------------------

PAGE_URL = "http://user:pw@www.example.org/a/b.html?x=1#frag"
HTML = b"""<!doctype html>
<html><head>
<base href="/docs/v2/">
<link rel="stylesheet" href="style.css">
<link rel="next" href="page2.html">
<link rel="preconnect" href="https://cdn.example.org">
<script src="app.js"></script>
<script>var s = '<a href="in-a-script.html">';</script>
<!-- <a href="in-a-comment.html">no</a> -->
</head><body>
<a href="intro.html#section-2">The   <b>intro</b></a>
<a href="#top">top</a> <a href="">self</a>
<a href="javascript:alert(1)">js</a> <a href="mailto:a@example.org">mail</a>
<a href="data:text/plain,hi">data</a> <a href="telnet://h/">telnet</a>
<a href="file:///etc/passwd">local</a>
<a href="ftp://ftp.example.org/pub/">ftp</a> <a href="gopher://g.example.org/1/">g</a>
<a href="news:comp.lang.python">news</a>
<a href="//other.example.org/x y.html">other host</a>
<a href="../up.html?q=a b&amp;r=1">up</a>
<a href="caf\xc3\xa9.html">cafe</a>
<img src="img/logo.png" alt="Logo">
<a href="pic.html"><img src="thumb.png" alt="Thumbnail"></a>
<iframe src="frame.html"></iframe><frame src="f2.html"><area href="map.html" alt="Map">
<video><source src="clip.webm"></video>
<a href="http://h:99999/">no such port</a>
<a href="  spaced.html  ">spaced</a>
<a href="intro.html">the intro again</a>
</body></html>
"""
BASE = "http://user:pw@www.example.org/docs/v2/"


def html_links(body: bytes, content_type: str | None = "text/html; charset=utf-8",
               url: str = PAGE_URL, **extra: Any) -> list[Link]:
    return HTTPHandler(CONFIG).links(info(url, content_type=content_type, **extra), body)


def test_html_links_in_document_order() -> None:
    assert html_links(HTML) == [
        Link(BASE + "style.css", FILE, None, requisite=True),
        Link(BASE + "page2.html", PAGE, None),
        Link(BASE + "app.js", FILE, None, requisite=True),
        Link(BASE + "intro.html", PAGE, "The intro"),
        Link("ftp://ftp.example.org/pub/", PAGE, "ftp"),
        Link("gopher://g.example.org/1/", PAGE, "g"),
        Link("news:comp.lang.python", PAGE, "news"),
        Link("http://other.example.org/x%20y.html", PAGE, "other host"),
        Link("http://user:pw@www.example.org/docs/up.html?q=a%20b&r=1", PAGE, "up"),
        Link(BASE + "caf%C3%A9.html", PAGE, "cafe"),
        Link(BASE + "img/logo.png", FILE, "Logo", requisite=True),
        Link(BASE + "pic.html", PAGE, "Thumbnail"),
        Link(BASE + "thumb.png", FILE, "Thumbnail", requisite=True),
        Link(BASE + "frame.html", PAGE, None, requisite=True),
        Link(BASE + "f2.html", PAGE, None, requisite=True),
        Link(BASE + "map.html", PAGE, "Map"),
        Link(BASE + "clip.webm", FILE, None, requisite=True),
        Link(BASE + "spaced.html", PAGE, "spaced"),
    ]


def test_frames_of_a_frameset_are_requisite_pages() -> None:
    body = (b'<html><head><title>t</title></head><frameset cols="50%,50%">'
            b'<frame src="left.html" title="Left"><frame src="right.html"></frameset></html>')
    assert html_links(body, url="http://h/") == [
        Link("http://h/left.html", PAGE, "Left", requisite=True),
        Link("http://h/right.html", PAGE, None, requisite=True)]


def test_html_without_base_resolves_against_the_final_url() -> None:
    body = b'<a href="c.html">c</a> <a href="/root.html">r</a> <a href="?y=2">q</a>'
    assert urls(html_links(body, url="https://h.example.org/a/b.html#x")) == [
        "https://h.example.org/a/c.html", "https://h.example.org/root.html",
        "https://h.example.org/a/b.html?y=2"]


#: References whose resolution may depend on more than the base's directory (its last
#: segment, its query), with ones that do not, side by side.
REFERENCES = ["c.html", "?y=2", ";p", "http:?x", "http:", "http:c.html", "\x01?z", " ?w",
              "/root.html", "//other.example.org/x", "https://h.example.org/", "../up/",
              ".", "..", "d/e.html?q=1", "a:b", "ftp://f.example.org/pub/", "HTTP:x"]
BASES = ["https://h.example.org/a/b.html", "https://h.example.org/a/c.html?q=1",
         "https://h.example.org/a/", "https://h.example.org", "https://other.example.org",
         "https://h.example.org/a/b;x", "http://h.example.org/a/b.html"]


def test_references_resolved_on_one_page_are_resolved_alike_on_the_next() -> None:
    """Every page of a directory resolves the same reference the same way
    (html_links keeps what earlier pages resolved), and a reference that depends on the
    page's own name or query is never taken from another page."""
    alone = {}
    for base in BASES:  # each page the first one read after the cache is emptied
        html_links_module._RESOLVED.clear()
        for ref in REFERENCES:
            alone[base, ref] = urls(html_links(f'<a href="{ref}">x</a>'.encode(), url=base))
    html_links_module._RESOLVED.clear()
    for _ in range(2):  # then all of them, one after another, twice
        for base in BASES:
            for ref in REFERENCES:
                found = urls(html_links(f'<a href="{ref}">x</a>'.encode(), url=base))
                assert found == alone[base, ref], (base, ref)


def test_html_fragments_and_the_page_itself_are_dropped() -> None:
    body = b'<a href="#a">a</a><a href="b.html#a">b</a><a href="b.html">again</a>'
    assert html_links(body, url="http://h/b.html") == []
    assert urls(html_links(body, url="http://h/index.html")) == ["http://h/b.html"]


@pytest.mark.parametrize("href", [
    "javascript:void(0)", "JavaScript:alert(1)", "data:image/png;base64,AAAA",
    "mailto:someone@example.org", "telnet://h/", "file:///etc/passwd", "about:blank",
    "tel:+123", "x-unknown://h/",
])
def test_html_skips_what_a_mirror_must_not_follow(href: str) -> None:
    assert html_links(f'<a href="{href}">x</a>'.encode()) == []


def test_html_keeps_file_links_of_a_local_page() -> None:
    body = b'<a href="other.html">o</a><a href="file:///srv/x.txt">x</a>'
    assert urls(html_links(body, url="file:///srv/www/index.html")) == [
        "file:///srv/www/other.html", "file:///srv/x.txt"]


def test_html_link_rel_kinds() -> None:
    body = (b'<link rel="alternate" href="feed.xml"><link rel="prev" href="p.html">'
            b'<link rel="icon" href="f.ico"><link rel="alternate stylesheet" href="a.css">'
            b'<link rel="dns-prefetch" href="//cdn.example.org">')
    assert [(link.url, link.kind) for link in html_links(body, url="http://h/")] == [
        ("http://h/feed.xml", PAGE), ("http://h/p.html", PAGE), ("http://h/f.ico", FILE),
        ("http://h/a.css", FILE)]


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/json",
                                          "image/png", "text/htmlx"])
def test_only_html_is_read(content_type: str | None) -> None:
    assert html_links(b'<a href="x.html">x</a>', content_type=content_type) == []


@pytest.mark.parametrize("content_type", ["text/html", "TEXT/HTML; charset=UTF-8",
                                          "application/xhtml+xml"])
def test_html_media_types(content_type: str) -> None:
    assert urls(html_links(b'<a href="x.html">x</a>', content_type=content_type,
                           url="http://h/")) == ["http://h/x.html"]


def test_a_body_over_16_mib_is_not_read() -> None:
    head = b'<a href="x.html">x</a>'
    assert urls(html_links(head, url="http://h/")) == ["http://h/x.html"]
    big = head + b" " * (MAX_HTML + 1 - len(head))
    assert html_links(big, url="http://h/") == []
    assert len(html_links(head + b" " * (MAX_HTML - len(head)), url="http://h/")) == 1


def test_a_content_coding_left_on_is_undone_within_the_bound() -> None:
    body = gzip.compress(b'<a href="x.html">x</a>')
    assert urls(html_links(body, url="http://h/", content_encoding="gzip",
                           decoded=False)) == ["http://h/x.html"]
    bomb = gzip.compress(b'<a href="x.html">x</a>' + b" " * MAX_HTML)
    assert html_links(bomb, url="http://h/", content_encoding="gzip", decoded=False) == []
    assert html_links(b"not gzip", url="http://h/", content_encoding="gzip",
                      decoded=False) == []
    assert html_links(body, url="http://h/", content_encoding="br", decoded=False) == []


def test_html_charsets() -> None:
    latin1 = b'<a href="caf\xe9.html">caf\xe9</a>'
    declared = html_links(latin1, "text/html; charset=iso-8859-1", url="http://h/")
    assert declared == [Link("http://h/caf%C3%A9.html", PAGE, "caf\xe9")]
    # Undeclared and not UTF-8: the octet goes back to the server as it was written.
    assert urls(html_links(latin1, "text/html", url="http://h/")) == ["http://h/caf%E9.html"]


#: Pages that Lexbor's tree (a page up to TREE_MAX) and libxml2's events (a bigger one)
#: must read alike: what a browser's parser gets right, and what their trees differ on.
BOTH_WAYS = [
    HTML,
    b'<a href="pic.html"> <img src="t.png" alt="Thumb"> caption</a>',
    b'<a href="1.html">one<a href="2.html">two</a>three</a>',
    b'<a href="b.html"><div>in a div</div> after</a> outside',
    b'<table><tr><a href="t.html">fostered</a><td>cell</td></tr></table>',
    b'<a href="s.html">x<style>p { background: url(bg.png) }</style>y</a>',
    b'<a href="sc.html">x<script>var a = "<a href=no.html>";</script>y</a>',
    b'<template><a href="t.html">t</a><img src="ti.png"></template>'
    b'<a href="after.html" style="background: url(sa.png)">a</a>',
    b'<base href="/one/"><base href="/two/"><a href="x.html">x</a>',
    b'<a href="x.html">x</a><base href="/late/">',
    b'<textarea><a href="no.html">no</a></textarea><a href="yes.html">yes</a>',
    b'<a href="q?a=1&copy=2&amp;b=&lt;3">e</a><a href="&#x61;.html">e2</a>',
    b'<head><noscript><link rel=stylesheet href="ns.css"></noscript></head>'
    b'<noscript><img src="ns.png"></noscript>',
    b'<svg><a href="svg.html">s</a><style>@import "svg.css";</style></svg>',
    b'<meta http-equiv="Refresh" content="0; URL=\'next.html\'">',
    b'<html><body></body></html><a href="late.html">late</a><img src="late.png">',
    b'<img srcset="a.png 1x, b.png 2x"><picture><source srcset="c.webp"></picture>',
    b'<A HREF="up.html">Up</A><IMG SRC="UP.PNG" ALT="up">',
    b'<xmp><a href="x.html"></xmp><iframe><a href="i.html"></iframe>'
    b'<noembed><a href="n.html"></noembed><a href="ok.html">ok</a>',
    b'<select><option>x<img src="s.png"><a href="sa.html">t</a></select>',
    b'<a href>x</a><a>name</a><area href="m.html" alt="Map"><a href="">e</a>',
    # selected for an attribute that names nothing there
    b'<a data="d.html" src="s.html">x</a><p data="p.html" poster="q.png">y</p>'
    b'<a href="x.html" data="d.html" style="color: red">x</a>',
    b'<object data="o.swf"><embed src="e.swf"></object><video poster="p.png" src="v.mp4">'
    b'<audio src="a.mp3"></audio></video><input type="image" src="in.png" alt="go">',
    b'<body background="b.png"><table background="t.png"><tr><td background="d.png">'
    b'x</td><th background="h.png">y</th></tr></table><div background="no.png">z</div>',
    b'<a href="\n  w s.html\t">\n label \n</a>x<a href="n\x00.html">y</a>',
    b'<ul><li><a href="l1.html">one<li><a href="l2.html">two</ul>',
    b'<a href="b1.html"><b>bold</a> after</b><p style="width: 50%">',
    b'<a href="caf\xe9.html">caf\xe9</a>',  # not UTF-8
    b'<a href="ok.html">ok</a><a href="x.html',  # cut in a tag
    # read from the events whatever the size (the Standard's tree differs):
    b'<body><p>x<frame src="f.html">',
    b'<image src="i.png"><a href="a.html">a</a>',
    b'<body><p>x</p><body background="bg.png">',
    b'<html><head></head><frameset><frame src="f.html"></frameset></html>',
    b'',
]


@pytest.mark.parametrize("body", BOTH_WAYS)
def test_lexbors_tree_and_libxml2s_events_give_the_same_links(
        monkeypatch: pytest.MonkeyPatch, body: bytes) -> None:
    page = info("http://h/d/p.html", content_type="text/html")
    monkeypatch.setattr(html_links_module, "TREE_MAX", 1 << 20)
    tree = HTTPHandler(CONFIG).links(page, body)
    monkeypatch.setattr(html_links_module, "TREE_MAX", 0)
    assert tree == HTTPHandler(CONFIG).links(page, body)


#: Pieces of markup whose soup the two ways must read to the same links.
HTML_TOKENS = [b"<a href=a.html>", b"<a data=d.html>", b"</a>", b"<p>", b"</p>", b"<table>",
               b"<tr><td>", b"</table>", b'<img src=i.png alt="I">', b"<img srcset='s.png 2x'>",
               b"<style>", b"@import 'c.css';", b"</style>", b"<template>", b"</template>",
               b"<base href=/b/>", b'<div style="background: url(u.png)">', b"<script>",
               b"</script>", b"<!--", b"-->", b"<textarea>", b"</textarea>", b"text ", b"&amp;",
               b'<link rel=stylesheet href="l.css">', b"<meta http-equiv=refresh content='0;r'>",
               b"<select>", b"<svg>", b"</svg>", b"<frame src=f.html>", b"<body background=g.png>",
               b"\xe9", b"<", b">", b'"', b"<video poster=v.png>",
               b"<html style='background:url(h.png)'>", b"<image src=im.png>", b"</body>",
               b"<frameset>", b"<head>", b"<noscript>", b"<math>", b"</math>", b"<mi>",
               b"<td background=td.png>", b"<col style='background:url(col.png)'>",
               b"<caption>", b"<tbody>", b"<option>", b"</select>", b"<title>", b"</title>",
               b"<plaintext>", b"<xmp>", b"<![CDATA[", b"]]>", b"<area href=ar.html>",
               b"<b>", b"</b>", b"<li>", b"<button>", b"<svg><path/></svg>", b"<g>",
               b"<path style='fill:url(pa.png)'/>", b"<foreignObject>", b"<desc>", b"<p/>",
               b"<a href=x.html href=y.html>", b"\x00", b"</p>", b"</br>", b"<!-- x",
               b"<!DOCTYPE html>", b"<iframe src=if.html>", b"<input type=image src=in.png>"]


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(HTML_TOKENS), max_size=40))
def test_the_two_ways_find_the_same_links_in_any_soup(pieces: list[bytes]) -> None:
    """Labels and order aside (see test_labels_the_two_ways_cut_otherwise), the same
    URLs, kinds and requisites, and neither way raises."""
    body = b"".join(pieces)
    page = info("http://h/d/p.html", content_type="text/html")
    handler = HTTPHandler(CONFIG)
    kept = html_links_module.TREE_MAX
    try:
        html_links_module.TREE_MAX = 1 << 20
        tree = handler.links(page, body)
        html_links_module.TREE_MAX = 0
        events = handler.links(page, body)
    finally:
        html_links_module.TREE_MAX = kept
    assert sorted((x.url, x.kind, x.requisite) for x in tree) == sorted(
        (x.url, x.kind, x.requisite) for x in events)


def test_a_small_page_is_read_from_lexbors_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to TREE_MAX, no libxml2 events (whose Python calls are the cost); above, no
    tree (whose memory is); the labels and the text around them each where it is."""
    def refused(*args: Any) -> None:
        raise AssertionError("the other way")

    body = (b'x<a href="a.html">A <img src="i.png" alt="I"> a</a>y'
            b'<a href="s.html">S<style>p { background: url(bg.png) }</style></a>z')
    expected = [Link("http://h/a.html", PAGE, "A I a"), Link("http://h/i.png", FILE, "I",
                                                             requisite=True),
                Link("http://h/s.html", PAGE, "Sp { background: url(bg.png) }"),
                Link("http://h/bg.png", FILE, None, requisite=True)]
    monkeypatch.setattr(html_links_module, "TREE_MAX", len(body))
    with monkeypatch.context() as patched:
        patched.setattr(html_links_module, "_from_events", refused)
        assert html_links(body, url="http://h/") == expected
    monkeypatch.setattr(html_links_module, "TREE_MAX", len(body) - 1)
    monkeypatch.setattr(html_links_module, "_from_tree", refused)
    assert html_links(body, url="http://h/") == expected


def test_a_page_the_standards_tree_reads_otherwise_is_read_from_the_events(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``<frame>`` outside a frameset, an ``<image>``, a second ``<body>``: a browser's
    tree drops, renames or merges them, libxml2's events do not; such a page is read
    from the events whatever its size, so that its links do not depend on it."""
    def refused(markup: bytes) -> None:
        raise AssertionError("read from the tree")

    monkeypatch.setattr(html_links_module, "_from_tree", refused)
    assert urls(html_links(b'<body><p>x<FRAME src="f.html">', url="http://h/")) == [
        "http://h/f.html"]
    assert urls(html_links(b'<image src="i.png"><a href="a.html">a</a>',
                           url="http://h/")) == ["http://h/a.html"]
    assert html_links(b'<body><p>x</p><body background="bg.png">', url="http://h/") == []


@pytest.mark.parametrize(("body", "tree", "events"), [
    (b'<p><a href="m.html">foo<p>bar</a>baz', "foo", "foobar"),
    (b'<table><a href="m.html">foo<tr><td>cell</td></tr>bar</a></table>', "foo",
     "foocellbar"),
])
def test_labels_the_two_ways_cut_otherwise(monkeypatch: pytest.MonkeyPatch, body: bytes,
                                           tree: str, events: str) -> None:
    """The differences left between the two ways (see html_links' docstring), in labels
    only: in the HTML Standard's tree a misnested anchor ends with its paragraph or is
    moved out of its table; libxml2's events give an anchor all the text up to its end
    tag."""
    assert html_links(body, url="http://h/") == [Link("http://h/m.html", PAGE, tree)]
    monkeypatch.setattr(html_links_module, "TREE_MAX", 0)
    assert html_links(body, url="http://h/") == [Link("http://h/m.html", PAGE, events)]


def test_a_link_fostered_out_of_a_table_comes_before_it_in_the_tree(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The order, not the links, may differ too: an element in a table but in no cell
    is put before the table by the Standard's tree (as a browser shows it)."""
    body = (b'<table><tr><td><a href="1.html">1</a></td></tr>'
            b'<a href="2.html">2</a></table>')
    one, two = Link("http://h/1.html", PAGE, "1"), Link("http://h/2.html", PAGE, "2")
    assert html_links(body, url="http://h/") == [two, one]
    monkeypatch.setattr(html_links_module, "TREE_MAX", 0)
    assert html_links(body, url="http://h/") == [one, two]


def test_unparseable_html_finds_what_it_can() -> None:
    body = b'<a href="ok.html">ok</a><a href="x.html'  # cut in the middle of a tag
    assert urls(html_links(body, url="http://h/")) == ["http://h/ok.html"]
    assert html_links(b"\x00\xff<<<>>>&&&", url="http://h/") == []


# -- Gopher menus ------------------------------------------------------------------------------

MENU = (
    b"iWelcome to the test menu\t\terror.host\t1\r\n"
    b"i\tfake\t(NULL)\t0\r\n"
    b"1Documents\t/docs\tgopher.example.org\t70\r\n"
    b"0About this server\t/about.txt\tgopher.example.org\t70\t+\r\n"
    b"+Mirror of the above\t/about.txt\tmirror.example.org\t70\r\n"
    b"9A binary\t/bin/file name.dat\tgopher.example.org\t7070\r\n"
    b"gA picture\t/pic.gif\tgopher.example.org\t70\r\n"
    b"IAn image\t/img;1.png\tgopher.example.org\t70\r\n"
    b"hThe web site\tURL:http://www.example.org/a b/\tgopher.example.org\t70\r\n"
    b"hA secure site\tURL:https://secure.example.org/\tgopher.example.org\t70\r\n"
    b"hAn ftp link\tURL:ftp://ftp.example.org/pub/\tgopher.example.org\t70\r\n"
    b"hMail us\tURL:mailto:admin@example.org\tgopher.example.org\t70\r\n"
    b"hAn HTML file here\t/index.html\tgopher.example.org\t70\r\n"
    b"8A telnet session\tguest\tbbs.example.org\t23\r\n"
    b"TA tn3270 session\t\tibm.example.org\t23\r\n"
    b"2A phone book\t\tcso.example.org\t105\r\n"
    b"3An error\terror\terror.host\t1\r\n"
    b"7Search the docs\t/search\tgopher.example.org\t70\r\n"
    b"0A form\t/form\tgopher.example.org\t70\t?\r\n"
    b"1Elsewhere\t\tother.example.org\t70\r\n"
    b"not a menu line at all\r\n"
    b"0Bad host\t/x\tbad host\t70\r\n"
    b".\r\n"
)


def menu_links(body: bytes, content_type: str = "application/gopher-menu",
               kind: str = "menu") -> list[Link]:
    handler = GopherHandler(CONFIG)
    return handler.links(info("gopher://gopher.example.org/1/", kind, content_type), body)


def test_gopher_menu_items() -> None:
    assert menu_links(MENU) == [
        Link("gopher://gopher.example.org/1/docs", PAGE, "Documents"),
        Link("gopher://gopher.example.org/0/about.txt", FILE, "About this server",
             more=("gopher://gopher.example.org/0/about.txt%09%09!",)),  # a Gopher+ item
        Link("gopher://gopher.example.org:7070/9/bin/file%20name.dat", FILE, "A binary"),
        Link("gopher://gopher.example.org/g/pic.gif", FILE, "A picture"),
        Link("gopher://gopher.example.org/I/img;1.png", FILE, "An image"),
        Link("http://www.example.org/a%20b/", PAGE, "The web site"),
        Link("https://secure.example.org/", PAGE, "A secure site"),
        Link("gopher://gopher.example.org/h/index.html", FILE, "An HTML file here"),
        # a +ASK form: its attribute block, which holds the form (issue 19.6)
        Link("gopher://gopher.example.org/0/form%09%09!", FILE, "A form"),
        Link("gopher://other.example.org/1", PAGE, "Elsewhere"),
    ]


def test_gopher_menu_in_any_line_ending_and_framing() -> None:
    lf = MENU.replace(b"\r\n", b"\n").removesuffix(b".\n")
    plus = b"+-1\r\n" + MENU  # a Gopher+ answer's header line, as raw keeps it
    assert menu_links(lf) == menu_links(MENU) == menu_links(plus)


def test_gopher_rendered_menus_and_other_items_have_no_links() -> None:
    assert menu_links(MENU, content_type="text/plain; charset=utf-8") == []
    assert menu_links(MENU, content_type="application/json") == []
    assert menu_links(MENU, kind="file") == []
    assert menu_links(b"x" * 70_000) == []  # one line longer than any menu line


# -- FTP listings ------------------------------------------------------------------------------

MLSD = (
    b"type=cdir;modify=20240101000000;perm=el; .\r\n"
    b"type=pdir;modify=20240101000000;perm=el; ..\r\n"
    b"type=dir;modify=20240101000000;perm=el; sub dir\r\n"
    b"type=file;size=21;modify=20240101000000;perm=r; with space.txt\r\n"
    b"Type=File;Size=25; semi;colon.txt\r\n"
    b"type=file;size=4; per%cent.txt\r\n"
    b"type=OS.unix=slink:/etc;perm=r; link\r\n"
    b"type=file;size=3;  leading space\r\n"
    b"not an entry\r\n"
    b"\r\n"
)


def test_parse_mlsd() -> None:
    entries = parse_mlsd(MLSD)
    assert [(e.name, e.is_directory) for e in entries] == [
        ("sub dir", True), ("with space.txt", False), ("semi;colon.txt", False),
        ("per%cent.txt", False), ("link", False), (" leading space", False)]
    assert dict(entries[1].facts)["size"] == "21"
    assert dict(entries[2].facts) == {"type": "File", "size": "25"}
    assert dict(entries[4].facts)["type"] == "OS.unix=slink:/etc"


def test_parse_nlst() -> None:
    assert parse_nlst(b"a.txt\npub/b.txt\n.\n..\n\nsub/\nwith space\r\n") == [
        ListEntry("a.txt"), ListEntry("b.txt"), ListEntry("sub"), ListEntry("with space")]


def test_parse_list_unix_form() -> None:
    body = (b"total 12\r\n"
            b"drwxr-xr-x    2 1000     1000         4096 Nov 25 05:03 nested\r\n"
            b"-rw-r--r--    1 1000     1000           21 Nov 25  2020 with space.txt\r\n"
            b"lrwxrwxrwx    1 0        0               3 Jan  1 00:00 ln -> target\r\n"
            b"-rw-r--r--    1 ftp              25 Jan  1 00:00 no-group\r\n"
            b"drwxr-xr-x    2 0        0            4096 Jan  1 00:00 .\r\n"
            b"11-25-26  05:03AM       <DIR>          dos-form\r\n")
    assert [(e.name, e.is_directory, e.target) for e in parse_list(body)] == [
        ("nested", True, None), ("with space.txt", False, None), ("ln", False, "target"),
        ("no-group", False, None), ("dos-form", True, None)]


def ftp_links(url: str, body: bytes, command: str | None, kind: str = "directory") -> list[Link]:
    extra = {} if command is None else {"command": command}
    return FTPHandler(CONFIG).links(info(url, kind, "text/plain", **extra), body)


def test_ftp_mlsd_links() -> None:
    assert ftp_links("ftp://u:p@ftp.example.org/pub/;type=d", MLSD, "MLSD") == [
        Link("ftp://u:p@ftp.example.org/pub/sub%20dir/", PAGE, "sub dir"),
        Link("ftp://u:p@ftp.example.org/pub/with%20space.txt", FILE, "with space.txt",
             size=21, modified=1704067200.0),  # the facts a refreshed mirror compares
        Link("ftp://u:p@ftp.example.org/pub/semi%3Bcolon.txt", FILE, "semi;colon.txt",
             size=25),
        Link("ftp://u:p@ftp.example.org/pub/per%25cent.txt", FILE, "per%cent.txt", size=4),
        Link("ftp://u:p@ftp.example.org/pub/link", FILE, "link"),
        Link("ftp://u:p@ftp.example.org/pub/%20leading%20space", FILE, " leading space",
             size=3),
    ]


@pytest.mark.parametrize("url, prefix", [
    ("ftp://h", "ftp://h/"),
    ("ftp://h/", "ftp://h/"),
    ("ftp://h/pub/", "ftp://h/pub/"),
    ("ftp://h/pub;type=d", "ftp://h/pub/"),
    ("ftp://h/pub/nested", "ftp://h/pub/nested/"),  # a RETR that turned into a listing
    ("ftp://h/%2Fetc/", "ftp://h/%2Fetc/"),
    ("ftp://h/a//b/", "ftp://h/a//b/"),
    ("ftp://h:2121/a%3Bb/#frag", "ftp://h:2121/a%3Bb/"),
])
def test_ftp_links_are_segments_of_the_listed_directory(url: str, prefix: str) -> None:
    got = ftp_links(url, b"type=dir; d\r\ntype=file; f;x\r\n", "MLSD")
    assert urls(got) == [prefix + "d/", prefix + "f%3Bx"]
    for link in got:  # each parses back to the listed directory plus one name
        parts = parse(link.url).parts
        assert isinstance(parts, FTPPath)
        listed = parse(url).parts
        assert isinstance(listed, FTPPath)
        directory = (*listed.cwd, listed.name) if listed.name else listed.cwd
        assert parts.cwd[: len(directory)] == directory


def test_ftp_nlst_links_are_files() -> None:
    body = b"hello.txt\npub/readme.txt\nmany\nwith space.txt\n"
    assert ftp_links("ftp://h/pub/", body, "NLST") == [
        Link("ftp://h/pub/hello.txt", FILE, "hello.txt"),
        Link("ftp://h/pub/readme.txt", FILE, "readme.txt"),
        Link("ftp://h/pub/many", FILE, "many"),
        Link("ftp://h/pub/with%20space.txt", FILE, "with space.txt"),
    ]
    assert ftp_links("ftp://h/pub/", body, None) == ftp_links("ftp://h/pub/", body, "NLST")


def test_ftp_list_links() -> None:
    """LIST says what is a directory, a file's size and time, a link's target."""
    body = (b"drwxr-xr-x 2 0 0 4096 Nov 25  2020 sub\n"
            b"-rw-r--r-- 1 0 0 3 Nov 25  2020 f\n"
            b"-rw-r--r-- 1 0 0 5 Nov 25  2020 .dot\n"
            b"lrwxrwxrwx 1 0 0 3 Nov 25  2020 to sub -> sub\n")
    assert ftp_links("ftp://h/", body, "LIST") == [
        Link("ftp://h/sub/", PAGE, "sub"),
        Link("ftp://h/f", FILE, "f", size=3, modified=1606262400.0),
        Link("ftp://h/.dot", FILE, ".dot", size=5, modified=1606262400.0),
        Link("ftp://h/to%20sub", FILE, "to sub", size=3, modified=1606262400.0,
             target="sub")]


def test_ftp_files_have_no_links() -> None:
    assert ftp_links("ftp://h/x.txt", b"type=dir; d\r\n", None, kind="file") == []


def test_ftp_listing_option() -> None:
    assert FTPOptions().listing == "nlst"
    FTPOptions(listing="mlsd").check()
    with pytest.raises(OptionError, match="listing"):
        FTPOptions(listing="MLST").check()


def test_ftp_plan_shows_the_listing_command() -> None:
    handler = FTPHandler(CONFIG)
    nlst = handler.plan(parse("ftp://h/pub/"), FetchOptions())
    mlsd = handler.plan(parse("ftp://h/pub/"),
                        FetchOptions(schemes=(FTPOptions(listing="mlsd"),)))
    assert nlst == ["USER anonymous", "PASS ****", "PWD", "CWD pub", "EPSV", "NLST", "QUIT"]
    assert mlsd == [line if line != "NLST" else "MLSD" for line in nlst]
    named = handler.plan(parse("ftp://h/pub;type=d"),
                         FetchOptions(schemes=(FTPOptions(listing="mlsd"),)))
    assert "MLSD pub" in named
    # A file is retrieved the same way in both modes.
    assert handler.plan(parse("ftp://h/a.txt"), FetchOptions()) == handler.plan(
        parse("ftp://h/a.txt"), FetchOptions(schemes=(FTPOptions(listing="mlsd"),)))


def test_retrieval_commands_listing_verb() -> None:
    retrieval = retrieval_for(FTPPath(("pub",), "", None))
    assert [c.display() for c in retrieval_commands(retrieval, listing="MLSD")] == [
        "CWD pub", "EPSV", "MLSD"]
    assert [c.display() for c in retrieval_commands(retrieval)] == ["CWD pub", "EPSV", "NLST"]


# -- news ----------------------------------------------------------------------------------------

OVER = (
    b"1\tFirst article\tA <a@example.org>\tSat, 01 Jan 2000 00:00:01 +0000\t<article1@x.test>"
    b"\t\t318\t1\tXref: h x.test:1\r\n"
    b"2\tDots\tA <a@example.org>\tSat, 01 Jan 2000 00:00:02 +0000\t<article2@x.test>\t\t342\t5\r\n"
    b"3\t No id \tA\tdate\tnot-a-message-id\t\t1\t1\r\n"
    b"garbage line\r\n"
)


def news_links(url: str, body: bytes, content_type: str = "text/plain",
               **extra: Any) -> list[Link]:
    extra = {"server": "news.example.org:1119", "group": "x.test", **extra}
    return NewsHandler(CONFIG).links(info(url, "directory", content_type, **extra), body)


def test_nntp_group_listing_links_articles_by_number() -> None:
    assert news_links("nntp://news.example.org:1119/x.test", OVER) == [
        Link("nntp://news.example.org:1119/x.test/1", FILE, "First article"),
        Link("nntp://news.example.org:1119/x.test/2", FILE, "Dots"),
        Link("nntp://news.example.org:1119/x.test/3", FILE, "No id"),
    ]


def test_news_group_listing_links_articles_by_message_id() -> None:
    assert urls(news_links("news:x.test", OVER)) == [
        "news:article1@x.test", "news:article2@x.test",
        "nntp://news.example.org:1119/x.test/3"]  # no message-id: the listing server's
    assert urls(news_links("news://news.example.org:1119/x.test", OVER))[:2] == [
        "news://news.example.org:1119/article1@x.test",
        "news://news.example.org:1119/article2@x.test"]


def test_news_group_list_links_groups() -> None:
    body = b"x.test 3 1 y\r\ncomp.lang.python 10 2 m\r\nbad\r\n"
    assert news_links("news:*", body, group=None) == [
        Link("news:x.test", PAGE, "x.test"), Link("news:comp.lang.python", PAGE,
                                                  "comp.lang.python")]


def test_news_renderings_and_articles_have_no_links() -> None:
    assert news_links("news:x.test", OVER, "text/plain; charset=utf-8") == []
    assert news_links("news:x.test", OVER, "application/json") == []
    handler = NewsHandler(CONFIG)
    assert handler.links(info("news:article1@x.test", "article", "message/rfc822"), OVER) == []


# -- file, prospero, wais --------------------------------------------------------------------------


def test_file_directory_links() -> None:
    body = b"a.txt\nsub dir/\nsemi;colon\n\xe9t\xe9\n"
    got = FileHandler(CONFIG).links(info("file:///srv/data", "directory", "text/plain"), body)
    assert got == [
        Link("file:///srv/data/a.txt", FILE, "a.txt"),
        Link("file:///srv/data/sub%20dir/", PAGE, "sub dir"),
        Link("file:///srv/data/semi%3Bcolon", FILE, "semi;colon"),
        Link("file:///srv/data/%E9t%E9", FILE, "\xe9t\xe9"),
    ]
    root = FileHandler(CONFIG).links(info("file://localhost/", "directory"), b"etc/\n")
    assert root == [Link("file://localhost/etc/", PAGE, "etc")]


def test_prospero_directory_and_report_links() -> None:
    record = {"links": [
        {"name": "README", "target": "FILE", "url": "prospero://p.example.org//pub/README"},
        {"name": "many", "target": "DIRECTORY", "url": "prospero://p.example.org//pub/many"},
        {"name": "ext", "target": "EXTERNAL", "url": None},
    ], "access_methods": [
        {"method": "AFTP ...", "url": "ftp://p.example.org/pub/readme.txt;type=a"},
        {"method": "LOCAL ...", "url": "file:///pub/readme.txt"},
        {"method": "TELNET ...", "url": "telnet://p.example.org/"},
        {"method": "NFS ...", "url": None},
    ]}
    handler = ProsperoHandler(CONFIG)
    directory = handler.links(info("prospero://p.example.org//pub", "directory",
                                   prospero=record), b"report text")
    assert directory == [Link("prospero://p.example.org//pub/README", FILE, "README"),
                         Link("prospero://p.example.org//pub/many", PAGE, "many")]
    report = handler.links(info("prospero://p.example.org//pub/README", "report",
                                prospero=record), b"report text")
    assert report == [Link("ftp://p.example.org/pub/readme.txt;type=a", FILE, "AFTP ...")]
    assert handler.links(info("prospero://p.example.org//pub", "directory"), b"") == []


def test_wais_search_links() -> None:
    record = {"documents": [
        {"url": "wais://w.example.org/db/TEXT/%01%02", "headline": " gopher.txt  "},
        {"url": "wais://w.example.org/db/GIF/%03", "headline": None},
    ]}
    handler = WAISHandler(CONFIG)
    assert handler.links(info("wais://w.example.org/db?gopher", "directory", wais=record),
                         b"listing") == [
        Link("wais://w.example.org/db/TEXT/%01%02", FILE, "gopher.txt"),
        Link("wais://w.example.org/db/GIF/%03", FILE, None)]
    assert handler.links(info("wais://w.example.org/db/TEXT/%01", "file", wais=record),
                         b"text") == []


async def _gateway_links() -> list[Link]:
    config = Config(gateways={"wais": "http://gateway.example.org:8080/"})
    async with Resolver(config) as resolver:
        url = resolver.admit("wais://w.example.org/db?x")
        handler = resolver.handler_for(url)
        page = ResourceInfo(url=url, content_type="text/html", kind="file")
        return handler.links(page, b'<a href="/db/TEXT/%01">doc</a>')


@pytest.mark.anyio
async def test_a_gateway_page_is_read_as_html() -> None:
    assert await _gateway_links() == [Link("wais://w.example.org/db/TEXT/%01", PAGE, "doc")]


# -- never raises, always URLs ------------------------------------------------------------------

LISTING_TOKENS = [b"<a href=\"", b"\">", b"</a>", b"<base href=", b"<img src=", b"'", b"\"",
                  b"#", b"?", b"%", b"%zz", b"//", b"/", b"..", b"http:", b"ftp://h", b"[",
                  b"]", b":99999", b"\t", b"\r\n", b"\n", b" ", b"type=dir;", b"type=file;",
                  b"1Menu\tsel\thost\t70\r\n", b"hX\tURL:http://h/\th\t70\r\n", b"URL:",
                  b"\xe9", b"\x00", b"\xff", b"1\tsubject\tfrom\tdate\t<id@h>\t\t1\t1\r\n",
                  b"g 3 1 y\r\n", b"drwxr-xr-x 1 a b 1 Jan 1 2000 d\n", b"@", b";"]
BODIES = st.one_of(st.binary(max_size=300),
                   st.lists(st.sampled_from(LISTING_TOKENS), max_size=60).map(b"".join))
CASES = [
    (HTTPHandler, "http://h/a/b.html", "page", "text/html", {}),
    (GopherHandler, "gopher://h/1/", "menu", "application/gopher-menu", {}),
    (FTPHandler, "ftp://h/pub/", "directory", "text/plain", {"command": "MLSD"}),
    (FTPHandler, "ftp://h/pub/", "directory", "text/plain", {"command": "NLST"}),
    (FTPHandler, "ftp://h/pub/", "directory", "text/plain", {"command": "LIST"}),
    (NewsHandler, "news:g", "directory", "text/plain", {"server": "h", "group": "g"}),
    (NewsHandler, "news:*", "directory", "text/plain", {"server": "h"}),
    (NewsHandler, "nntp://h/g", "directory", "text/plain", {"server": "h", "group": "g"}),
    (FileHandler, "file:///srv/", "directory", "text/plain", {}),
]


@settings(max_examples=150, deadline=None)
@given(case=st.sampled_from(CASES), body=BODIES)
def test_links_never_raise_and_give_urls(case: Any, body: bytes) -> None:
    handler_class, url, kind, content_type, extra = case
    links = handler_class(CONFIG).links(info(url, kind, content_type, **extra), body)
    assert len({link.url for link in links}) == len(links)
    for link in links:
        assert link.kind in (PAGE, FILE)
        assert "#" not in link.url
        assert str(parse(link.url)) == link.url  # absolute URL text, as the parser writes it


@pytest.mark.parametrize(("body", "content_type", "extra"), [
    (HTML, "text/html; charset=utf-8", {}),
    (b"\xef\xbb\xbf" + HTML, "text/html", {}),  # a BOM
    (b'<a href="caf\xe9.html">caf\xe9</a>', "text/html", {}),  # not UTF-8: read whole
    (b'<a href="caf\xe9.html">caf\xe9</a>', "text/html; charset=iso-8859-1", {}),
    # the first octet that is not UTF-8 in the third piece of the feed
    (b'<a href="a.html">a</a>' + b" " * (600 << 10) + b'<a href="\xe9.html">x</a>',
     "text/html", {}),
    (b'<a href="a.html">' + "\u00e9".encode() * (300 << 10) + b'</a>', "text/html", {}),
    (gzip.compress(b'<a href="x.html">x</a>'), "text/html",
     {"content_encoding": "gzip", "decoded": False}),
    (b"", "text/html", {}),
    (b'@import "a.css"; p { background: url(b.png) }', "text/css", {}),
])
def test_links_read_from_the_file_are_the_links_of_its_bytes(
        tmp_path: Path, body: bytes, content_type: str, extra: dict[str, Any]) -> None:
    """A mirror reads a page's links from its saved file a piece at a time
    (``links_from_file``): the very links :meth:`links` finds in its bytes."""
    handler = HTTPHandler(CONFIG)
    page = info("http://h/p/", content_type=content_type, **extra)
    saved = tmp_path / "page"
    saved.write_bytes(body)
    assert handler.streams_links(page) == content_type.startswith("text/html")
    with saved.open("rb") as f:
        assert handler.links_from_file(page, f) == handler.links(page, body)


class _Recording(io.BufferedReader):
    """A saved page that remembers the largest piece read from it."""

    largest = 0

    def read(self, size: int | None = -1, /) -> bytes:
        chunk = super().read(size)
        self.largest = max(self.largest, len(chunk))
        return chunk


def test_a_big_saved_page_is_pulled_by_the_parser_a_piece_at_a_time(tmp_path: Path) -> None:
    """libxml2 pulls a big page from its file (its push parser would keep a copy of
    every byte fed to it): never the page whole, and the same links as its bytes."""
    body = b"".join(b'<p><a href="p%d.html">page %d</a></p>\n' % (i, i) for i in range(40000))
    saved = tmp_path / "page"
    saved.write_bytes(body)
    handler = HTTPHandler(CONFIG)
    page = info("http://h/p/", content_type="text/html")
    with _Recording(io.FileIO(saved)) as f:
        links = handler.links_from_file(page, f)
        assert f.largest < 256 << 10 < len(body)
    assert len(links) == 40000
    assert links == handler.links(page, body)


def test_a_handler_reads_a_saved_file_whole_by_default(tmp_path: Path) -> None:
    handler = GopherHandler(CONFIG)
    menu = ResourceInfo(url=parse("gopher://g/1/"), kind="menu")
    saved = tmp_path / "menu"
    saved.write_bytes(b"1Docs\t/docs\tg\t70\r\n.\r\n")
    assert not handler.streams_links(menu)
    with saved.open("rb") as f:
        assert handler.links_from_file(menu, f) == handler.links(menu, saved.read_bytes())
