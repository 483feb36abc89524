"""The parts of a mirror without a network: scope rules, local paths, the crawl state."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anyurl.errors import URLSyntaxError
from anyurl.mirror.paths import local_path
from anyurl.mirror.scope import Scope
from anyurl.mirror.state import CrawlState
from anyurl.url import parse


def test_scope_stays_on_the_server_under_the_start_path() -> None:
    scope = Scope((parse("ftp://h.example/pub/docs/"),))
    assert scope.admits(parse("ftp://h.example/pub/docs/a.txt"), 1)
    assert scope.admits(parse("ftp://h.example/pub/docs/sub/b.txt"), 2)
    assert not scope.admits(parse("ftp://h.example/pub/other.txt"), 1)  # above the start
    assert not scope.admits(parse("ftp://h.example:2121/pub/docs/a.txt"), 1)  # other port
    assert not scope.admits(parse("ftp://other.example/pub/docs/a.txt"), 1)
    assert not scope.admits(parse("http://h.example/pub/docs/a.txt"), 1)  # other scheme


def test_scope_of_a_gopher_menu_and_an_html_page() -> None:
    menu = Scope((parse("gopher://h.example/1/pub"),))
    assert menu.admits(parse("gopher://h.example/0/pub/a.txt"), 1)
    assert menu.admits(parse("gopher://h.example/1/pub/sub"), 1)
    assert not menu.admits(parse("gopher://h.example/0/etc/passwd"), 1)
    page = Scope((parse("http://h.example/docs/index.html"),))
    assert page.admits(parse("http://h.example/docs/a.html"), 1)
    assert not page.admits(parse("http://h.example/admin/"), 1)


def test_scope_depth_patterns_and_span_hosts() -> None:
    root = parse("http://h.example/")
    scope = Scope((root,), max_depth=2, include=("*.txt", "*/"), exclude=("*secret*",))
    assert scope.admits(parse("http://h.example/a.txt"), 2)
    assert not scope.admits(parse("http://h.example/a.txt"), 3)
    assert not scope.admits(parse("http://h.example/a.bin"), 1)
    assert not scope.admits(parse("http://h.example/secret.txt"), 1)
    spanning = Scope((root,), span_hosts=True)
    assert spanning.admits(parse("https://elsewhere.example/x"), 1)
    assert not spanning.admits(parse("ftp://elsewhere.example/x"), 1)


def test_local_paths_mirror_the_urls() -> None:
    root = Path("/m")
    assert local_path(root, parse("ftp://h.example/pub/a%20b.txt")) == \
        Path("/m/ftp/h.example/pub/a b.txt")
    assert local_path(root, parse("ftp://h.example:2121/pub/")) == \
        Path("/m/ftp/h.example_2121/pub/.listing")
    assert local_path(root, parse("gopher://h.example/1/pub")) == \
        Path("/m/gopher/h.example/pub/gophermap")
    assert local_path(root, parse("gopher://h.example/0/pub/x.txt")) == \
        Path("/m/gopher/h.example/pub/x.txt")
    assert local_path(root, parse("http://h.example/")) == Path("/m/http/h.example/index.html")
    assert local_path(root, parse("http://h.example/s?q=1")) == Path("/m/http/h.example/s@q=1")
    assert local_path(root, parse("nntp://h.example/g.x/12")) == Path("/m/nntp/h.example/g.x/12")
    assert local_path(root, parse("news:<a@b.example>")) == \
        Path("/m/news/_/articles/a_at_b.example")


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_no_url_escapes_the_mirror(segment: str) -> None:
    from urllib.parse import quote

    root = Path("/m")
    for text in (f"http://h.example/{quote(segment, safe='')}/x",
                 f"ftp://h.example/a/{quote(segment, safe='')}",
                 f"gopher://h.example/0/{quote(segment, safe='/')}"):
        try:
            url = parse(text)  # every character %-escaped: a URL but for section 6's rule
        except URLSyntaxError:
            assert set(segment) & set("\r\n\0"), text  # an encoded CR, LF or NUL only
            continue
        path = local_path(root, url)
        assert root in path.parents
        assert ".." not in path.relative_to(root).parts


def test_state_resumes_and_never_refetches(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    state = CrawlState(db)
    assert state.add("ftp://h/a", 0) and not state.add("ftp://h/a", 1)
    state.add_many([("ftp://h/b", 1, "ftp://h/a"), ("ftp://h/c", 1, "ftp://h/a")])
    first = state.take()
    assert first is not None and first.url == "ftp://h/a"
    state.done(first.url, file="a", size=1, sha256="x", kind="file")
    second = state.take()
    assert second is not None
    state.close()  # killed while the second was running
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    state = CrawlState(db)
    assert state.recover() == 1
    taken = {state.take().url, state.take().url}  # type: ignore[union-attr]
    assert taken == {"ftp://h/b", "ftp://h/c"}
    assert state.take() is None
    assert state.status_of("ftp://h/a") == "done"
    state.failed("ftp://h/b", exit_code=78, error="gone")
    assert state.counts()["failed"] == 1 and state.requeue_failed() == 1
    state.close()


@pytest.mark.parametrize("busy", [frozenset({"h1"}), frozenset()])
def test_state_prefers_an_idle_host(tmp_path: Path, busy: frozenset[str]) -> None:
    state = CrawlState(tmp_path / "s.sqlite")
    state.add("http://h1/a", 0)
    state.add("http://h2/b", 0)
    entry = state.take(busy)
    assert entry is not None
    assert entry.url == ("http://h2/b" if busy else "http://h1/a")
    state.close()


def test_a_wais_document_is_mirrored_under_its_own_name() -> None:
    """Issue 19.4: the name -O gives (the docid's local id), not the flattened docid."""
    from anyurl.protocols import wais

    docid = (b"\x01\x0b127.0.0.1:5\x02\x09/srv/demo"
             b"\x03\x1e0 98 /srv/demo/docs/gopher.txt\x07\x01\x00")
    url = parse("wais://h:210/demo/TEXT/" + wais.docid_to_wpath(docid))
    assert local_path(Path("/m"), url) == Path("/m/wais/h/demo/gopher.txt")
    assert local_path(Path("/m"), parse("wais://h:210/demo/TEXT/plain-id")) == Path(
        "/m/wais/h/demo/plain-id")
    assert local_path(Path("/m"), parse("wais://h:210/demo")) == Path(
        "/m/wais/h/demo/.catalogue")
    # Each search its own catalogue: two searches of one database never share a file.
    assert local_path(Path("/m"), parse("wais://h:210/demo?query")) == Path(
        "/m/wais/h/demo/search@query/.catalogue")
    assert local_path(Path("/m"), parse("gopher://h/7/find%09cats")) == Path(
        "/m/gopher/h/find@cats/gophermap")


@pytest.mark.parametrize(("text", "expected"), [
    ("http://h.example/np/../out.txt", "http://h.example/out.txt"),
    ("http://h.example/np/%2e%2e/out.txt", "http://h.example/out.txt"),
    ("http://h.example/np/.%2E/./out.txt?x=/../y", "http://h.example/out.txt?x=/../y"),
    ("http://h.example/a/b/..", "http://h.example/a/"),
    ("http://h.example/a/./b/.", "http://h.example/a/b/"),
    ("http://h.example/../../x", "http://h.example/x"),
    ("http://h.example/a/..%2F..%2Fx", "http://h.example/a/..%2F..%2Fx"),  # one segment
    ("ftp://h.example/pub/../etc/passwd;type=a", "ftp://h.example/etc/passwd;type=a"),
    ("ftp://h.example/pub/%2E%2E/", "ftp://h.example/"),
    ("file:///srv/pub/../../etc/passwd", "file:///etc/passwd"),
    ("gopher://h.example/0/pub/../etc", "gopher://h.example/0/pub/../etc"),  # opaque
])
def test_canonical_removes_dot_segments_of_hierarchical_paths(text: str, expected: str) -> None:
    from anyurl.mirror.scope import canonical

    assert str(canonical(parse(text))) == expected


def test_dot_segments_do_not_pass_the_scope() -> None:
    from anyurl.mirror.scope import canonical

    scope = Scope((parse("http://h.example/np/"),))
    for text in ("http://h.example/np/../out.txt", "http://h.example/np/%2e%2e/out.txt",
                 "http://h.example/np/%2E./%2e%2E/x"):
        assert not scope.admits(canonical(parse(text)), 1), text
    assert scope.admits(canonical(parse("http://h.example/np/sub/../in.txt")), 1)
    menu = Scope((parse("gopher://h.example/1/pub"),))
    assert not menu.admits(parse("gopher://h.example/0/pub/../etc/passwd"), 1)
    assert not menu.admits(parse("gopher://h.example/0/pub/%2e%2e/etc/passwd"), 1)


def test_a_mirror_keeps_leading_dots_and_escapes_only_its_own_names() -> None:
    """Issue 30: a remote ``.htaccess`` is kept by its name (``-O`` drops the dot); a
    name that would be the directory's listing or the mirror's state is ``%2E``-escaped;
    ``.`` and ``..`` never name anything."""
    from anyurl.downloads.names import safe_name
    from anyurl.mirror.paths import tree_name

    assert tree_name(".htaccess", ".listing") == ".htaccess"
    assert tree_name("..double", ".listing") == "..double"
    assert tree_name(".listing", ".listing") == "%2Elisting"
    assert tree_name(".listing", "gophermap") == ".listing"
    assert tree_name(".anyurl-mirror.sqlite", ".listing") == "%2Eanyurl-mirror.sqlite"
    assert [tree_name(n, ".listing") for n in (".", "..", "...", ". x")] == [
        "_", "_", "_", "x"]
    assert safe_name(".bashrc") == "bashrc"  # -O's rule is unchanged
