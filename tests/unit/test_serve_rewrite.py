"""The replay's rewriting of archived HTML and CSS (anyurl.schemes.http.replay, with the
gateway's addresses of anyurl.serve.site): every URL a
page or stylesheet loads or links to leads into the replay, nothing else changes."""

from __future__ import annotations

import pytest

from anyurl.schemes.http.replay import (
    rewrite_body,
    rewrite_css,
    rewrite_html,
    rewrite_refresh,
    rewrite_srcset,
)
from anyurl.serve.site import UrlMap

TS = "20240102030405"
PAGE = "http://site.example/dir/page.html"
URLS = UrlMap(PAGE, TS)


def r(url: str) -> str:
    """The replay address of an absolute http(s) URL."""
    return f"/_replay/{TS}/{url}"


@pytest.mark.parametrize(("ref", "expected"), [
    ("style.css", r("http://site.example/dir/style.css")),
    ("../up.png", r("http://site.example/up.png")),
    ("/root.js", r("http://site.example/root.js")),
    ("//cdn.example/lib.js", r("http://cdn.example/lib.js")),
    ("https://other.example/a?b=1&c=2", r("https://other.example/a?b=1&c=2")),
    ("  page2.html\n", r("http://site.example/dir/page2.html")),
    ("sp ace.png", r("http://site.example/dir/sp%20ace.png")),
    ("caf\u00e9.png", r("http://site.example/dir/caf%C3%A9.png")),
    ("page2.html#part", r("http://site.example/dir/page2.html") + "#part"),
    ("http://never.archived.example/x.css", r("http://never.archived.example/x.css")),
    ("#top", "#top"),
    ("", ""),
    ("data:image/png;base64,AAAA", "data:image/png;base64,AAAA"),
    ("javascript:void(0)", "javascript:void(0)"),
    ("mailto:someone@example.org", "mailto:someone@example.org"),
    ("blob:http://site.example/1234", "blob:http://site.example/1234"),
])
def test_url_forms(ref: str, expected: str) -> None:
    assert URLS.url(ref) == expected


def test_other_schemes_lead_to_the_gateways_own_pages() -> None:
    assert URLS.url("ftp://ftp.example/pub/", embed=False) == "/ftp://ftp.example/pub/"
    assert URLS.url("gopher://g.example/I/x.png") == "/_raw/gopher://g.example/I/x.png"


@pytest.mark.parametrize(("tag", "expected"), [
    ('<a href="next.html">', f'<a href="{r("http://site.example/dir/next.html")}">'),
    ("<area href=map.html>", f'<area href="{r("http://site.example/dir/map.html")}">'),
    ("<link rel=stylesheet href='s.css'>",
     f'<link rel="stylesheet" href="{r("http://site.example/dir/s.css")}">'),
    ('<script src="a.js"></script>', f'<script src="{r("http://site.example/dir/a.js")}">'
     "</script>"),
    ('<img src="i.png" alt="x">', f'<img src="{r("http://site.example/dir/i.png")}" alt="x">'),
    ('<img src="i.png"/>', f'<img src="{r("http://site.example/dir/i.png")}" />'),
    ('<iframe src="f.html"></iframe>',
     f'<iframe src="{r("http://site.example/dir/f.html")}"></iframe>'),
    ('<form action="/post" method="post">',
     f'<form action="{r("http://site.example/post")}" method="post">'),
    ('<button formaction="go">', f'<button formaction="{r("http://site.example/dir/go")}">'),
    ('<video poster="p.jpg" src="v.mp4">',
     f'<video poster="{r("http://site.example/dir/p.jpg")}" '
     f'src="{r("http://site.example/dir/v.mp4")}">'),
    ('<object data="o.swf">', f'<object data="{r("http://site.example/dir/o.swf")}">'),
    ('<div data="not-a-url">', '<div data="not-a-url">'),
    ('<body background="bg.gif">', f'<body background="{r("http://site.example/dir/bg.gif")}">'),
    ('<td background="cell.gif">', f'<td background="{r("http://site.example/dir/cell.gif")}">'),
    ('<svg><image xlink:href="s.svg"/></svg>',
     f'<svg><image xlink:href="{r("http://site.example/dir/s.svg")}" /></svg>'),
    ('<a href="?q=a&amp;b">', f'<a href="{r("http://site.example/dir/page.html?q=a&amp;b")}">'),
])
def test_every_attribute_form(tag: str, expected: str) -> None:
    assert rewrite_html(tag, URLS) == expected


def test_tags_without_urls_and_everything_else_are_kept_byte_for_byte() -> None:
    page = ("<!DOCTYPE html>\n<HTML><head><TITLE>T &amp; t</TITLE>\n"
            "<!-- <img src='c.png'> -->\n<script>var s = '<img src=x.png>';</script>\n"
            "<p CLASS=x>caf\u00e9 &eacute; &#233;</p></HTML>\n")
    assert rewrite_html(page, URLS) == page


def test_srcset_candidates() -> None:
    assert rewrite_srcset("a.png 1x, b,c.png 2x,d.png,  e.png 640w", URLS) == ", ".join([
        r("http://site.example/dir/a.png") + " 1x", r("http://site.example/dir/b,c.png") + " 2x",
        r("http://site.example/dir/d.png"), r("http://site.example/dir/e.png") + " 640w"])
    html = '<img srcset="x.png 1x"><link rel=preload imagesrcset="y.png 2x">'
    assert rewrite_html(html, URLS) == (
        f'<img srcset="{r("http://site.example/dir/x.png")} 1x">'
        f'<link rel="preload" imagesrcset="{r("http://site.example/dir/y.png")} 2x">')


def test_base_href_applies_to_every_url_and_is_rewritten() -> None:
    html = '<link href="a.css"><base href="/other/"><img src="b.png">'
    assert rewrite_html(html, URLS) == (
        f'<link href="{r("http://site.example/other/a.css")}">'
        f'<base href="{r("http://site.example/other/")}">'
        f'<img src="{r("http://site.example/other/b.png")}">')


def test_meta_refresh() -> None:
    assert rewrite_refresh("5; URL='next.html'", URLS) == (
        f"5; URL='{r('http://site.example/dir/next.html')}'")
    assert rewrite_refresh("0;url=/x", URLS) == f"0;url={r('http://site.example/x')}"
    assert rewrite_refresh("30", URLS) == "30"
    html = '<meta http-equiv="Refresh" content="1; url=n.html">'
    assert rewrite_html(html, URLS) == (
        f'<meta http-equiv="Refresh" content="1; url={r("http://site.example/dir/n.html")}">')
    kept = '<meta name="description" content="see next.html">'
    assert rewrite_html(kept, URLS) == kept


def test_integrity_and_a_meta_policy_are_renamed() -> None:
    html = ('<link rel=stylesheet href="s.css" integrity="sha384-x">'
            '<meta http-equiv="Content-Security-Policy" content="default-src https:">')
    out = rewrite_html(html, URLS)
    assert 'data-archived-integrity="sha384-x"' in out and " integrity=" not in out
    assert 'data-archived-http-equiv="Content-Security-Policy"' in out


def test_style_elements_attributes_and_srcdoc() -> None:
    html = ("<style>\nbody { background: url(bg.png) }\n</style>"
            "<p style=\"background-image: url('p.png')\">"
            "<iframe srcdoc=\"<img src='i.png'>\"></iframe>")
    assert rewrite_html(html, URLS) == (
        f'<style>\nbody {{ background: url("{r("http://site.example/dir/bg.png")}") }}\n'
        f"</style>"
        f'<p style="background-image: url(&quot;{r("http://site.example/dir/p.png")}&quot;)">'
        f'<iframe srcdoc="&lt;img src=&quot;{r("http://site.example/dir/i.png")}&quot;&gt;">'
        "</iframe>")


def test_css_url_forms_and_import() -> None:
    css = ("@import 'theme.css';\r\n@import url(print.css) print;\r\n"
           "@IMPORT \"/abs.css\";\n"
           "a { background: URL( \"q.png\" ) no-repeat; b: url(//cdn.example/f.woff) }\n"
           "c { d: image-set(\"x.png\" 1x, url(y.png) 2x); e: url(data:image/gif;base64,R0) }\n"
           "/* url(comment.png) @import 'no.css'; */ f { content: \"url(string.png)\" }\n")
    assert rewrite_css(css, URLS) == (
        f'@import "{r("http://site.example/dir/theme.css")}";\r\n'
        f'@import url("{r("http://site.example/dir/print.css")}") print;\r\n'
        f'@IMPORT "{r("http://site.example/abs.css")}";\n'
        f'a {{ background: URL( "{r("http://site.example/dir/q.png")}" ) no-repeat; '
        f'b: url("{r("http://cdn.example/f.woff")}") }}\n'
        f'c {{ d: image-set("{r("http://site.example/dir/x.png")}" 1x, '
        f'url("{r("http://site.example/dir/y.png")}") 2x); '
        'e: url("data:image/gif;base64,R0") }\n'
        "/* url(comment.png) @import 'no.css'; */ f { content: \"url(string.png)\" }\n")


def test_css_escapes_and_positions_after_line_ends() -> None:
    css = "a{}\r\rb{}\fc{background:url(x\\).png)}\nd{background:url('y\\'z.png')}"
    quoted = r("http://site.example/dir/y'z.png")
    assert rewrite_css(css, URLS) == (
        f'a{{}}\r\rb{{}}\fc{{background:url("{r("http://site.example/dir/x).png")}")}}\n'
        f'd{{background:url("{quoted}")}}')


def test_body_keeps_its_charset_and_undecodable_bytes() -> None:
    latin = b'<meta charset="iso-8859-1"><a href="caf\xe9.html">caf\xe9 \x81</a>'
    out = rewrite_body(latin, "text/html", "html", URLS)
    assert out == (b'<meta charset="iso-8859-1"><a href="' + r(
        "http://site.example/dir/caf%C3%A9.html").encode() + b'">caf\xe9 \x81</a>')
    utf8 = b'<img src="a.png"> \xff\xfe broken \xc3\xa9'
    assert rewrite_body(utf8, "text/html; charset=utf-8", "html", URLS) == (
        b'<img src="' + r("http://site.example/dir/a.png").encode() + b'"> \xff\xfe broken '
        b"\xc3\xa9")
    entity = b'<a href="x.html" title="&#8364;">'
    assert rewrite_body(entity, "text/html; charset=iso-8859-1", "html", URLS) == (
        b'<a href="' + r("http://site.example/dir/x.html").encode() + b'" title="&#8364;">')
    untouched = b"<p>nothing to rewrite \xff</p>"
    assert rewrite_body(untouched, None, "html", URLS) is untouched


def test_css_body_in_its_charset() -> None:
    css = '@charset "windows-1252";\n.a:before{content:"\x80"}.b{background:url(b.png)}'
    out = rewrite_body(css.encode("latin-1"), "text/css", "css", URLS)
    assert out == (b'@charset "windows-1252";\n.a:before{content:"\x80"}.b{background:url("'
                   + r("http://site.example/dir/b.png").encode() + b'")}')
