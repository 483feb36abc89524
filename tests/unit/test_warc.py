"""anyurl.downloads.warc without a network: archives written here are read back with warcio.

Every file is checked the ways an archivist would: warcio's ``ArchiveIterator`` with
digest checking (the bytes of each payload compared exactly), ``warcio check`` and
``warcio index`` run as commands. Beyond the records' shape, the tests hold the module to
its promises: passwords masked in dialogues, large payloads read in blocks, an existing
archive never overwritten, and a record that fails half-way leaving no trace.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from warcio.archiveiterator import ArchiveIterator

from anyurl.downloads.warc import CONFORMS_TO, DEFAULT_SOFTWARE, MASK, WARCOutput, mask_dialogue
from anyurl.resource import ResourceInfo
from anyurl.url import parse

GET_URL = "http://alice:****@www.example.org/docs/index.html"
HEAD_URL = "https://www.example.org/big.iso"
FTP_URL = "ftp://anonymous@ftp.example.org/pub/readme.txt"
GOPHER_URL = "gopher://gopher.example.org/0/about.txt"
FILE_URL = "file:///srv/data/big.bin"

BODY = b"<html><body>\r\n" + b"x" * 5000 + b"\n</body></html>\n"
README = b"Read me.\nA second line.\n"
ABOUT = b"About this server.\r\n"
WHEN = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
BIG_SIZE = 5 << 20

DIALOGUE = [
    "< 220 FTP server ready.",
    "> USER anonymous",
    "< 331 Please specify the password.",
    "> PASS hunter2",
    "< 230 Login successful.",
    "> TYPE I",
    "> RETR readme.txt",
    "< 226 Transfer complete.",
]


def warcio_command(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``warcio`` command (its entry point, under this interpreter)."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; from warcio.cli import main; main(sys.argv[1:])",
         *args], capture_output=True, text=True, timeout=120, check=False)


class Watched:
    """A file that remembers the largest read asked of it (-1: everything at once)."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        self.largest = 0

    def read(self, size: int | None = -1) -> bytes:
        self.largest = max(self.largest, BIG_SIZE * 10 if size is None or size < 0 else size)
        return self.file.read(-1 if size is None else size)

    def seek(self, pos: int, whence: int = os.SEEK_SET) -> int:
        return self.file.seek(pos, whence)

    def tell(self) -> int:
        return self.file.tell()

    def seekable(self) -> bool:
        return True


class FailingLate(io.BytesIO):
    """A payload that breaks once ``limit`` bytes were read in all: after warcio's digest
    passes, while the record is being written."""

    def __init__(self, data: bytes, limit: int, archive: Path) -> None:
        super().__init__(data)
        self.limit = limit
        self.total = 0
        self.archive = archive
        self.size_at_failure = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.total += len(data)
        if self.total > self.limit:
            self.size_at_failure = self.archive.stat().st_size
            raise OSError("disk went away")
        return data


class Unseekable:
    """A pipe-like stream: read only."""

    def __init__(self, data: bytes) -> None:
        self.file = io.BytesIO(data)

    def read(self, size: int = -1) -> bytes:
        return self.file.read(size)

    def seekable(self) -> bool:
        return False


@dataclass
class Record:
    """What a test wants of one record read back."""

    type: str
    uri: str | None
    id: str
    concurrent_to: str | None
    headers: Any  # warcio's StatusAndHeaders of the WARC record
    http: Any  # its HTTP head, or None
    content: bytes
    digests_passed: bool | None


def read_back(path: Path) -> list[Record]:
    records = []
    with open(path, "rb") as f:
        for rec in ArchiveIterator(f, check_digests=True):
            content = rec.content_stream().read()
            records.append(Record(
                type=rec.rec_type, uri=rec.rec_headers.get_header("WARC-Target-URI"),
                id=rec.rec_headers.get_header("WARC-Record-ID"),
                concurrent_to=rec.rec_headers.get_header("WARC-Concurrent-To"),
                headers=rec.rec_headers, http=rec.http_headers, content=content,
                digests_passed=rec.digest_checker.passed))
    return records


def raw_text(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    data = random.Random(1738).randbytes(BIG_SIZE)
    path = tmp_path_factory.mktemp("payload") / "big.bin"
    path.write_bytes(data)
    return path, data


@dataclass
class Archive:
    path: Path
    ids: dict[str, str]
    largest_read: int
    records: list[Record]


def write_archive(path: Path, big: tuple[Path, bytes]) -> Archive:
    """An archive of five exchanges, one of each kind the module writes."""
    ids = {}
    with WARCOutput(path, operator="the test suite") as warc:
        ids["get"] = warc.write_http(
            GET_URL, method="GET", request_target="/docs/index.html", http_version="1.1",
            request_headers=[("Host", "www.example.org"), ("User-Agent", "anyurl/test"),
                             ("Authorization", "Basic YWxpY2U6aHVudGVyMg==")],
            request_body=None, status=200, reason="OK",
            response_headers=[("Content-Type", "text/html"), ("Transfer-Encoding", "chunked"),
                              ("ETag", '"v1"')],
            payload=BODY, date=WHEN)
        ids["head"] = warc.write_http(
            HEAD_URL, method="HEAD", request_target="/big.iso", http_version="HTTP/1.1",
            request_headers=[("Host", "www.example.org")], request_body=None,
            status=200, reason="OK",
            response_headers=[("Content-Type", "application/x-iso9660-image"),
                              ("Content-Length", "734003200")],
            payload=b"")
        ids["ftp"] = warc.write_resource(FTP_URL, content_type="text/plain", payload=README,
                                         dialogue=DIALOGUE)
        ids["gopher"] = warc.write_resource(GOPHER_URL, content_type=None, payload=ABOUT)
        with open(big[0], "rb") as f:
            watched = Watched(f)
            ids["big"] = warc.write_resource(FILE_URL, content_type="application/octet-stream",
                                             payload=watched)  # type: ignore[arg-type]
    return Archive(path, ids, watched.largest, read_back(path))


@pytest.fixture(scope="module", params=["archive.warc.gz", "archive.warc"])
def archive(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            big: tuple[Path, bytes]) -> Archive:
    return write_archive(tmp_path_factory.mktemp("warc") / request.param, big)


# -- what the archive holds -------------------------------------------------------------


def test_records_come_in_order_with_their_target_uris(archive: Archive) -> None:
    assert [(r.type, r.uri) for r in archive.records] == [
        ("warcinfo", None),
        ("response", GET_URL), ("request", GET_URL),
        ("response", HEAD_URL), ("request", HEAD_URL),
        ("resource", FTP_URL), ("metadata", FTP_URL),
        ("resource", GOPHER_URL),
        ("resource", FILE_URL),
    ]
    assert all(r.headers.protocol == "WARC/1.1" for r in archive.records)


def test_payloads_read_back_exactly(archive: Archive, big: tuple[Path, bytes]) -> None:
    by = {(r.type, r.uri): r for r in archive.records}
    assert by["response", GET_URL].content == BODY
    assert by["response", GET_URL].http.get_statuscode() == "200"
    assert by["response", HEAD_URL].content == b""
    assert by["response", HEAD_URL].http.get_statuscode() == "200"
    assert by["request", GET_URL].content == b""
    assert by["resource", FTP_URL].content == README
    assert by["resource", GOPHER_URL].content == ABOUT
    assert by["resource", FILE_URL].content == big[1]


def test_every_record_has_digests_that_check(archive: Archive) -> None:
    for record in archive.records:
        assert record.headers.get_header("WARC-Block-Digest", "").startswith("sha1:")
        if record.type != "warcinfo":
            assert record.headers.get_header("WARC-Payload-Digest", "").startswith("sha1:")
        assert record.digests_passed is True, (record.type, record.uri)


def test_warcio_check_passes_and_warcio_index_lists_the_records(archive: Archive) -> None:
    check = warcio_command("check", "-v", str(archive.path))
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("digest pass") == len(archive.records)
    index = warcio_command("index", str(archive.path))
    assert index.returncode == 0, index.stderr
    listed = [json.loads(line) for line in index.stdout.splitlines()]
    assert [(e["warc-type"], e.get("warc-target-uri")) for e in listed] == [
        (r.type, r.uri) for r in archive.records]


def test_warcinfo_names_anyurl(archive: Archive) -> None:
    info = archive.records[0]
    fields = dict(line.split(": ", 1) for line in info.content.decode().splitlines())
    assert fields == {"software": DEFAULT_SOFTWARE, "format": "WARC File Format 1.1",
                      "conformsTo": CONFORMS_TO, "operator": "the test suite"}
    assert info.headers.get_header("WARC-Filename") == archive.path.name
    assert info.headers.get_header("Content-Type") == "application/warc-fields"


def test_http_response_head_states_the_delivered_length(archive: Archive) -> None:
    response, request = archive.records[1], archive.records[2]
    assert response.id == archive.ids["get"]
    assert response.headers.get_header("Content-Type") == "application/http; msgtype=response"
    head = response.http
    assert head.protocol == "HTTP/1.1"
    assert head.get_header("Transfer-Encoding") is None  # the payload is de-chunked
    assert head.get_header("Content-Length") == str(len(BODY))
    assert head.get_header("ETag") == '"v1"'
    assert response.headers.get_header("WARC-Date") == "2024-05-06T07:08:09.123456Z"
    assert request.headers.get_header("WARC-Date") == "2024-05-06T07:08:09.123456Z"


def test_http_request_is_linked_and_its_credentials_masked(archive: Archive) -> None:
    response, request = archive.records[1], archive.records[2]
    assert request.concurrent_to == response.id
    assert request.headers.get_header("Content-Type") == "application/http; msgtype=request"
    assert request.http.protocol == "GET"
    assert request.http.statusline == "/docs/index.html HTTP/1.1"
    assert request.http.get_header("Host") == "www.example.org"
    assert request.http.get_header("Authorization") == MASK
    assert b"YWxpY2U6aHVudGVyMg" not in raw_text(archive.path)


def test_an_empty_body_states_length_zero(archive: Archive) -> None:
    response, request = archive.records[3], archive.records[4]
    assert response.id == archive.ids["head"]
    assert response.http.get_header("Content-Length") == "0"
    assert response.http.get_header("Content-Type") == "application/x-iso9660-image"
    assert request.http.protocol == "HEAD"
    assert request.concurrent_to == response.id


def test_resource_records_carry_the_content_type(archive: Archive) -> None:
    ftp, gopher, big = archive.records[5], archive.records[7], archive.records[8]
    assert ftp.id == archive.ids["ftp"] and ftp.http is None
    assert ftp.headers.get_header("Content-Type") == "text/plain"
    assert gopher.id == archive.ids["gopher"]
    assert gopher.headers.get_header("Content-Type") == "application/octet-stream"
    assert big.id == archive.ids["big"]
    assert big.headers.get_header("Content-Length") == str(BIG_SIZE)


def test_dialogue_is_a_metadata_record_with_the_password_masked(archive: Archive) -> None:
    resource, metadata = archive.records[5], archive.records[6]
    assert metadata.concurrent_to == resource.id
    assert metadata.headers.get_header("Content-Type") == "text/plain; charset=utf-8"
    lines = metadata.content.decode().splitlines()
    assert lines == [line.replace("PASS hunter2", f"PASS {MASK}") for line in DIALOGUE]
    assert b"hunter2" not in raw_text(archive.path)


def test_a_large_payload_is_read_in_blocks(archive: Archive) -> None:
    assert 0 < archive.largest_read <= 1 << 20


# -- masking ----------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "expected"), [
    pytest.param("> PASS hunter2", f"> PASS {MASK}", id="ftp-pass"),
    pytest.param("> pass two words", f"> pass {MASK}", id="ftp-pass-lower-case"),
    pytest.param("PASS hunter2", f"PASS {MASK}", id="no-direction-marker"),
    pytest.param("> AUTHINFO PASS hunter2", f"> AUTHINFO PASS {MASK}", id="nntp-authinfo"),
    pytest.param("> AUTH PLAIN AGFsaWNlAGh1bnRlcjI=", f"> AUTH PLAIN {MASK}", id="smtp-auth"),
    pytest.param("> Authorization: Basic YWxpY2U6aHVudGVy", f"> Authorization: {MASK}",
                 id="authorization"),
    pytest.param("> proxy-authorization: Bearer abc.def", f"> proxy-authorization: {MASK}",
                 id="proxy-authorization"),
    pytest.param("> Authorization: token-without-scheme", f"> Authorization: {MASK}",
                 id="bare-token"),
    pytest.param("> USER anonymous", "> USER anonymous", id="user-kept"),
    pytest.param("< 331 Please specify the password.", "< 331 Please specify the password.",
                 id="reply-kept"),
    pytest.param("> PASS ", "> PASS ", id="nothing-to-mask"),
    pytest.param("> RETR PASS.txt", "> RETR PASS.txt", id="pass-as-a-file-name"),
])
def test_mask_dialogue(line: str, expected: str) -> None:
    assert mask_dialogue([line]) == [expected]


def test_mask_dialogue_splits_lines_a_password_could_hide_on() -> None:
    assert mask_dialogue(["> USER a\r\nPASS hunter2", "< 230 ok\n"]) == [
        "> USER a", f"PASS {MASK}", "< 230 ok"]


# -- files ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["old.warc.gz", "old.warc"])
def test_an_existing_file_is_refused_and_left_alone(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"precious")
    with pytest.raises(FileExistsError):
        WARCOutput(path)
    assert path.read_bytes() == b"precious"


def test_a_dangling_symbolic_link_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "link.warc.gz"
    link.symlink_to(tmp_path / "elsewhere.warc.gz")
    with pytest.raises(FileExistsError):
        WARCOutput(link)
    assert not (tmp_path / "elsewhere.warc.gz").exists()


@pytest.mark.parametrize("name", ["resumed.warc.gz", "resumed.warc"])
def test_append_adds_records_after_the_first_warcinfo(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with WARCOutput(path, append=True) as warc:  # a new file: starts with warcinfo
        warc.write_resource(FTP_URL, content_type="text/plain", payload=README)
    with WARCOutput(path, append=True) as warc:
        warc.write_resource(GOPHER_URL, content_type="text/plain", payload=ABOUT)
    records = read_back(path)
    assert [(r.type, r.uri) for r in records] == [
        ("warcinfo", None), ("resource", FTP_URL), ("resource", GOPHER_URL)]
    assert warcio_command("check", str(path)).returncode == 0


@pytest.mark.parametrize("name", ["broken.warc.gz", "broken.warc"])
def test_a_record_failing_half_way_leaves_whole_records_only(tmp_path: Path,
                                                             name: str) -> None:
    path = tmp_path / name
    data = random.Random(7).randbytes(3 << 20)
    # warcio reads a payload three times (payload digest, block digest, the record):
    # fail in the third pass, after more than the sink's buffer was written.
    failing = FailingLate(data, limit=2 * len(data) + (2 << 20), archive=path)
    with WARCOutput(path) as warc:
        warc.write_resource(FTP_URL, content_type="text/plain", payload=README)
        size = path.stat().st_size
        with pytest.raises(OSError, match="disk went away"):
            warc.write_resource(FILE_URL, content_type=None, payload=failing)
        assert failing.size_at_failure > size  # half a record had reached the file
        assert path.stat().st_size == size  # and was cut off
        warc.write_resource(GOPHER_URL, content_type="text/plain", payload=ABOUT)
    assert [(r.type, r.uri) for r in read_back(path)] == [
        ("warcinfo", None), ("resource", FTP_URL), ("resource", GOPHER_URL)]
    check = warcio_command("check", str(path))
    assert check.returncode == 0, check.stdout


def test_a_payload_file_that_shrinks_is_an_error_not_a_short_record(tmp_path: Path) -> None:
    class Shrunk(io.BytesIO):
        def seek(self, pos: int, whence: int = os.SEEK_SET) -> int:
            where = super().seek(pos, whence)
            return where + 100 if whence == os.SEEK_END else where  # 100 bytes gone

    path = tmp_path / "shrunk.warc"
    with WARCOutput(path) as warc:
        size = path.stat().st_size
        with pytest.raises(OSError, match="shrank"):
            warc.write_resource(FILE_URL, content_type=None, payload=Shrunk(README))
        assert path.stat().st_size == size


def test_a_stream_that_cannot_seek_is_recorded_whole(tmp_path: Path) -> None:
    path = tmp_path / "pipe.warc.gz"
    data = random.Random(3).randbytes(3 << 20)
    with WARCOutput(path) as warc:
        warc.write_resource(FILE_URL, content_type=None, payload=Unseekable(data))  # type: ignore[arg-type]
    assert read_back(path)[1].content == data


def test_a_file_payload_is_read_from_where_it_stands(tmp_path: Path) -> None:
    path = tmp_path / "tail.warc"
    stream = io.BytesIO(b"skipped|kept")
    stream.seek(len(b"skipped|"))
    with WARCOutput(path) as warc:
        warc.write_http(GET_URL, method="GET", request_target="/", http_version="1.0",
                        request_headers=[], request_body=b"q=1", status=404, reason="",
                        response_headers=[("Content-Length", "99")], payload=stream)
    response, request = read_back(path)[1:]
    assert response.content == b"kept"
    assert response.http.protocol == "HTTP/1.0"
    assert response.http.statusline == "404 Not Found"  # the standard phrase when none came
    assert response.http.get_header("Content-Length") == "4"
    assert request.content == b"q=1"


def test_writing_after_close_is_an_error(tmp_path: Path) -> None:
    warc = WARCOutput(tmp_path / "closed.warc")
    warc.close()
    warc.close()  # twice is fine
    with pytest.raises(ValueError, match="closed"):
        warc.write_resource(FTP_URL, content_type=None, payload=README)


# -- fields -----------------------------------------------------------------------------


@pytest.mark.parametrize(("date", "expected"), [
    pytest.param(WHEN, "2024-05-06T07:08:09.123456Z", id="utc-with-microseconds"),
    pytest.param(datetime(2024, 5, 6, 9, 8, 9, tzinfo=timezone(timedelta(hours=2))),
                 "2024-05-06T07:08:09Z", id="other-zone-converted"),
    pytest.param(datetime(2024, 5, 6, 7, 8, 9, 5), "2024-05-06T07:08:09.000005Z",
                 id="naive-is-utc"),
])
def test_warc_date_is_utc(tmp_path: Path, date: datetime, expected: str) -> None:
    path = tmp_path / "dates.warc"
    with WARCOutput(path) as warc:
        warc.write_resource(FTP_URL, content_type=None, payload=README, dialogue=["> NOOP"],
                            date=date)
    resource, metadata = read_back(path)[1:]
    assert resource.headers.get_header("WARC-Date") == expected
    assert metadata.headers.get_header("WARC-Date") == expected


def test_without_a_date_the_record_is_dated_now(tmp_path: Path) -> None:
    path = tmp_path / "now.warc"
    before = datetime.now(UTC).replace(microsecond=0)
    with WARCOutput(path) as warc:
        warc.write_resource(FTP_URL, content_type=None, payload=README)
    stamp = read_back(path)[1].headers.get_header("WARC-Date")
    assert stamp.endswith("Z")
    assert datetime.fromisoformat(stamp.replace("Z", "+00:00")) >= before


def test_http2_is_recorded_in_http11_syntax_and_a_decoded_body_loses_its_coding(
        tmp_path: Path) -> None:
    path = tmp_path / "h2.warc.gz"
    with WARCOutput(path) as warc:
        warc.write_http(GET_URL, method="GET", request_target="/", http_version="2",
                        request_headers=[(":authority", "www.example.org"),
                                         ("Host", "www.example.org")],
                        request_body=None, status=200, reason="",
                        response_headers=[(":status", "200"), ("content-encoding", "gzip"),
                                          ("content-length", "12"), ("vary", "accept")],
                        payload=BODY, content_decoded=True)
    response, request = read_back(path)[1:]
    assert f"{response.http.protocol} {response.http.statusline}" == "HTTP/1.1 200 OK"
    # pseudo-headers and the coding gone; the length stated where the server's stood
    assert response.http.headers == [("content-length", str(len(BODY))), ("vary", "accept")]
    assert request.http.statusline == "/ HTTP/1.1"
    assert request.http.headers == [("Host", "www.example.org")]


def test_control_characters_cannot_break_a_header(tmp_path: Path) -> None:
    path = tmp_path / "control.warc"
    with WARCOutput(path) as warc:
        warc.write_resource("gopher://h.example/0/a\r\nWARC-Type: x",
                            content_type="text/x\r\nX: y", payload=ABOUT)
    resource = read_back(path)[1]
    assert resource.uri == "gopher://h.example/0/a%0D%0AWARC-Type:%20x"
    assert resource.headers.get_header("Content-Type") == "text/x  X: y"
    assert resource.headers.get_header("X") is None
    assert warcio_command("check", str(path)).returncode == 0


# -- write_result: what the downloader saved --------------------------------------------


def sent(method: str = "GET") -> dict[str, Any]:
    return {"method": method, "target": "/f.txt", "http_version": "1.1",
            "headers": [("Host", "h.example")], "body": None}


def test_write_result_of_an_http_transfer(tmp_path: Path) -> None:
    path, saved = tmp_path / "result.warc.gz", tmp_path / "f.txt"
    saved.write_bytes(b"inflated text")
    info = ResourceInfo(url=parse("http://h.example/f.txt"), status=200, reason="OK",
                        headers=(("content-type", "text/plain"), ("content-encoding", "gzip")),
                        extra={"request": sent(), "decoded": True})
    with WARCOutput(path) as warc, open(saved, "rb") as payload:
        rid = warc.write_result(info, payload, ["ignored for http"])
    response, request = read_back(path)[1:]
    assert response.id == rid and request.concurrent_to == rid
    assert response.content == b"inflated text"
    assert response.http.get_header("content-encoding") is None


def test_write_result_of_a_head_records_no_body(tmp_path: Path) -> None:
    path, saved = tmp_path / "head.warc", tmp_path / "head.txt"
    saved.write_bytes(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n")  # what -I saves
    info = ResourceInfo(url=parse("http://h.example/f.txt"), kind="headers", status=200,
                        reason="OK", headers=(("content-length", "5"),),
                        extra={"request": sent("HEAD")})
    with WARCOutput(path) as warc, open(saved, "rb") as payload:
        warc.write_result(info, payload)
    response, request = read_back(path)[1:]
    assert response.content == b"" and request.http.protocol == "HEAD"


def test_write_result_of_a_resumed_transfer_records_the_bytes_received(
        tmp_path: Path) -> None:
    path, saved = tmp_path / "resumed.warc", tmp_path / "f.txt"
    saved.write_bytes(b"abcdefg")  # "abc" from an earlier attempt
    info = ResourceInfo(url=parse("http://h.example/f.txt"), status=206, reason="Partial",
                        offset=3, size=4, headers=(("content-range", "bytes 3-6/7"),),
                        extra={"request": sent()})
    with WARCOutput(path) as warc, open(saved, "rb") as payload:
        warc.write_result(info, payload)
    response = read_back(path)[1]
    assert response.content == b"defg"
    assert response.http.get_header("content-range") == "bytes 3-6/7"


def test_write_result_of_another_scheme(tmp_path: Path) -> None:
    path, saved = tmp_path / "ftp.warc", tmp_path / "readme.txt"
    saved.write_bytes(README)
    info = ResourceInfo(url=parse("ftp://alice:hunter2@ftp.example.org/readme.txt"),
                        content_type="text/plain")
    with WARCOutput(path) as warc, open(saved, "rb") as payload:
        warc.write_result(info, payload, DIALOGUE)
    resource, metadata = read_back(path)[1:]
    assert resource.uri == "ftp://alice:****@ftp.example.org/readme.txt"
    assert resource.content == README
    assert metadata.concurrent_to == resource.id
    assert b"hunter2" not in path.read_bytes()
