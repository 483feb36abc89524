"""The parts of a mirror's batches (issue 21): the state hands out one server's URLs at
once and records their outcomes in one transaction; a batch walks a directory once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anyurl.downloads.output import held_directories, open_directory
from anyurl.errors import LocalWriteError
from anyurl.mirror.state import CrawlState, Done, Failed, Saved


def test_a_batch_is_one_servers_oldest_urls_and_skips_a_busy_host(tmp_path: Path) -> None:
    state = CrawlState(tmp_path / "s.sqlite")
    state.add_many([("http://a/1", 1, None), ("http://b/1", 1, None),
                    ("http://a/2", 1, None), ("http://a:81/3", 1, None),
                    ("ftp://a/4", 1, None), ("http://u:p@a/5", 1, None)])
    taken = state.take_batch(frozenset(), 10)
    # http://a:80 only (not port 81, not ftp), its login aside, oldest first
    assert [e.url for e in taken] == ["http://a/1", "http://a/2", "http://u:p@a/5"]
    assert {state.status_of(e.url) for e in taken} == {"running"}
    assert [e.url for e in state.take_batch(frozenset({"a"}), 10)] == ["http://b/1"]
    assert [e.url for e in state.take_batch(frozenset(), 1)] == ["http://a:81/3"]
    assert state.recover() == 5  # a killed crawl's batches go back to the queue
    assert state.counts()["queued"] == 6
    state.close()


def test_a_batchs_outcomes_are_recorded_together_with_the_warc_end(tmp_path: Path) -> None:
    state = CrawlState(tmp_path / "s.sqlite")
    state.add_many([("http://a/1", 0, None), ("http://a/2", 0, None)])
    state.take_batch(frozenset(), 2)
    state.recorded([Done("http://a/1", "f", 3, "ab", "file", "new",
                         Saved(etag='"e"', warc=("id", "uri", "date", "digest"))),
                    Failed("http://a/2", 22, "not found")], ("w.warc.gz", 1234))
    rows = {r["url"]: r for r in state.rows()}
    assert rows["http://a/1"]["status"] == "done" and rows["http://a/1"]["etag"] == '"e"'
    assert rows["http://a/1"]["warc_id"] == "id"
    assert rows["http://a/2"]["status"] == "failed" and rows["http://a/2"]["exit_code"] == 22
    assert state.warc_end() == ("w.warc.gz", 1234)
    state.close()


def test_held_directories_walk_once_and_never_through_a_link(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tree / "link").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with held_directories():
        first = open_directory(tree, tree / "a" / "b")
        os.rmdir(tree / "a" / "b")  # the next file here uses the kept descriptor ...
        os.mkdir(tree / "a" / "b")
        second = open_directory(tree, tree / "a" / "b")
        assert os.fstat(first).st_ino == os.fstat(second).st_ino
        os.close(first)
        os.close(second)
        with pytest.raises(LocalWriteError, match="symbolic link"):
            open_directory(tree, tree / "link")
        with pytest.raises(LocalWriteError, match="symbolic link"):
            open_directory(tree, tree / "link")
    fresh = open_directory(tree, tree / "a" / "b")  # ... a new walk after the block
    assert os.fstat(fresh).st_ino == os.stat(tree / "a" / "b").st_ino
    os.close(fresh)


def test_a_refresh_settles_what_its_listing_shows_unchanged_when_it_is_found(
        tmp_path: Path) -> None:
    """A listed file with the size and time it had when saved is done and unchanged in
    the new generation as soon as the listing names it: never queued, never taken."""
    state = CrawlState(tmp_path / "s.sqlite")
    listing = "ftp://a/d/"
    first = [("ftp://a/d/same", 1, listing, 10, 1000.0),
             ("ftp://a/d/grown", 1, listing, 10, 1000.0),
             ("ftp://a/d/touched", 1, listing, 10, 1000.0),
             ("ftp://b/d/elsewhere", 1, listing, 10, 1000.0),
             ("ftp://a/d/no-facts", 1, listing, None, None)]
    state.add_many(first)
    taken = state.take_batch(frozenset(), 10)
    state.recorded([Done(e.url, e.url[6:], 10, "ab", "file", "new") for e in taken]
                   + [Done("ftp://b/d/elsewhere", "b/d/elsewhere", 10, "ab", "file", "new")])
    state.new_generation()
    found = [("ftp://a/d/same", 1, listing, 10, 1000.0),
             ("ftp://a/d/grown", 1, listing, 11, 1000.0),
             ("ftp://a/d/touched", 1, listing, 10, 2000.0),
             ("ftp://b/d/elsewhere", 1, listing, 10, 1000.0),  # not the listing's server
             ("ftp://a/d/no-facts", 1, listing, None, None),
             ("ftp://a/d/new", 1, listing, 3, 1000.0)]
    assert state.add_many(found, settle=listing) == 6
    rows = {r["url"]: r for r in state.rows()}
    same = rows["ftp://a/d/same"]
    assert (same["status"], same["outcome"], same["generation"]) == ("done", "unchanged", 1)
    assert (same["saved_size"], same["saved_modified"], same["sha256"]) == (10, 1000.0, "ab")
    assert [e.url for e in state.take_batch(frozenset(), 10)] == [
        "ftp://a/d/grown", "ftp://a/d/touched", "ftp://a/d/no-facts", "ftp://a/d/new"]
    assert state.status_of("ftp://b/d/elsewhere") == "queued"
    # found again in the same generation (a resumed listing): nothing changes
    assert state.add_many(found[:1], settle=listing) == 0
    # without settle (a page's links), a file unchanged by its listing is queued to be
    # checked, as before
    state.new_generation()
    state.add_many(found[:1])
    assert state.status_of("ftp://a/d/same") == "queued"
    state.close()


def test_a_batch_lists_the_staging_directory_once_not_through_a_link(
        tmp_path: Path) -> None:
    """The names of a tree's partial files (``staged_names``): what a batch looks up
    instead of a ``stat`` per job. None there: nothing; a link there: not followed."""
    from anyurl.downloads.output import STAGING_DIR, staged_names, staged_part

    tree = tmp_path / "tree"
    tree.mkdir()
    assert staged_names(tree) == frozenset()
    part = staged_part(tree, tree / "ftp" / "h" / "f")
    part.parent.mkdir()
    part.write_bytes(b"half")
    assert staged_names(tree) == {part.name}
    with held_directories():
        held = open_directory(tree, tree / STAGING_DIR)  # a held descriptor's place
        assert staged_names(tree) == staged_names(tree) == {part.name}
        os.close(held)
    elsewhere = tmp_path / "elsewhere"
    part.parent.rename(elsewhere)
    (tree / STAGING_DIR).symlink_to(elsewhere, target_is_directory=True)
    assert staged_names(tree) == frozenset()


def test_relative_paths_in_a_tree_are_relpaths(tmp_path: Path) -> None:
    """The staged part's name and a walk's components, worked out from the text of a
    path below the tree, are what ``relpath`` of both made absolute gives."""
    from anyurl.downloads.output import _below, _relative

    for tree, path in [(Path("site"), Path("site/ftp/h/a b/.c")),
                       (Path("site"), Path("site/a/../b")), (Path("site"), Path("sitex/a")),
                       (tmp_path, tmp_path / "x" / "y"), (Path("."), Path("a/b")),
                       (Path("/"), Path("/a/b"))]:
        expected = os.path.relpath(os.path.abspath(path), os.path.abspath(tree))
        assert _relative(tree, path) == expected
        if not expected.startswith(".."):
            assert _below(tree, path) == Path(expected).parts
    assert _below(Path("site"), Path("site")) == ()
    with pytest.raises(LocalWriteError, match="not inside"):
        _below(Path("site"), Path("site/../elsewhere"))
