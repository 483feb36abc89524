"""prospero: against the loopback ARDP/Prospero server (the `prospero` peer, and in-process).

No real Prospero server exists to test against (see docs/schemes/prospero.md); the peer is
anyurl's own `python -m anyurl.schemes.prospero.loopback`, started by the `peers` fixture.
Tests that
need a server pointing at other peers (to follow access methods) or a look at what the server
received run one in-process on the test's event loop. Every test runs on asyncio and trio.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest
import warcio.archiveiterator

from anyurl.config import Config
from anyurl.errors import (
    PolicyRefused,
    RemoteAccessDenied,
    RemoteFileNotFound,
    TransferTimeout,
)
from anyurl.mirror.engine import MANIFEST_NAME, Mirror, MirrorOptions
from anyurl.options import ProsperoOptions
from anyurl.resolver import Resolver
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.schemes.http.gateway import Gateway
from anyurl.schemes.prospero.loopback import CONTENTS_TEXT, DOS_TEXT, MANY_COUNT, serve_prospero
from anyurl.url import URL

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

FAST = {"ardp_timeout": 0.2}


async def fetch(url: str, *, trace: list[str] | None = None,
                **extra: Any) -> tuple[bytes, ResourceInfo]:
    options = FetchOptions(trace=trace.append if trace is not None else None,
                           schemes=(ProsperoOptions(**{**FAST, **extra}),))
    async with Resolver(Config(), warn=lambda _: None) as resolver, \
            resolver.open(url, options) as resource:
        return await resource.read(), resource.info


@pytest.fixture
def prospero(peers: Any) -> Any:
    return peers["prospero"]


def purl(peer: Any, hsoname: str) -> str:
    return f"prospero://{peer.host}:{peer.port}/{hsoname}"


# -- reports ------------------------------------------------------------------------------


async def test_object_report_lists_access_methods_as_urls(prospero: Any) -> None:
    body, info = await fetch(purl(prospero, "/pub/README"))
    text = body.decode()
    assert info.kind == "report" and info.content_type == "text/plain; charset=utf-8"
    assert f"-> ftp://{prospero.host}/pub/readme.txt;type=a" in text
    assert f"-> gopher://{prospero.host}/0/pub/readme.txt" in text
    assert "BASE-TYPE: FILE" in text
    methods = info.extra["prospero"]["access_methods"]
    assert [m["url"] for m in methods] == [f"ftp://{prospero.host}/pub/readme.txt;type=a",
                                          f"gopher://{prospero.host}/0/pub/readme.txt"]


async def test_directory_lists_links_as_prospero_urls(prospero: Any) -> None:
    body, info = await fetch(purl(prospero, "/pub"))
    assert info.kind == "directory"
    links = {link["name"]: link["url"] for link in info.extra["prospero"]["links"]}
    assert links["README"] == f"prospero://{prospero.host}:{prospero.port}//pub/README"
    assert links["with space"] == (
        f"prospero://{prospero.host}:{prospero.port}//pub/with%20space")
    assert "README  FILE  prospero://" in body.decode()


async def test_listing_urls_resolve(prospero: Any) -> None:
    _, info = await fetch(purl(prospero, "/pub"))
    link = next(x for x in info.extra["prospero"]["links"] if x["name"] == "with space")
    body, _ = await fetch(link["url"])
    assert "ftp://" in body.decode() and "with%20space.txt;type=a" in body.decode()


async def test_multi_packet_reply_in_windows(prospero: Any) -> None:
    trace: list[str] = []
    body, info = await fetch(purl(prospero, "/pub/many"), trace=trace)
    assert len(info.extra["prospero"]["links"]) == MANY_COUNT
    packets = [line for line in trace if "reassembled from" in line]
    assert packets and int(packets[-1].split("from ")[1].split()[0]) > 16  # two windows
    assert body.decode().count("prospero://") == MANY_COUNT


async def test_forwarded_is_followed(prospero: Any) -> None:
    body, info = await fetch(purl(prospero, "/old"))
    assert info.extra["prospero"]["forwarded"] == [
        f"prospero://{prospero.host}:{prospero.port}//pub/README"]
    assert "forwarded to" in body.decode()


async def test_object_version_field_is_sent(prospero: Any) -> None:
    body, _ = await fetch(purl(prospero, "/pub/README;OBJECT-VERSION=1"))
    assert "/hello.txt;type=a" in body.decode()
    with pytest.raises(RemoteFileNotFound, match="version 7"):
        await fetch(purl(prospero, "/pub/README;OBJECT-VERSION=7"))


async def test_not_found_and_not_authorized(prospero: Any) -> None:
    with pytest.raises(RemoteFileNotFound, match="FAILURE NOT-FOUND OBJECT") as exc:
        await fetch(purl(prospero, "/no/such/thing"))
    assert exc.value.exit_code == 78
    with pytest.raises(RemoteAccessDenied, match="NOT-AUTHORIZED"):
        await fetch(purl(prospero, "/private"))


async def test_unmappable_access_method_is_reported(prospero: Any) -> None:
    body, _ = await fetch(purl(prospero, "/pub/wais"))
    assert "(no URL: a WAIS access method" in body.decode()


# -- ARDP under loss, delay, duplication ----------------------------------------------------------


@pytest.mark.parametrize("hsoname", ["/lossy", "/deaf"])
async def test_lost_packets_are_recovered_by_retransmission(prospero: Any, hsoname: str) -> None:
    trace: list[str] = []
    body, _ = await fetch(purl(prospero, hsoname), trace=trace)
    assert any("sending the request again" in line for line in trace)
    assert body.decode().count("DESCRIPTION: ") == 50


async def test_wait_from_the_server_holds_retransmission(prospero: Any) -> None:
    trace: list[str] = []
    body, _ = await fetch(purl(prospero, "/busy"), trace=trace)
    assert not any("sending the request again" in line for line in trace)
    assert body.decode().count("DESCRIPTION: ") == 50


async def test_a_server_wait_is_capped_at_the_read_timeout(prospero: Any) -> None:
    """Issue 20: /sleepy asks for a 65535 s wait and never answers; the wait is capped at
    the read timeout, so the request gives up (exit 28) instead of holding 18 hours."""
    trace: list[str] = []
    options = FetchOptions(trace=trace.append,
                           schemes=(ProsperoOptions(ardp_timeout=0.2, ardp_retries=0),))
    with anyio.fail_after(60):  # a guard for the old behaviour, not a measured time
        async with Resolver(Config(read_timeout=0.5), warn=lambda _: None) as resolver:
            with pytest.raises(TransferTimeout) as caught:
                await resolver.fetch(purl(prospero, "/sleepy"), options)
    assert caught.value.exit_code == 28
    assert any("asks to wait 65535 s; waiting at most 0.5 s" in line for line in trace)


@pytest.mark.parametrize("hsoname", ["/otherport", "/dup"])
async def test_reply_from_another_port_and_duplicates(prospero: Any, hsoname: str) -> None:
    trace: list[str] = []
    body, _ = await fetch(purl(prospero, hsoname), trace=trace)
    assert body.decode().count("DESCRIPTION: ") == 50
    if hsoname == "/dup":
        assert any("duplicate packet" in line for line in trace)


async def test_silence_gives_up_with_a_timeout() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))  # bound but never read: requests vanish
        port = s.getsockname()[1]
        with pytest.raises(TransferTimeout, match="after 2 attempts") as exc:
            await fetch(f"prospero://127.0.0.1:{port}/x", ardp_timeout=0.05, ardp_retries=1)
    assert exc.value.exit_code == 28


# -- in-process: what was sent, and following access methods ---------------------------------------


async def test_exact_request_received_by_the_server() -> None:
    async with serve_prospero() as server:
        await fetch(server.url("/pub/README") + ";OBJECT-VERSION=1", user="me")
    assert server.requests == [
        "VERSION 5 anyurl\nAUTHENTICATE '' UNAUTHENTICATED me\n"
        "GET-OBJECT-INFO #ALL ASCII '/pub/README' 1\n"
    ]


async def test_directory_request_received_by_the_server() -> None:
    async with serve_prospero() as server:
        await fetch(server.url("/pub"))
    assert server.requests[1] == (
        "VERSION 5 anyurl\nAUTHENTICATE '' UNAUTHENTICATED anonymous\n"
        "DIRECTORY ASCII '/pub' 0\nLIST ATTRIBUTES COMPONENTS\n")


async def test_follow_aftp_to_a_real_ftp_server(peers: Any) -> None:
    ftp = peers["pyftpdlib"]
    async with serve_prospero(ftp=(ftp.host, ftp.port)) as server:
        body, info = await fetch(server.url("/pub/README"), follow=True)
    assert body == peers.expected("pub/readme.txt")
    assert info.url.scheme == "ftp"
    assert info.extra["prospero"]["hsoname"] == "/pub/README"


async def test_follow_local_file(tmp_path: Path) -> None:
    target = tmp_path / "local.txt"
    target.write_bytes(b"seen through a LOCAL access method\n")
    async with serve_prospero(local_file=str(target)) as server:
        body, info = await fetch(server.url("/pub/local"), follow=True)
    assert body == target.read_bytes()
    assert info.url.scheme == "file"


class _Canned(SchemeHandler):
    """A registered handler for file: that answers without touching the disk."""

    schemes = ("file",)
    opened: ClassVar[list[str]] = []

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        _Canned.opened.append(str(url))
        return Resource(ResourceInfo(url=url, size=7), iterate_bytes(b"canned\n"))


async def test_follow_goes_through_the_gate_to_a_registered_handler(tmp_path: Path) -> None:
    target = tmp_path / "never-read.txt"
    target.write_bytes(b"the file on disk, which the registered handler stands in for\n")
    _Canned.opened.clear()
    async with Resolver(Config(), warn=lambda _: None) as resolver:
        resolver.register("file", _Canned)
        async with serve_prospero(local_file=str(target)) as server:
            options = FetchOptions(schemes=(ProsperoOptions(follow=True, **FAST),))
            async with resolver.open(server.url("/pub/local"), options) as resource:
                body = await resource.read()
    assert body == b"canned\n"
    assert _Canned.opened == [f"file://{target}"]


async def test_follow_obeys_the_port_policy() -> None:
    async with serve_prospero(gopher=("127.0.0.1", 25)) as server:
        with pytest.raises(PolicyRefused, match="port 25"):
            await fetch(server.url("/pub/menu"), follow=True)


async def test_follow_uses_the_gateway_of_the_target_scheme() -> None:
    gateway = Gateway()
    try:
        config = Config(gateways={"gopher": gateway.url})
        async with serve_prospero(gopher=("127.0.0.1", 7070)) as server, \
                Resolver(config, warn=lambda _: None) as resolver:
            options = FetchOptions(schemes=(ProsperoOptions(follow=True, **FAST),))
            async with resolver.open(server.url("/pub/menu"), options) as resource:
                await resource.read()
    finally:
        gateway.close()
    assert [seen.line for seen in gateway.seen] == [
        "GET gopher://127.0.0.1:7070/11/ HTTP/1.1"]


async def test_follow_without_a_usable_method() -> None:
    async with serve_prospero(local_file="/nonexistent/anyurl/file") as server:
        with pytest.raises(RemoteFileNotFound, match="WAIS"):
            await fetch(server.url("/pub/wais"), follow=True)
        with pytest.raises(RemoteFileNotFound, match="LOCAL"):
            await fetch(server.url("/pub/local"), follow=True)


async def test_json_report() -> None:
    """--json gives the report as JSON (the data of info.extra["prospero"]), not text."""
    import json

    async with serve_prospero() as server, Resolver(Config(), warn=lambda _: None) as r:
        options = FetchOptions(format="json", schemes=(ProsperoOptions(**FAST),))
        async with r.open(server.url("/pub/README"), options) as resource:
            body = await resource.read()
            assert resource.info.content_type == "application/json"
    data = json.loads(body)
    assert data == json.loads(json.dumps(resource.info.extra["prospero"]))
    assert any(m["url"] and m["url"].startswith("ftp://") for m in data["access_methods"])


async def test_follow_prospero_contents() -> None:
    """PROSPERO-CONTENTS (as Prospero 5.3's dirsrv implements it): the contents are the
    object's CONTENTS attribute, read with GET-OBJECT-INFO CONTENTS."""
    from anyurl.schemes.prospero.loopback import CONTENTS_TEXT

    trace: list[str] = []
    async with serve_prospero() as server:
        report, _ = await fetch(server.url("/pub/contents"))
        body, info = await fetch(server.url("/pub/contents"), trace=trace, follow=True)
    assert b"PROSPERO-CONTENTS" in report and b"not supported" not in report
    assert body == CONTENTS_TEXT.encode()
    assert any("GET-OBJECT-INFO CONTENTS ASCII '/pub/contents' 0" in line for line in trace)
    assert info.kind == "file"


# -- raw fetches and mirrors give the files (issue 19.3) -----------------------------------


async def raw_fetch(url: str) -> tuple[bytes, ResourceInfo]:
    options = FetchOptions(raw=True, schemes=(ProsperoOptions(**FAST),))
    async with Resolver(Config(), warn=lambda _: None) as resolver, \
            resolver.open(url, options) as resource:
        return await resource.read(), resource.info


async def test_raw_fetch_gives_the_file_and_keeps_the_report_as_metadata(peers: Any) -> None:
    ftp = peers["pyftpdlib"]
    async with serve_prospero(ftp=(ftp.host, ftp.port)) as server:
        notes, info = await raw_fetch(server.url("/archive/notes"))
        dos, _ = await raw_fetch(server.url("/archive/dos"))
        readme, ftp_info = await raw_fetch(server.url("/archive/readme"))
        login, login_info = await raw_fetch(server.url("/pub/login"))
    assert notes == CONTENTS_TEXT.encode() and info.kind == "file"
    assert "PROSPERO-CONTENTS" in info.extra["report"]
    assert info.extra["prospero"]["hsoname"] == "/archive/notes"
    assert dos == DOS_TEXT.encode() == b"a\r\nb\r\n"
    assert readme == peers.expected("pub/readme.txt")
    assert ftp_info.url.scheme == "ftp" and "AFTP" in ftp_info.extra["report"]
    # Nothing a mirror can fetch (a telnet session): the report is all there is.
    assert login_info.kind == "report" and b"TELNET" in login


async def test_links_back_to_the_server_under_another_name_are_followed() -> None:
    """The server names itself LOCALHOST (as a real dirsrv on loopback does); its links
    lead back to the address it was reached at, so a mirror stays on it."""
    options = FetchOptions(raw=True, schemes=(ProsperoOptions(**FAST),))
    async with serve_prospero() as server, Resolver(Config(), warn=lambda _: None) as resolver:
        async with resolver.open(server.url("/archive"), options) as resource:
            body = await resource.read()
        links = resolver.handler_for(resource.info.url).links(resource.info, body)
    assert {link["host"] for link in resource.info.extra["prospero"]["links"]} == {
        f"LOCALHOST({server.port})"}
    assert {link.url for link in links} == {
        server.url(h) for h in ("/archive/notes", "/archive/dos", "/archive/readme",
                                "/archive/sub")}


async def test_mirror_of_a_prospero_directory_saves_the_files(
    peers: Any, tmp_path: Path,
) -> None:
    ftp = peers["pyftpdlib"]
    warc = tmp_path / "crawl.warc.gz"
    options = MirrorOptions(root=tmp_path / "m", robots=False, warc=warc)
    async with (
        serve_prospero(ftp=(ftp.host, ftp.port)) as server,
        Resolver(Config(), warn=lambda _: None) as resolver,
    ):
        summary = await Mirror(resolver, options).run([server.url("/archive")])
    assert summary.errors == []
    base = tmp_path / "m" / "prospero" / f"127.0.0.1_{server.port}" / "archive"
    assert (base / "notes").read_bytes() == CONTENTS_TEXT.encode()
    assert (base / "dos").read_bytes() == DOS_TEXT.encode()
    assert (base / "readme").read_bytes() == peers.expected("pub/readme.txt")
    assert (base / "sub" / "deep").read_bytes() == b"deep inside\n"
    manifest = [json.loads(line)
                for line in (tmp_path / "m" / MANIFEST_NAME).read_text().splitlines()]
    assert sum(1 for e in manifest if e["kind"] == "file") == 4
    with open(warc, "rb") as f:
        metadata = b"".join(record.content_stream().read()
                            for record in warcio.archiveiterator.ArchiveIterator(f)
                            if record.rec_type == "metadata")
    assert b"PROSPERO-CONTENTS" in metadata  # the object's report, in the dialogue


async def test_a_reply_larger_than_a_window_with_the_connection_id_byte_swapped() -> None:
    """Issue 20: the real dirsrv byte-swaps the connection id after its first 16-packet
    window; the reply is still ours and arrives whole."""
    trace: list[str] = []
    async with serve_prospero(swap_cid=True) as server:
        body, info = await fetch(server.url("/pub/many"), trace=trace)
    assert len(info.extra["prospero"]["links"]) == MANY_COUNT
    assert body.decode().count("prospero://") == MANY_COUNT
    assert any("byte-swapped" in line for line in trace)
    packets = [line for line in trace if "reassembled from" in line]
    assert packets and int(packets[-1].split("from ")[1].split()[0]) > 16
