"""links() against the real peers: what a recursive mirror sees, on asyncio and trio.

Each test fetches a listing as a mirror does (``FetchOptions(raw=True)``), asks the handler
that served it for its links, and follows them: the URLs must fetch the files of the data
root (tests/peers/data.py), byte for byte. A walk over a whole tree (MLSD, nginx's
autoindex, file:) must find every file of the data root and nothing else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from anyurl.links import FILE, PAGE, Link
from anyurl.options import FTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.prospero.loopback import MANY_COUNT as PROSPERO_MANY
from anyurl.schemes.wais.loopback import DATABASE
from anyurl.url import FTPPath, parse
from tests.peers import data
from tests.peers.table import NEWS_GROUP

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

RAW = FetchOptions(raw=True)
MLSD = FetchOptions(raw=True, schemes=(FTPOptions(listing="mlsd"),))
MLSD_PEERS = ("pure-ftpd", "pyftpdlib", "aioftp")


async def links_of(resolver: Resolver, url: str,
                   options: FetchOptions = RAW) -> tuple[list[Link], ResourceInfo]:
    async with resolver.open(url, options) as resource:
        body = await resource.read()
    info = resource.info
    return resolver.handler_for(info.url).links(info, body), info


async def fetch(url: str, options: FetchOptions = RAW) -> tuple[list[Link], ResourceInfo]:
    async with Resolver(warn=lambda _: None) as resolver:
        return await links_of(resolver, url, options)


async def read(url: str) -> bytes:
    async with Resolver(warn=lambda _: None) as resolver:
        return await resolver.fetch(url)


async def walk(start: str, options: FetchOptions, *, follow: Any) -> tuple[set[str], int]:
    """A mirror's walk: every link under ``start``; ``follow(link)`` says what to list.

    Returns the file URLs found and the number of listings read.
    """
    files: set[str] = set()
    seen = {start}
    todo = [start]
    listed = 0
    async with Resolver(warn=lambda _: None) as resolver:
        while todo:
            links, _ = await links_of(resolver, todo.pop(), options)
            listed += 1
            assert listed < 50, "the walk does not end"
            for link in links:
                if not link.url.startswith(start) or link.url in seen:
                    continue  # a parent directory, another site
                seen.add(link.url)
                if follow(link):
                    todo.append(link.url)
                else:
                    files.add(link.url)
    return files, listed


def relative(url: str, start: str) -> str:
    return unquote(url[len(start):])


def by_text(links: list[Link], text: str) -> Link:
    return next(link for link in links if (link.text or "").split("  ")[0].strip() == text)


# -- ftp -----------------------------------------------------------------------------------------


def ftp_root(peer: Any) -> str:
    return f"ftp://{peer.user}:{peer.password}@{peer.host}:{peer.port}/"


@pytest.mark.parametrize("name", MLSD_PEERS)
async def test_ftp_mlsd_root_listing(peers: Any, name: str) -> None:
    root = ftp_root(peers[name])
    links, info = await fetch(root, MLSD)
    assert info.kind == "directory" and info.extra["command"] == "MLSD"
    found = {link.url: link.kind for link in links}
    assert found[root + "hello.txt"] == FILE
    assert found[root + "bin1k.dat"] == FILE
    assert found[root + "large.dat"] == FILE
    assert found[root + "pub/"] == PAGE
    assert found[root + "many/"] == PAGE
    assert found[root + "gopherplus/"] == PAGE
    assert len(found) == 6  # no cdir or pdir entry


@pytest.mark.parametrize("name", MLSD_PEERS)
async def test_ftp_mlsd_links_fetch_the_files(peers: Any, name: str) -> None:
    links, _ = await fetch(ftp_root(peers[name]) + "pub/", MLSD)
    for path in ("pub/with space.txt", "pub/semi;colon.txt", "pub/per%cent.txt"):
        link = by_text(links, path.split("/")[1])
        assert link.kind == FILE
        assert await read(link.url) == peers.expected(path)
    nested = by_text(links, "nested")
    assert nested.kind == PAGE and nested.url.endswith("/pub/nested/")


async def test_ftp_mlsd_walk_finds_every_file(peers: Any) -> None:
    root = ftp_root(peers["pyftpdlib"])
    files, listed = await walk(root, MLSD, follow=lambda link: link.kind == PAGE)
    assert {relative(url, root) for url in files} == set(peers.files)
    assert listed == 6  # /, pub, pub/nested, pub/nested/deeper, many, gopherplus
    for url in files:  # each link names its directory's CWD steps and one name
        parts = parse(url).parts
        assert isinstance(parts, FTPPath)
        assert "/".join((*parts.cwd, parts.name)) == relative(url, root)


async def test_vsftpd_without_mlsd_lists_with_list_as_wget_does(peers: Any) -> None:
    """vsftpd answers MLSD with 500: the listing is ``LIST -a``'s, read as wget and curl
    read it (issue 30), so its directories are known as directories and its sizes and
    times come with each file; NLST (names only) is not asked."""
    peer = peers["vsftpd"]
    root = ftp_root(peer)
    trace: list[str] = []
    options = FetchOptions(raw=True, trace=trace.append,
                           schemes=(FTPOptions(listing="mlsd"),))
    links, info = await fetch(root, options)
    assert info.extra["command"] == "LIST"
    assert "> MLSD" in trace and "> LIST -a" in trace and "> NLST" not in trace
    kinds = {link.url.rstrip("/"): link.kind for link in links}
    assert {url for url in kinds} >= {
        root + name for name in ("hello.txt", "bin1k.dat", "large.dat", "pub", "many",
                                 "gopherplus")}
    assert kinds[root + "hello.txt"] == FILE and kinds[root + "many"] == PAGE
    hello = next(link for link in links if link.url == root + "hello.txt")
    assert hello.size == len(peers.expected("hello.txt")) and hello.modified is not None
    many, info = await fetch(root + "many/", RAW)
    assert info.kind == "directory"
    assert len(many) == data.MANY_COUNT
    assert await read(many[0].url) == peers.expected("many/file000.txt")


async def test_vsftpd_nlst_default_is_unchanged(peers: Any) -> None:
    trace: list[str] = []
    links, info = await fetch(ftp_root(peers["vsftpd"]) + "pub/",
                              FetchOptions(raw=True, trace=trace.append))
    assert info.extra["command"] == "NLST" and "> MLSD" not in trace
    assert {link.text for link in links} == {"readme.txt", "nested", "with space.txt",
                                             "semi;colon.txt", "per%cent.txt"}


# -- gopher --------------------------------------------------------------------------------------

GOPHERS = ("pygopherd", "gophernicus")


@pytest.mark.parametrize("name", GOPHERS)
async def test_gopher_menu_links(peers: Any, name: str) -> None:
    peer = peers[name]
    links, info = await fetch(peer.url())
    assert info.kind == "menu"
    by_url = {link.url.rstrip("/"): link.kind for link in links}
    assert by_url[peer.url("1/pub")] == PAGE
    assert by_url[peer.url("1/many")] == PAGE
    assert by_url[peer.url("0/hello.txt")] == FILE
    assert all(link.url.startswith(peer.url()) for link in links)


@pytest.mark.parametrize("name", GOPHERS)
async def test_gopher_links_fetch_the_files(peers: Any, name: str) -> None:
    peer = peers[name]
    root, _ = await fetch(peer.url())
    pub = next(link for link in root if link.url.rstrip("/") == peer.url("1/pub"))
    links, info = await fetch(pub.url)
    assert info.kind == "menu"
    for path in ("pub/readme.txt", "pub/with space.txt", "pub/semi;colon.txt"):
        filename = path.split("/")[1]
        link = by_text(links, filename if name == "gophernicus" else filename[:-4])
        assert link.kind == FILE
        expected = peers.expected(path)
        if name == "gophernicus":  # text items in CR LF, as RFC 1436 sends text
            expected = expected.replace(b"\n", b"\r\n")
        assert await read(link.url) == expected
    nested = by_text(links, "nested")
    assert nested.kind == PAGE
    deeper, _ = await fetch(nested.url)
    assert [link.kind for link in deeper if "deeper" in link.url] == [PAGE]


# -- http ----------------------------------------------------------------------------------------


async def test_nginx_autoindex_links(peers: Any) -> None:
    peer = peers["nginx"]
    links, info = await fetch(peer.url("pub/"))
    assert (info.content_type or "").startswith("text/html")
    assert {link.url for link in links} == {
        peer.url(), peer.url("pub/nested/"), peer.url("pub/per%25cent.txt"),
        peer.url("pub/readme.txt"), peer.url("pub/semi%3Bcolon.txt"),
        peer.url("pub/with%20space.txt")}
    assert by_text(links, "with space.txt").kind == PAGE  # an <a href>
    assert await read(by_text(links, "with space.txt").url) == peers.expected(
        "pub/with space.txt")


async def test_nginx_walk_finds_every_file(peers: Any) -> None:
    start = peers["nginx"].url()
    files, _ = await walk(start, RAW, follow=lambda link: link.url.endswith("/"))
    assert {relative(url, start) for url in files} == set(peers.files)


# -- news ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["news", "nntp"])
async def test_group_listing_links_fetch_the_articles(peers: Any, scheme: str) -> None:
    peer = peers["leafnode"]
    links, info = await fetch(f"{scheme}://{peer.host}:{peer.port}/{NEWS_GROUP}")
    assert info.kind == "directory"
    assert [link.text for link in links] == [subject for subject, _ in data.NEWS_ARTICLES]
    assert {link.kind for link in links} == {FILE}
    if scheme == "news":
        assert links[0].url == f"news://{peer.host}:{peer.port}/article1@anyurl.test"
    else:
        assert links[0].url == f"nntp://{peer.host}:{peer.port}/{NEWS_GROUP}/1"
    for number, link in enumerate(links, start=1):
        article = await read(link.url)
        assert f"Message-ID: {data.news_message_id(number)}".encode() in article


async def test_all_groups_link_to_the_group(peers: Any) -> None:
    peer = peers["leafnode"]
    links, _ = await fetch(f"news://{peer.host}:{peer.port}/*")
    group = f"news://{peer.host}:{peer.port}/{NEWS_GROUP}"
    assert Link(group, PAGE, NEWS_GROUP) in links
    articles, _ = await fetch(group)
    assert len(articles) == len(data.NEWS_ARTICLES)


# -- file, prospero, wais -----------------------------------------------------------------------


async def test_file_walk_finds_every_file(peers: Any) -> None:
    start = Path(peers.data_root).as_uri() + "/"
    files, _ = await walk(start, RAW, follow=lambda link: link.kind == PAGE)
    assert {relative(url, start) for url in files} == set(peers.files)
    hello = start + "hello.txt"
    assert hello in files and await read(hello) == peers.expected("hello.txt")


async def test_prospero_directory_links(peers: Any) -> None:
    peer = peers["prospero"]
    base = f"prospero://{peer.host}:{peer.port}/"
    links, info = await fetch(base + "/pub")
    assert info.kind == "directory"
    kinds = {link.text: link.kind for link in links}
    assert kinds["README"] == FILE and kinds["many"] == PAGE
    assert base + "/pub/with%20space" in {link.url for link in links}
    many, _ = await fetch(next(link.url for link in links if link.text == "many"))
    assert len(many) == PROSPERO_MANY
    # The report (not raw: raw fetches the object's file) links its access methods.
    readme, info = await fetch(base + "/pub/README", FetchOptions())
    assert info.kind == "report"
    assert [urlsplit(link.url).scheme for link in readme] == ["ftp", "gopher"]
    for hsoname in ("/pub/login", "/pub/local"):  # telnet:, and this machine's file:
        assert (await fetch(base + hsoname))[0] == []


async def test_wais_search_links_fetch_the_documents(peers: Any) -> None:
    peer = peers["wais"]
    links, info = await fetch(f"wais://{peer.host}:{peer.port}/{DATABASE}?gopher")
    assert info.kind == "directory"
    assert links and {link.kind for link in links} == {FILE}
    first = links[0]
    assert first.text is not None and first.text.startswith("gopher.txt")
    assert b"Gopher" in await read(first.url)
    catalogue, _ = await fetch(f"wais://{peer.host}:{peer.port}/{DATABASE}")
    assert [link.text for link in catalogue] == [f"Information on database: {DATABASE}",
                                                 f"Catalog for database: {DATABASE}"]
