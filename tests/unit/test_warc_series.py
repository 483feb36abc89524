"""anyurl.downloads.warc beyond one write: revisit records, rolled archives, resumed files, CDXJ.

Each archive is read back with warcio (``ArchiveIterator``, ``warcio check``) and each
index line parsed, as a replay tool would.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from anyurl.downloads.warc import REVISIT_PROFILE, WARCOutput, series, write_cdxj

from .test_warc import warcio_command


def _records(path: Path) -> list[tuple[str, str | None, dict[str, str]]]:
    with open(path, "rb") as f:
        return [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"),
                 dict(r.rec_headers.headers)) for r in ArchiveIterator(f)]


def test_series_names_keep_the_suffixes(tmp_path: Path) -> None:
    assert series(tmp_path / "site.warc.gz", 0) == tmp_path / "site.warc.gz"
    assert series(tmp_path / "site.warc.gz", 2) == tmp_path / "site-00002.warc.gz"
    assert series(tmp_path / "site.warc", 1) == tmp_path / "site-00001.warc"


def test_a_revisit_refers_to_the_earlier_payload(tmp_path: Path) -> None:
    path = tmp_path / "a.warc.gz"
    with WARCOutput(path) as warc:
        warc.write_resource("ftp://h/pub/a.txt", content_type="text/plain",
                            payload=b"a\r\nb\r\n")
        first = warc.last
        assert first is not None and first.payload_digest is not None
        revisit_id = warc.write_revisit("ftp://h/pub/a.txt", refers_to=first)
    records = _records(path)
    assert [r[0] for r in records] == ["warcinfo", "resource", "revisit"]
    headers = records[2][2]
    assert headers["WARC-Record-ID"] == revisit_id
    assert headers["WARC-Profile"] == REVISIT_PROFILE
    assert headers["WARC-Refers-To"] == first.record_id
    assert headers["WARC-Refers-To-Target-URI"] == "ftp://h/pub/a.txt"
    assert headers["WARC-Refers-To-Date"] == first.date
    assert headers["WARC-Payload-Digest"] == first.payload_digest
    assert warcio_command("check", str(path)).returncode == 0


def test_an_http_revisit_keeps_the_new_response_head(tmp_path: Path) -> None:
    path = tmp_path / "h.warc"
    with WARCOutput(path) as warc:
        warc.write_http("http://h/a", method="GET", request_target="/a", http_version="1.1",
                        request_headers=[("Host", "h")], request_body=None, status=200,
                        reason="OK", response_headers=[("ETag", '"1"')], payload=b"<p>hi</p>")
        assert warc.last is not None
        warc.write_revisit("http://h/a", refers_to=warc.last,
                           http_status=(304, "", [("ETag", '"1"')]))
    with open(path, "rb") as f:
        revisit = next(r for r in ArchiveIterator(f) if r.rec_type == "revisit")
        assert revisit.http_headers is not None
        assert revisit.http_headers.get_statuscode() == "304"
        assert revisit.http_headers.get_header("ETag") == '"1"'
    assert warcio_command("check", str(path)).returncode == 0


def test_max_size_rolls_over_to_numbered_files_each_whole(tmp_path: Path) -> None:
    path = tmp_path / "site.warc.gz"
    with WARCOutput(path, max_size=1000) as warc:
        for n in range(6):
            warc.write_resource(f"gopher://h/0/{n}", content_type="text/plain",
                                payload=os.urandom(400))
        files = warc.files
    assert files[0] == path and len(files) > 2
    uris = []
    for file in files:
        records = _records(file)
        assert records[0][0] == "warcinfo"  # every file stands alone
        uris += [uri for kind, uri, _ in records if kind == "resource"]
        assert warcio_command("check", str(file)).returncode == 0
    assert uris == [f"gopher://h/0/{n}" for n in range(6)]


def test_a_resumed_file_is_cut_back_to_the_last_committed_record(tmp_path: Path) -> None:
    path = tmp_path / "m.warc.gz"
    with WARCOutput(path) as warc:
        warc.write_resource("ftp://h/a", content_type=None, payload=b"a")
        committed = warc.last
        warc.write_resource("ftp://h/b", content_type=None, payload=b"b")  # then a kill
    assert committed is not None
    with WARCOutput(path, append=True, cut_at=(committed.file, committed.end)) as warc:
        warc.write_resource("ftp://h/b", content_type=None, payload=b"b")  # fetched again
    uris = [uri for kind, uri, _ in _records(path) if kind == "resource"]
    assert uris == ["ftp://h/a", "ftp://h/b"]


def test_resuming_drops_later_files_of_the_series(tmp_path: Path) -> None:
    path = tmp_path / "s.warc"
    with WARCOutput(path, max_size=300) as warc:
        warc.write_resource("ftp://h/a", content_type=None, payload=bytes(400))
        committed = warc.last
        warc.write_resource("ftp://h/b", content_type=None, payload=bytes(400))
        assert len(warc.files) == 2
    assert committed is not None
    with WARCOutput(path, append=True, max_size=300,
                    cut_at=(committed.file, committed.end)) as warc:
        assert warc.files == [path]
    assert not series(path, 1).exists()


def test_cdxj_indexes_every_capture_with_its_offset(tmp_path: Path) -> None:
    path = tmp_path / "c.warc.gz"
    with WARCOutput(path, max_size=700) as warc:
        warc.write_resource("gopher://h/0/about", content_type="text/plain",
                            payload=b"about\r\n", dialogue=["> about"])
        assert warc.last is not None
        warc.write_revisit("gopher://h/0/about", refers_to=warc.last)
        warc.write_http("http://h/", method="GET", request_target="/", http_version="1.1",
                        request_headers=[], request_body=None, status=200, reason="OK",
                        response_headers=[("Content-Type", "text/html")], payload=b"<p>")
        files = warc.files
    index = write_cdxj(files, tmp_path / "c.cdxj")
    lines = index.read_text().splitlines()
    assert lines == sorted(lines)
    entries = [json.loads(line.split(" ", 2)[2]) for line in lines]
    assert sorted(e["url"] for e in entries) == ["gopher://h/0/about", "gopher://h/0/about",
                                                 "http://h/"]
    assert {e["filename"] for e in entries} <= {f.name for f in files}
    for entry in entries:  # each offset and length is a record of that file
        with open(tmp_path / entry["filename"], "rb") as f:
            f.seek(int(entry["offset"]))
            record = next(iter(ArchiveIterator(f)))
            assert record.rec_headers.get_header("WARC-Target-URI") == entry["url"]
    assert not (tmp_path / "c.cdxj.part").exists()
