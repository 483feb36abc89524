"""The http and https schemes' descriptors (RFC 1738 3.3; https as users expect it)."""

from __future__ import annotations

import dataclasses

from anyurl.registry.spec import Crawl, DemoCase, DemoServer, SchemeSpec
from anyurl.schemes.http.flags import FLAGS
from anyurl.schemes.http.view import HTTPPath, http_path
from anyurl.url.charset import decode
from anyurl.url.model import URL
from anyurl.url.segments import without_dot_segments

__all__ = ["HTTPS_SPEC", "SPEC", "SPECS", "TRANSIENT_HTTP_STATUSES"]


def _parts(url: URL) -> HTTPPath:
    parts = url.parts
    return parts if isinstance(parts, HTTPPath) else http_path(url.path)


def _local_name(url: URL) -> str:
    hpath = _parts(url).hpath or ""
    return decode(hpath.rstrip("/").rsplit("/", 1)[-1])  # split on real slashes, then decode


def _tree_path(url: URL) -> tuple[list[str], bool]:
    parts = _parts(url)
    hpath = parts.hpath or ""
    segments = [decode(s) for s in hpath.split("/")]
    if parts.search is not None and segments:  # the query in the name (page@q=1), as wget
        segments[-1] = f"{segments[-1]}@{decode(parts.search)}"
    return segments, hpath == "" or hpath.endswith("/")


def _canonical(url: URL) -> URL:
    query = (url.path or "").find("?")
    return without_dot_segments(url, query if query >= 0 else None)


#: HTTP statuses worth retrying: 408 Request Timeout, 425 Too Early, 429 Too Many
#: Requests, 500, 502, 503, 504 (the set curl's ``--retry`` uses, plus 425).
TRANSIENT_HTTP_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})

SPEC = SchemeSpec(
    names=("http",),
    handler="anyurl.schemes.http.handler:HTTPHandler",
    summary="web pages and files (HTTP/1.1 over h11, HTTP/2 over h2)",
    example="http://example.org/",
    default_port=80,
    view=lambda url: http_path(url.path),
    view_module="anyurl.schemes.http.view",
    cli_hints={"Give a user and password in the URL (http://user:password@host/) if the "
               "server wants a login.":
               "Give a login with -u USER[:PASSWORD] (or --netrc) if the server wants one."},
    options_module="anyurl.schemes.http.options",
    flags=FLAGS,
    local_name=_local_name,
    host_prefixes=("",),  # curl's guess for a host written without a scheme
    login=True,
    proxied=True,
    transient_status=TRANSIENT_HTTP_STATUSES.__contains__,
    warc_record="response",
    replay="anyurl.schemes.http.replay",
    crawl=Crawl(index_name="index.html", called="a site",
                path_key=lambda url: "/" + (_parts(url).hpath or ""),
                canonical=_canonical, family="http", tree_path=_tree_path, robots=True,
                revalidates=True),
    demo=(DemoCase("http://127.0.0.1:{port}/hello.txt", "GET over h11",
                   DemoServer("anyurl.schemes.http.loopback", ("--root", "{data}"))),),
)
HTTPS_SPEC = dataclasses.replace(SPEC, names=("https",), default_port=443, demo=(),
                                 plain_names={"https": "http"}, host_prefixes=(),
                                 summary="web pages and files over TLS")
SPECS = (SPEC, HTTPS_SPEC)
