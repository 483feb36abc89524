"""A crawl's WARC file: each URL's records, written under one lock with the state's note.

:class:`Archive` holds the crawl's :class:`~anyurl.downloads.warc.WARCOutput` (None
without ``--warc``) and its lock: a URL's records and the state's note of where they
end are kept in order under it (:mod:`.outcomes` holds it around both), so that a crawl
killed at any point cuts off the records of URLs it had not recorded (the writer's
``cut_at``) and archives each URL once. What is recorded: a fetched resource (its
``response`` and ``request``, or a ``resource``, as its descriptor's ``warc_record``
says), a ``revisit`` of an unchanged payload, a redirect's 3xx head, an error answer's
request and response, robots.txt, a symbolic link's ``metadata``. Each write runs in a
worker thread (it compresses); at the end, the CDXJ index beside the files.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from anyurl.downloads.output import open_in_tree
from anyurl.errors import AnyURLError
from anyurl.registry import spec_for
from anyurl.resource import ResourceInfo
from anyurl.url import URL

if TYPE_CHECKING:
    from anyurl.downloads.warc import WARCOutput, Written

__all__ = ["Archive", "cdxj_path", "warc_record"]


class Archive:
    """The WARC records of one crawl into ``root`` (see the module docstring)."""

    def __init__(self, root: Path):
        self.root = root
        #: The WARC file (rolled over at its size), once :meth:`open`; None without one.
        self.warc: WARCOutput | None = None
        #: Held while a URL's records are written and the state's note of them is made
        #: (:meth:`.ledger.Ledger.mark`), so that both are in the same order.
        self.lock = anyio.Lock()

    def open(self, path: Path, max_size: int | None, end: tuple[str, int] | None) -> None:
        """Append to the WARC file at ``path``, cut back first to ``end`` (where the last
        record the state noted ends: a killed crawl's later records go)."""
        from anyurl.downloads.warc import WARCOutput

        self.warc = WARCOutput(path, append=True, max_size=max_size,
                               cut_at=(Path(end[0]), end[1]) if end else None)

    def close(self) -> None:
        """Close the WARC file (every record is in it already); closing twice does nothing."""
        if self.warc is not None:
            self.warc.close()

    async def index(self) -> Path:
        """Write the CDXJ index of the WARC files beside the first (``site.cdxj``)."""
        warc = self.warc
        assert warc is not None
        return await anyio.to_thread.run_sync(_index, warc.files, cdxj_path(warc.first))

    async def answer(self, target: str, answer: dict[str, object],
                              payload: bytes) -> Written:
        """The request and response records of an error answer (``AnyURLError.answer``)
        to the URL ``target`` (masked); the caller holds the WARC lock."""
        warc = self.warc
        assert warc is not None
        request = answer["request"]
        assert isinstance(request, dict)
        headers = answer.get("headers")

        def write() -> Written:
            warc.write_http(target, method=request["method"],
                            request_target=request["target"],
                            http_version=request["http_version"],
                            request_headers=list(request["headers"]), request_body=None,
                            status=int(str(answer.get("status"))),
                            reason=str(answer.get("reason") or ""),
                            response_headers=list(headers) if isinstance(headers, list) else [],
                            payload=payload)
            assert warc.last is not None
            return warc.last

        return await anyio.to_thread.run_sync(write)

    async def robots(self, answer: ResourceInfo | AnyURLError, body: bytes) -> None:
        """robots.txt as the crawl asked it, in the WARC as any request is (wget and
        Heritrix record it too): its response, or its error answer (a 404)."""
        if self.warc is None:
            return
        async with self.lock:
            if isinstance(answer, AnyURLError):
                if answer.answer is not None and isinstance(answer.answer.get("request"), dict):
                    await self.answer(str(answer.url), answer.answer, body)
                return
            if warc_record(answer.url) == "response":
                warc = self.warc
                await anyio.to_thread.run_sync(
                    lambda: warc.write_result(answer, io.BytesIO(body)))

    async def redirect(self, info: ResourceInfo, dialogue: list[str]) -> Written:
        """The WARC records of a redirect: a ``response`` with the 3xx head (no body was
        read) and the ``request`` as the dialogue shows it was sent."""
        warc = self.warc
        assert warc is not None
        method, target, version, fields = request_of(dialogue)

        def write() -> Written:
            warc.write_http(info.url.masked(), method=method, request_target=target,
                            http_version=version, request_headers=fields,
                            request_body=None, status=info.status or 0,
                            reason=info.reason or "", response_headers=list(info.headers),
                            payload=b"")
            assert warc.last is not None
            return warc.last

        return await anyio.to_thread.run_sync(write)

    async def result(self, info: ResourceInfo, path: Path, dialogue: list[str]) -> Written:
        """The records of a fetched resource (the caller holds the WARC lock)."""
        warc = self.warc
        assert warc is not None

        def write() -> Written:
            with open(open_in_tree(self.root, path, os.O_RDONLY), "rb") as payload:
                warc.write_result(info, payload, dialogue)
            assert warc.last is not None
            return warc.last

        return await anyio.to_thread.run_sync(write)

    async def revisit(self, url: str, refers: tuple[str, str, str, str | None],
                       head: ResourceInfo) -> Written:
        """A ``revisit`` record of ``url``, whose payload is the one ``refers`` recorded
        (the caller holds the WARC lock); an HTTP revisit keeps the new response head."""
        warc = self.warc
        assert warc is not None
        from anyurl.downloads.warc import Written

        record_id, uri, date, digest = refers
        earlier = Written(record_id, uri, date, digest, warc.path, 0)
        http = None
        if head.status is not None and warc_record(head.url) == "response":
            http = (head.status, head.reason or "", list(head.headers))

        def write() -> Written:
            warc.write_revisit(url, refers_to=earlier, content_type=head.content_type,
                               http_status=http)
            assert warc.last is not None
            return warc.last

        return await anyio.to_thread.run_sync(write)


    async def metadata(self, url: str, body: bytes) -> Written:
        """A ``metadata`` record about ``url`` (a symbolic link's target; the caller
        holds the lock)."""
        warc = self.warc
        assert warc is not None

        def write() -> Written:
            return warc.write_metadata(url, body)

        return await anyio.to_thread.run_sync(write)


def warc_record(url: URL) -> str:
    """How the WARC records ``url``'s transfers (its descriptor's ``warc_record``)."""
    spec = spec_for(url.scheme)
    return spec.warc_record if spec is not None else "resource"


def request_of(dialogue: list[str]) -> tuple[str, str, str, list[tuple[str, str]]]:
    """The last request the dialogue shows (``> GET /a HTTP/1.1``, ``> Host: h``):
    method, target, version and header fields (credentials are masked when written)."""
    method, target, version = "GET", "/", "HTTP/1.1"
    fields: list[tuple[str, str]] = []
    for line in dialogue:
        if not line.startswith("> "):
            continue
        text = line[2:]
        words = text.split(" ")
        if len(words) == 3 and words[2].startswith("HTTP/"):
            (method, target, version), fields = words, []
        elif ":" in text:
            name, _, value = text.partition(":")
            fields.append((name.strip(), value.strip()))
    return method, target, version, fields


def cdxj_path(warc: Path) -> Path:
    """The CDXJ index beside a WARC file: ``site.warc.gz`` -> ``site.cdxj``."""
    name = warc.name
    for suffix in (".warc.gz", ".warc", ".gz"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return warc.with_name(name + ".cdxj")


def _index(warcs: list[Path], target: Path) -> Path:
    from anyurl.downloads.warc import write_cdxj

    return write_cdxj(warcs, target)

