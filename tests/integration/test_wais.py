"""wais: against the loopback WAIS server (the `wais` peer, and in-process).

No WAIS server is packaged; the peer is anyurl's own `python -m anyurl.schemes.wais.loopback`,
started by
the `peers` fixture. The bytes a real freeWAIS-sf server sends are covered by
tests/unit/test_wais_core.py. Every test runs on asyncio and trio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anyurl.config import Config
from anyurl.errors import RemoteFileNotFound
from anyurl.protocols import wais
from anyurl.protocols.wais import InitRequest, Operator, QueryTerm, SearchRequest
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.wais.loopback import (
    DATABASE,
    LARGE_SIZE,
    WAISDocument,
    build_documents,
    serve_wais,
)

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def fetch(url: str, *, trace: list[str] | None = None,
                **kw: Any) -> tuple[bytes, ResourceInfo, int]:
    """The body, the info and how many chunks the resource yielded."""
    options = FetchOptions(trace=trace.append if trace is not None else None, **kw)
    async with Resolver(Config(), warn=lambda _: None) as resolver, \
            resolver.open(url, options) as resource:
        chunks = [chunk async for chunk in resource]
        return b"".join(chunks), resource.info, len(chunks)


@pytest.fixture
def server(peers: Any) -> Any:
    return peers["wais"]


def docs(peer: Any) -> dict[str, WAISDocument]:
    return {d.name: d for d in build_documents(peer.host, peer.port)}


def doc_url(peer: Any, doc: WAISDocument) -> str:
    return f"wais://{peer.host}:{peer.port}/{DATABASE}/{doc.wtype}/" + wais.docid_to_wpath(
        doc.docid)


async def test_search_lists_documents_with_their_urls(server: Any) -> None:
    body, info, _ = await fetch(f"wais://{server.host}:{server.port}/{DATABASE}?gopher%20minnesota")
    text = body.decode()
    assert info.kind == "directory"
    found = info.extra["wais"]["documents"]
    assert found[0]["headline"].startswith("gopher.txt") and found[0]["score"] == 1000
    assert found[0]["url"] == doc_url(server, docs(server)["gopher.txt"])
    assert found[0]["url"] in text and "search 'gopher minnesota'" in text


async def test_listed_url_fetches_the_document(server: Any) -> None:
    _, info, _ = await fetch(f"wais://{server.host}:{server.port}/{DATABASE}?prospero")
    url = info.extra["wais"]["documents"][0]["url"]
    body, doc_info, _ = await fetch(url)
    assert body == docs(server)["prospero.txt"].content
    assert doc_info.content_type == "text/plain" and doc_info.filename == "prospero.txt"


async def test_bare_database_lists_source_and_catalogue(server: Any) -> None:
    body, info, _ = await fetch(f"wais://{server.host}:{server.port}/{DATABASE}")
    headlines = [d["headline"] for d in info.extra["wais"]["documents"]]
    assert headlines == [f"Information on database: {DATABASE}",
                         f"Catalog for database: {DATABASE}"]
    source = info.extra["wais"]["documents"][0]
    assert source["type"] == "WSRC"
    body, src_info, _ = await fetch(source["url"])
    assert body.startswith(b"(:source") and src_info.content_type == "application/x-wais-source"


async def test_large_document_streams_chunk_by_chunk(server: Any) -> None:
    trace: list[str] = []
    body, info, chunks = await fetch(doc_url(server, docs(server)["large.txt"]), trace=trace)
    assert body == docs(server)["large.txt"].content and len(body) == LARGE_SIZE
    assert chunks == 3
    assert [line for line in trace if line.startswith("> Retrieve")] == [
        "> Retrieve bytes 0-10000 (218-byte APDU)",
        "> Retrieve bytes 10000-20000 (222-byte APDU)",
        "> Retrieve bytes 20000-30000 (222-byte APDU)",
    ]
    assert info.size is None  # unknown without a length in the URL


async def test_length_segment_is_a_hint(server: Any) -> None:
    """A CERN length segment never ends the transfer early (issue 12): the document is
    fetched whole, and a stale length is reported."""
    doc = docs(server)["large.txt"]
    for length in (LARGE_SIZE, 100):
        url = (f"wais://{server.host}:{server.port}/{DATABASE}/TEXT/{length}/"
               + wais.docid_to_wpath(doc.docid))
        warnings: list[str] = []
        async with Resolver(Config(), warn=warnings.append) as resolver:
            body = await resolver.fetch(url)
        assert body == doc.content
        stale = [w for w in warnings if "says the document has" in w]
        assert bool(stale) == (length != LARGE_SIZE), warnings


async def test_resume_at_an_offset(server: Any) -> None:
    doc = docs(server)["large.txt"]
    body, info, _ = await fetch(doc_url(server, doc), offset=15_000)
    assert body == doc.content[15_000:] and info.offset == 15_000


async def test_binary_document(server: Any) -> None:
    doc = docs(server)["logo.gif"]
    body, info, _ = await fetch(doc_url(server, doc))
    assert body == doc.content and info.content_type == "image/gif"


async def test_lynx_record_form_of_the_docid(server: Any) -> None:
    doc = docs(server)["wais.txt"]
    records = wais.docid_records(doc.docid)
    assert records is not None
    lynx = "".join(f"{kind}={wais.docid_to_wpath(value)};" for kind, value in records)
    body, _, _ = await fetch(f"wais://{server.host}:{server.port}/{DATABASE}/TEXT/{lynx}")
    assert body == doc.content


@pytest.mark.parametrize(
    ("path", "match"),
    [
        pytest.param("nodb?x", "S1: The following database is not available", id="no-database"),
        pytest.param(f"{DATABASE}/TEXT/%01%02xx", "not in this database", id="no-document"),
    ],
)
async def test_diagnostics_become_not_found(server: Any, path: str, match: str) -> None:
    with pytest.raises(RemoteFileNotFound, match=match) as exc:
        await fetch(f"wais://{server.host}:{server.port}/{path}")
    assert exc.value.exit_code == 78


async def test_wrong_type_is_not_found(server: Any) -> None:
    doc = docs(server)["gopher.txt"]
    url = f"wais://{server.host}:{server.port}/{DATABASE}/GIF/" + wais.docid_to_wpath(doc.docid)
    with pytest.raises(RemoteFileNotFound):
        await fetch(url)


async def test_search_from_options_when_the_url_has_none(server: Any) -> None:
    _, info, _ = await fetch(f"wais://{server.host}:{server.port}/{DATABASE}", search="ranks")
    assert [d["headline"].split()[0] for d in info.extra["wais"]["documents"]] == ["wais.txt"]


async def test_what_the_server_received() -> None:
    async with serve_wais() as srv:
        doc = srv.document("gopher.txt")
        await fetch(srv.document_url("gopher.txt"))
        await fetch(srv.url(f"{DATABASE}?a%2Bb+c"))
    init, retrieval, _, search = srv.requests
    assert isinstance(init, InitRequest) and init.preferred_message_size == 100_000
    assert isinstance(retrieval, SearchRequest) and isinstance(search, SearchRequest)
    assert retrieval.query_type == b"1" and retrieval.databases == (DATABASE.encode(),)
    assert retrieval.terms == (
        QueryTerm(b"un re ig ig ig ig", doc.docid),
        QueryTerm(b"wt re ig ig ig ig", b"TEXT"), Operator(b"a"),
        QueryTerm(b"wb ro ig ig ig ig", b"0"), Operator(b"a"),
        QueryTerm(b"wb rl ig ig ig ig", b"10000"), Operator(b"a"),
    )
    # "+" is a plus as written (RFC 1738 has no "+ means space" rule): the view and the
    # handler agree
    assert (search.query_type, search.seed_words) == (b"3", b"a+b+c")


@pytest.mark.parametrize("path", ["nodb", "nodb?x"], ids=["bare", "with-search"])
async def test_a_missing_database_is_78_with_and_without_a_search(path: str) -> None:
    """freeWAIS-sf answers an empty search of a missing database with no documents and no
    diagnostic: anyurl asks again with a word, so both URLs fail alike (issue 12)."""
    from anyurl.schemes.wais.loopback import serve_wais

    async with serve_wais(quiet_empty_search=True) as srv, \
            Resolver(Config(allowed_ports=frozenset({srv.port})), warn=lambda _: None) as r:
        with pytest.raises(RemoteFileNotFound, match="not available"):
            await r.fetch(srv.url(path))
        assert b"documents" in await r.fetch(srv.url(DATABASE))  # an existing one lists


def test_two_searches_of_one_database_mirror_apart(server: Any, tmp_path: Path) -> None:
    """Issue 31: both searches wrote demo/.catalogue (the first was lost) and the
    manifest gave both URLs one size and digest."""
    import json
    import os
    import subprocess
    import sys

    src = Path(__file__).resolve().parents[2] / "src"
    base = f"wais://{server.host}:{server.port}/{DATABASE}"
    urls = [f"{base}?gopher", f"{base}?protocol"]
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    r = subprocess.run([sys.executable, "-m", "anyurl", "mirror", "--depth", "0", "-o",
                        str(tmp_path), *urls], capture_output=True, text=True, env=env,
                       timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    entries = {e["url"]: e for e in map(json.loads,
                                        (tmp_path / "manifest.jsonl").read_text().splitlines())}
    first, second = (entries[u] for u in urls)
    assert first["file"] != second["file"] and first["sha256"] != second["sha256"]
    for entry in (first, second):
        saved = (tmp_path / entry["file"]).read_bytes()
        assert len(saved) == entry["size"]
