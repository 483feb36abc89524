"""A mirror fed by a hostile site: links that try to leave the tree, reach a port of
another protocol, read local files, or plant credentials in the archive.

The site is the scripted HTTP server of tests/integration/test_http.py. Whatever its
pages name, the mirror writes only under its directory, connects to no refused port
(the resolver's gate is on every link), reads no ``file:`` URL a remote page names, and
its WARC and manifest carry no password.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.integration.test_http import Reply, Request, ScriptedServer

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    yield srv
    srv.close()


def mirror(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               NETRC=os.devnull)
    return subprocess.run([sys.executable, "-m", "anyurl", "mirror", "--wait", "0",
                           "--retry", "0", *args], capture_output=True, timeout=60, env=env)


def html(body: str) -> Reply:
    return Reply(headers=[("Content-Type", "text/html")], body=body.encode())


def test_links_cannot_leave_the_tree_reach_port_25_or_read_local_files(
        server: ScriptedServer, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("local secret\n")
    server.routes["/site/"] = lambda q: html(
        '<a href="../../../../../../etc/passwd">up</a>'
        '<a href="%2e%2e/%2e%2e/%2e%2e/escape.txt">escaped dots</a>'
        '<a href="/site/..%2F..%2Fslash.txt">escaped slash</a>'
        '<a href="http://127.0.0.1:25/smtp">port 25</a>'
        f'<a href="file://{secret}">local file</a>'
        '<a href="javascript:alert(1)">js</a>'
        '<a href="page.html">fine</a>')
    server.routes["/site/page.html"] = lambda q: html("<p>ok</p>")
    server.routes["/site/..%2F..%2Fslash.txt"] = lambda q: Reply(body=b"slash\n")
    out = tmp_path / "mirror"
    r = mirror("-o", str(out), "--span-hosts", "--no-robots", server.url("/site/"))
    assert b"Traceback" not in r.stderr
    for path in tmp_path.rglob("*"):  # nothing written outside the mirror
        assert path in (secret, out) or out in path.parents, path
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert not any("secret" in w for w in written)
    assert not any(".." in Path(w).parts for w in written)
    manifest = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
    assert not any("secret" in e["url"] or e["url"].startswith("file:") for e in manifest)
    assert not any(":25/" in e["url"] for e in manifest)
    # port 25 was refused by the gate before connecting (exit 7 for that URL)
    assert b"port 25" in r.stderr and r.returncode == 7, r.stderr
    assert any(e["url"].endswith("/site/page.html") for e in manifest)


def test_no_password_reaches_the_archive_or_the_manifest(server: ScriptedServer,
                                                         tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    server.routes["/p/"] = lambda q: html('<a href="a.txt">a</a>')
    server.routes["/p/a.txt"] = lambda q: Reply(body=b"a\n")
    out, warc = tmp_path / "m", tmp_path / "m.warc.gz"
    url = server.url("/p/").replace("http://", "http://alice:hunter2@")
    r = mirror("-o", str(out), "--warc", str(warc), url)
    assert r.returncode == 0, r.stderr
    assert b"hunter2" not in (out / "manifest.jsonl").read_bytes()
    assert b"hunter2" not in r.stderr
    with open(warc, "rb") as f:
        for record in ArchiveIterator(f):
            assert "hunter2" not in (record.rec_headers.get_header("WARC-Target-URI") or "")
            block = record.content_stream().read()
            head = str(record.http_headers or "")
            assert b"hunter2" not in block and "hunter2" not in head
            assert "dW5kZWZpbmVk" not in head  # no Basic token either (masked as ****)
    # the request did carry the login to the server itself
    page = next(q for q in server.requests if q.path == "/p/")
    assert page.headers.get("authorization", "").startswith("Basic ")


def test_dot_segments_are_removed_before_the_scope(server: ScriptedServer,
                                                   tmp_path: Path) -> None:
    """``/np/../out.txt`` is ``/out.txt``: out of a crawl of ``/np/``, never requested."""
    server.routes["/np/"] = lambda q: html(
        f'<a href="{server.url("/np/../out.txt")}">absolute</a>'
        '<a href="/np/%2e%2e/out.txt">escaped</a>'
        '<a href="/np/.%2E/out.txt">half escaped</a>'
        '<a href="/np/sub/../in.txt">inside</a>')
    for path in ("/out.txt", "/np/../out.txt", "/np/%2e%2e/out.txt", "/np/.%2E/out.txt"):
        server.routes[path] = lambda q: Reply(body=b"outside\n")
    server.routes["/np/in.txt"] = lambda q: Reply(body=b"inside\n")
    out = tmp_path / "m"
    r = mirror("-o", str(out), "--no-robots", server.url("/np/"))
    assert r.returncode == 0, r.stderr
    asked = [q.path for q in server.requests]
    assert sorted(asked) == ["/np/", "/np/in.txt"], asked
    files = {p.name for p in out.rglob("*") if p.is_file()}
    assert "in.txt" in files and "out.txt" not in files


def _site(server: ScriptedServer) -> None:
    server.routes["/site/"] = lambda q: html('<a href="a.txt">a</a><a href="sub/b.txt">b</a>')
    server.routes["/site/a.txt"] = lambda q: Reply(body=b"a\n")
    server.routes["/site/sub/b.txt"] = lambda q: Reply(body=b"b\n")


def _untouched(elsewhere: Path) -> None:
    assert [p.name for p in elsewhere.iterdir()] == ["keep.txt"]
    assert (elsewhere / "keep.txt").read_bytes() == b"keep\n"


@pytest.mark.parametrize("planted", ["http", "http/127.0.0.1_PORT", "http/127.0.0.1_PORT/site",
                                     "http/127.0.0.1_PORT/site/sub"])
def test_a_directory_link_in_the_tree_is_never_followed(
        server: ScriptedServer, tmp_path: Path, planted: str) -> None:
    _site(server)
    out, elsewhere = tmp_path / "m", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_bytes(b"keep\n")
    link = out / planted.replace("PORT", str(server.port))
    link.parent.mkdir(parents=True)
    link.symlink_to(elsewhere, target_is_directory=True)
    r = mirror("-o", str(out), "--no-robots", server.url("/site/"))
    assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr, r.stderr
    assert r.returncode == 23, r.stderr
    assert b"is a symbolic link inside" in r.stderr
    _untouched(elsewhere)
    assert link.is_symlink()


@pytest.mark.parametrize("name", ["manifest.jsonl", ".anyurl-mirror.sqlite",
                                  ".anyurl-mirror.sqlite-wal", "site.warc.gz"])
@pytest.mark.parametrize("dangling", [False, True])
def test_a_link_at_the_mirrors_own_files_is_refused(
        server: ScriptedServer, tmp_path: Path, name: str, dangling: bool) -> None:
    _site(server)
    out, elsewhere = tmp_path / "m", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_bytes(b"keep\n")
    out.mkdir()
    (out / name).symlink_to(elsewhere / ("nothing" if dangling else "keep.txt"))
    r = mirror("-o", str(out), "--no-robots", "--warc", str(out / "site.warc.gz"),
               server.url("/site/"))
    assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr, r.stderr
    assert r.returncode == 23, r.stderr
    assert b"symbolic link" in r.stderr and name.encode() in r.stderr
    _untouched(elsewhere)
    assert not server.requests  # refused before the crawl began


def ranged(body: bytes) -> Callable[[Request], Reply]:
    """A file served as nginx serves it: a ``Range: bytes=N-`` is honoured (206, 416)."""
    def route(request: Request) -> Reply:
        asked = request.headers.get("range", "")
        if not asked.startswith("bytes="):
            return Reply(body=body, headers=[("Accept-Ranges", "bytes")])
        start = int(asked[6:].split("-")[0])
        if start >= len(body):
            return Reply(416, "Range Not Satisfiable",
                         headers=[("Content-Range", f"bytes */{len(body)}")])
        return Reply(206, "Partial Content", body=body[start:], headers=[
            ("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")])
    return route


def test_a_remote_part_name_never_meets_a_partial_download(
        server: ScriptedServer, tmp_path: Path) -> None:
    """``f.bin.part`` and ``f.bin`` on one page: each file keeps its own bytes."""
    server.routes["/d/"] = lambda q: html('<a href="f.bin.part">1</a><a href="f.bin">2</a>')
    server.routes["/d/f.bin.part"] = ranged(b"first file\n")
    server.routes["/d/f.bin"] = ranged(b"other file\n")
    out = tmp_path / "m"
    r = mirror("-o", str(out), "--no-robots", "-Z", "1", server.url("/d/"))
    assert r.returncode == 0, r.stderr
    base = out / "http" / f"127.0.0.1_{server.port}" / "d"
    assert (base / "f.bin.part").read_bytes() == b"first file\n"
    assert (base / "f.bin").read_bytes() == b"other file\n"
    assert not [q for q in server.requests if "range" in q.headers]


def test_a_cut_transfer_is_continued_from_the_staging_directory(
        server: ScriptedServer, tmp_path: Path) -> None:
    body = b"0123456789" * 100
    server.routes["/d/"] = lambda q: html('<a href="big.bin">big</a>')
    server.routes["/d/big.bin"] = lambda q: Reply(  # announced whole, cut after 400 bytes
        raw=b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nAccept-Ranges: bytes\r\n\r\n"
        + body[:400], close=True)
    out = tmp_path / "m"
    r = mirror("-o", str(out), "--no-robots", server.url("/d/"))
    assert r.returncode == 18, r.stderr
    staged = list((out / ".anyurl-partial").iterdir())
    assert len(staged) == 1 and staged[0].read_bytes() == body[:400]
    server.routes["/d/big.bin"] = ranged(body)
    r = mirror("-o", str(out), "--retry-failed")  # the stored crawl, as after a kill
    assert r.returncode == 0, r.stderr
    assert server.requests[-1].headers.get("range") == "bytes=400-"
    base = out / "http" / f"127.0.0.1_{server.port}" / "d"
    assert (base / "big.bin").read_bytes() == body
    assert not list((out / ".anyurl-partial").iterdir())


def test_robots_txt_is_fetched_once_per_crawl_and_host(server: ScriptedServer,
                                                       tmp_path: Path) -> None:
    links = "".join(f'<a href="f{i}.txt">{i}</a>' for i in range(12))
    server.routes["/r/"] = lambda q: html(links + '<a href="private/x.txt">x</a>'
                                          '<a href="gone.txt">gone</a>')
    for i in range(12):
        server.routes[f"/r/f{i}.txt"] = lambda q: Reply(body=b"f\n")
    server.routes["/robots.txt"] = lambda q: Reply(body=b"User-agent: *\nDisallow: /r/private/\n")
    out = tmp_path / "m"
    starts = [server.url(f"/r/f{i}.txt") for i in range(5)]  # six workers start at once
    r = mirror("-o", str(out), "-Z", "6", "--per-host", "6", server.url("/r/"), *starts)
    assert r.returncode == 22, r.stderr  # gone.txt: 404 (HTTP errors exit 22, as curl -f)
    robots = [q for q in server.requests if q.path == "/robots.txt"]
    assert len(robots) == 1, len(robots)
    assert not [q for q in server.requests if q.path.startswith("/r/private/")]
    server.routes["/r/gone.txt"] = lambda q: Reply(body=b"back\n")
    r = mirror("-o", str(out), "--retry-failed")  # resumed: the kept file is used
    assert r.returncode == 0, r.stderr
    assert [q.path for q in server.requests].count("/robots.txt") == 1
    assert any(q.path == "/r/gone.txt" for q in server.requests[len(robots):])


def test_a_server_that_cannot_be_reached_fails_the_mirror_with_its_code(
        tmp_path: Path) -> None:
    # No server answers for robots.txt: each URL fails as its fetch would (7, not
    # "disallowed by robots.txt" with exit 0, which a script took for success).
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # bound, not listening: refused
        r = mirror("-o", str(tmp_path / "m"), f"http://127.0.0.1:{port}/a/",
                   f"http://127.0.0.1:{port}/b/")
    assert r.returncode == 7, r.stderr
    assert r.stderr.count(b"could not connect") == 2 and b"robots" in r.stderr
    assert b"2 failed" in r.stderr


def test_a_redirect_is_followed_only_into_the_scope_and_recorded(
        server: ScriptedServer, tmp_path: Path) -> None:
    other = ScriptedServer()  # another host (port): out of a crawl without --span-hosts
    try:
        other.routes["/evil.txt"] = lambda q: Reply(body=b"from elsewhere\n")
        server.routes["/s/"] = lambda q: html(
            '<a href="away.txt">away</a><a href="moved.txt">moved</a>'
            '<a href="up.txt">up</a>')
        server.routes["/s/away.txt"] = lambda q: Reply(
            302, "Found", headers=[("Location", other.url("/evil.txt"))])
        server.routes["/s/up.txt"] = lambda q: Reply(
            301, "Moved Permanently", headers=[("Location", "/outside.txt")])
        server.routes["/outside.txt"] = lambda q: Reply(body=b"outside\n")
        server.routes["/s/moved.txt"] = lambda q: Reply(
            301, "Moved Permanently", headers=[("Location", "/s/new/../here.txt")])
        server.routes["/s/here.txt"] = lambda q: Reply(body=b"here\n")
        out = tmp_path / "m"
        r = mirror("-o", str(out), "--no-robots", "--warc", str(tmp_path / "r.warc"),
                   server.url("/s/"))
        assert r.returncode == 0, r.stderr
        assert not other.requests  # never connected to the other host
        assert "/outside.txt" not in [q.path for q in server.requests]
        base = out / "http" / f"127.0.0.1_{server.port}" / "s"
        assert (base / "here.txt").read_bytes() == b"here\n"  # under its own name
        assert not (base / "away.txt").exists() and not (base / "moved.txt").exists()
        assert b"from elsewhere" not in b"".join(
            p.read_bytes() for p in out.rglob("*") if p.is_file())
        lines = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
        redirects = {e["url"]: e for e in lines if e["kind"] == "redirect"}
        assert redirects[server.url("/s/away.txt")]["status"] == 302
        assert redirects[server.url("/s/away.txt")]["location"] == other.url("/evil.txt")
        assert redirects[server.url("/s/moved.txt")]["location"] == server.url("/s/here.txt")
        assert redirects[server.url("/s/up.txt")]["file"] is None
        from warcio.archiveiterator import ArchiveIterator

        with open(tmp_path / "r.warc", "rb") as f:  # the WARC holds each redirect too
            heads = {r.rec_headers.get_header("WARC-Target-URI"): r.http_headers
                     for r in ArchiveIterator(f) if r.rec_type == "response"}
        away = heads[server.url("/s/away.txt")]
        assert away is not None and away.get_statuscode() == "302"
        assert away.get_header("Location") == other.url("/evil.txt")
    finally:
        other.close()


def test_failures_are_counted_and_sampled_not_all_kept(server: ScriptedServer,
                                                       tmp_path: Path) -> None:
    """30 broken links: the summary keeps the first 20 messages and counts the rest,
    which the state holds with their errors."""
    import sqlite3

    from anyurl.mirror.engine import ERRORS_KEPT

    server.routes["/b/"] = lambda q: html("".join(f'<a href="x{i}">{i}</a>' for i in range(30)))
    out = tmp_path / "m"
    r = mirror("-o", str(out), "--no-robots", server.url("/b/"))
    assert r.returncode == 22, r.stderr  # 404s
    lines = r.stderr.decode().splitlines()
    assert len([x for x in lines if "/b/x" in x]) == ERRORS_KEPT == 20
    assert any("and 10 more failures" in x for x in lines), lines
    with sqlite3.connect(out / ".anyurl-mirror.sqlite") as db:
        kept = db.execute("SELECT COUNT(*) FROM urls WHERE status = 'failed' "
                          "AND error IS NOT NULL").fetchone()[0]
    assert kept == 30


def test_a_crawl_that_follows_nothing_says_so(server: ScriptedServer, tmp_path: Path) -> None:
    other = ScriptedServer()
    try:
        links = "".join(f'<a href="{other.url(f"/{i}")}">{i}</a>' for i in range(11))
        server.routes["/o/"] = lambda q: html(links + '<a href="/elsewhere/x">up</a>')
        r = mirror("-o", str(tmp_path / "m"), "--no-robots", server.url("/o/"))
        assert r.returncode == 0, r.stderr
        assert b"12 links found, all out of scope: see --span-hosts" in r.stderr, r.stderr
        assert not other.requests
        server.routes["/o/"] = lambda q: html(links + '<a href="in.txt">in</a>')
        server.routes["/o/in.txt"] = lambda q: Reply(body=b"in\n")
        r = mirror("-o", str(tmp_path / "n"), "--no-robots", server.url("/o/"))
        assert r.returncode == 0 and b"out of scope" not in r.stderr, r.stderr
    finally:
        other.close()


def test_credential_headers_stay_with_the_start_server(server: ScriptedServer,
                                                       tmp_path: Path) -> None:
    """-H Authorization/Cookie go to the start URL's server only, even with --span-hosts
    (issue 20): another host of the crawl gets neither, unless --location-trusted."""
    other = ScriptedServer()
    try:
        other.routes["/t.txt"] = lambda q: Reply(body=b"other\n")
        server.routes["/c/"] = lambda q: html(f'<a href="{other.url("/t.txt")}">t</a>')
        for trusted in (False, True):
            out = tmp_path / f"m{trusted}"
            r = mirror("-o", str(out), "--no-robots", "--span-hosts",
                       "-H", "Authorization: Bearer s3cret", "-H", "Cookie: id=s3cret",
                       *(["--location-trusted"] if trusted else []), server.url("/c/"))
            assert r.returncode == 0, r.stderr
            start = server.requests[-1].headers
            assert start.get("authorization") == "Bearer s3cret"
            assert start.get("cookie") == "id=s3cret"
            elsewhere = other.requests[-1].headers
            assert ("authorization" in elsewhere) is trusted
            assert ("cookie" in elsewhere) is trusted
    finally:
        other.close()


def test_a_robots_crawl_delay_spaces_the_requests_to_its_host(server: ScriptedServer,
                                                              tmp_path: Path) -> None:
    """No pause by default, but a robots.txt Crawl-delay is a pause between two requests
    to the host, even with two connections allowed (issue 21: politeness by what site
    operators ask for)."""
    import time as clock

    arrived: list[float] = []

    def page(body: bytes) -> Callable[[Request], Reply]:
        def reply(q: Request) -> Reply:
            arrived.append(clock.monotonic())
            return Reply(body=body)
        return reply

    server.routes["/robots.txt"] = lambda q: Reply(body=b"User-agent: *\nCrawl-delay: 1\n")
    server.routes["/d/"] = lambda q: html("".join(f'<a href="f{i}">f</a>' for i in range(4)))
    for i in range(4):
        server.routes[f"/d/f{i}"] = page(b"f\n")
    r = mirror("-o", str(tmp_path / "m"), "--per-host", "2", server.url("/d/"))
    assert r.returncode == 0, r.stderr
    gaps = [b - a for a, b in itertools.pairwise(arrived)]
    assert len(arrived) == 4 and min(gaps) >= 1 - 0.02, gaps  # the pause asked for


def test_crawl_delay_values() -> None:
    import urllib.robotparser

    from anyurl.mirror.robots import MAX_CRAWL_DELAY, Robots
    from anyurl.url import parse

    robots = Robots(resolver=None)  # type: ignore[arg-type]
    url = parse("http://h/x")
    assert robots.crawl_delay(url) == 0.0  # not read yet
    for text, expected in [("Crawl-delay: 2", 2.0), ("Crawl-delay: 1000", MAX_CRAWL_DELAY),
                           ("Disallow: /p", 0.0), ("Crawl-delay: soon", 0.0)]:
        rules = urllib.robotparser.RobotFileParser()
        rules.parse(["User-agent: *", text])
        robots._rules["http://h:80"] = rules
        assert robots.crawl_delay(url) == expected, text
