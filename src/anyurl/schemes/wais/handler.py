"""The wais scheme (RFC 1738 section 3.9): search a WAIS database, retrieve its documents.

Three URL forms, one TCP connection each (port 210 by default), WAIS' Z39.50-1988 bytes
from :mod:`anyurl.protocols.wais`:

``wais://host/db``
    Init, then a type-3 Search with empty seed words (or ``FetchOptions.search``): what a
    freeWAIS server answers with the database's source description and catalogue. The
    result is rendered as a listing, like a search.
``wais://host/db?words``
    Init, then a type-3 Search with the decoded words (``+`` is a space, as Lynx reads it)
    as seed words. The result is a text listing: score, type, size, headline and, for each
    hit, its document URL ``wais://host/db/<type>/<docid %-escaped>``.
``wais://host/db/wtype/wpath``
    Init, then type-1 retrievals ``docid AND type AND bytes>=start AND bytes<end`` of
    10 000 bytes each (less if the server's Init answer says its records are smaller),
    streamed chunk by chunk. ``wpath`` is the docid %-escaped (RFC 1738), or the CERN/Lynx
    record form ``1=...;2=...;``; a CERN-style length segment (``/db/TEXT/105/docid``)
    is a hint written when the URL was made: the whole document is fetched whatever it
    says, and a difference is reported. ``FetchOptions.offset`` resumes at that byte.

The loop ends at the first short (or empty) chunk, or at a diagnostic after the first
chunk. Errors: a diagnostic instead of results
:class:`RemoteFileNotFound` (78) for a missing database or document, :class:`ServerError`
(22) otherwise; an InitResponse refusing us :class:`LoginDenied` (67); bytes that are not
WAIS :class:`ProtocolError` (8), a short answer too, at once; the connection closing
mid-answer :class:`ConnectionLost`; no answer to the Init within
``WAISOptions.init_timeout`` (10 s, at most the read timeout) :class:`TransferTimeout`
(28) saying the server may not speak WAIS: a Z39.50-1995 server never answers it.

Through ``Config.gateways["wais"]`` the resolver sends wais: URLs to an HTTP gateway
instead; that is the gateway handler's business, not this module's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio

from anyurl.errors import (
    ConnectionLost,
    LoginDenied,
    ProtocolError,
    RemoteFileNotFound,
    ServerError,
    TransferTimeout,
    URLError,
)
from anyurl.links import FILE, Link, checked
from anyurl.net.transport import Stream
from anyurl.numbers import ascii_int
from anyurl.protocols import wais
from anyurl.protocols.wais import (
    NEED_DATA,
    ConnectionClosed,
    InitResponse,
    SearchResponse,
    WAISConnection,
    WAISReplyError,
)
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, SchemeHandler, Trace
from anyurl.schemes.wais.options import WAISOptions
from anyurl.schemes.wais.view import WAISPath
from anyurl.url import URL, decode, encode_wire, quote
from anyurl.url.charset import display

__all__ = ["WAISHandler"]

DEFAULT_MAX_DOCUMENTS = 100


@dataclass(frozen=True)
class _Request:
    database: str
    search: str | None  # None: a document (or the bare database when docid is None too)
    wtype: str | None = None
    docid: bytes | None = None
    length: int | None = None


def _parse(url: URL) -> _Request:
    """The URL's parts from its raw path, so that an escaped ``/`` or ``;`` stays data."""
    raw = url.path or ""
    path, question, search_raw = raw.partition("?")
    segments = path.split("/")
    database = decode(segments[0])
    if not database:
        raise URLError(f"{url.masked()} names no WAIS database", url=url,
                       hint="wais://host/database[?words] or wais://host/database/type/docid")
    if "\x1f" in database:
        raise URLError(f"{url.masked()}: the database name holds a 0x1F delimiter", url=url)
    if question:
        if len(segments) > 1:
            raise URLError(f"{url.masked()}: a search URL has only a database before '?'",
                           url=url)
        # RFC 1738 gives "+" no meaning in a wais search: it is sent as it is, as
        # `anyurl parse` shows it (a WAIS server splits seed words at it anyway).
        return _Request(database, decode(search_raw))
    if len(segments) == 1:
        return _Request(database, None)
    if len(segments) == 2 or not segments[2]:
        raise URLError(f"{url.masked()} has a document type but no document id (wpath)",
                       url=url)
    wtype = decode(segments[1])
    rest = segments[2:]
    length = ascii_int(rest[0]) if len(rest) >= 2 else None  # CERN's length segment
    if length is not None:
        rest = rest[1:]
    return _Request(database, None, wtype or None, wais.wpath_to_docid("/".join(rest)), length)


def _hostport(url: URL) -> str:
    host = url.host or ""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return host if url.port is None else f"{host}:{url.port}"


class _Session:
    """One connection: the stream, the framing core and the trace."""

    def __init__(self, stream: Stream, url: URL, trace: Trace | None):
        self.stream = stream
        self.url = url
        self.trace = trace
        self.core = WAISConnection()

    async def exchange(self, apdu: bytes, what: str) -> InitResponse | SearchResponse:
        if self.trace is not None:
            self.trace(f"> {what} ({len(apdu)}-byte APDU)")
        await self.stream.send(self.core.send(apdu))
        while True:
            try:
                event = self.core.next_event()
            except WAISReplyError as exc:
                raise ProtocolError(
                    f"the WAIS server of {self.url.masked()} sent something that is not a "
                    f"WAIS message: {exc}",
                    url=self.url,
                ) from None
            if event is NEED_DATA:
                self.core.receive_data(await self.stream.receive(wais.DEFAULT_MESSAGE_SIZE))
                continue
            if isinstance(event, ConnectionClosed):
                raise ConnectionLost(
                    f"the WAIS server of {self.url.masked()} closed the connection before "
                    f"answering {what}",
                    url=self.url,
                )
            assert isinstance(event, wais.Message)
            try:
                reply = wais.parse_apdu(event.apdu)
            except WAISReplyError as exc:
                raise ProtocolError(
                    f"cannot read the WAIS server's answer to {what} for "
                    f"{self.url.masked()}: {exc}",
                    url=self.url,
                ) from None
            if not isinstance(reply, InitResponse | SearchResponse):
                raise ProtocolError(
                    f"the WAIS server of {self.url.masked()} answered {what} with PDU type "
                    f"{event.pdu_type}",
                    url=self.url,
                )
            if self.trace is not None:
                self.trace(f"< {_describe(reply)}")
            return reply


def _init_seconds(stream: Stream, options: FetchOptions) -> float:
    """The Init's own deadline: ``WAISOptions.init_timeout``, at most the read timeout."""
    seconds = float(options.get(WAISOptions).init_timeout)
    read = stream.read_timeout
    return min(seconds, read) if read is not None and read > 0 else seconds


async def _init(session: _Session, seconds: float) -> InitResponse | SearchResponse:
    """Send the Init and read its answer within ``seconds``.

    A server that does not answer WAIS' Init is most likely no WAIS server: Z39.50-1995
    servers (yaz) read the 1988 header as the start of a BER message and wait for the
    rest. Its silence is reported as that, not as a slow server to give more time."""
    url = session.url
    try:
        with anyio.fail_after(seconds):
            return await session.exchange(wais.init_apdu(), "Init")
    except TimeoutError:  # ours, or the read timeout's TransferTimeout when they coincide
        raise TransferTimeout(
            f"the server of {url.masked()} did not answer WAIS' Init within {seconds:g} s: "
            "it may not speak WAIS (Z39.50-1988); a Z39.50-1995 server such as yaz never "
            "answers it", url=url,
            hint="Check that the host and port are a WAIS server's.") from None


def _describe(reply: InitResponse | SearchResponse) -> str:
    if isinstance(reply, InitResponse):
        return (f"InitResponse: {'accepted' if reply.accepted else 'refused'}, maximum "
                f"record size {reply.maximum_record_size}")
    parts = [f"SearchResponse: status {reply.status}"]
    if reply.headers:
        parts.append(f"{len(reply.headers)} document headers")
    if reply.texts:
        parts.append(f"{sum(len(t.text) for t in reply.texts)} bytes of text")
    parts += [f"diagnostic {d.code} {d.text!r}" for d in reply.diagnostics]
    return ", ".join(parts)


class WAISHandler(SchemeHandler):
    """``wais:`` URLs: native WAIS (Z39.50-1988) searches and document retrieval."""

    schemes = ("wais",)
    options_type = WAISOptions

    def is_listing(self, info: ResourceInfo) -> bool:
        """A search's result and a bare database's listing list documents."""
        return info.kind == "directory"

    def search_url(self, url: URL, term: str) -> str | None:
        """A database's URL asked with ``term`` (``wais://h/db?term``, RFC 1738 3.9; a
        search of its own replaced), the term %-escaped so a CR stays data; None for a
        document's URL."""
        parts = url.parts
        if not isinstance(parts, WAISPath) or not parts.database or parts.wtype is not None:
            return None
        from urllib.parse import quote as escape_all

        return str(url).split("?", 1)[0] + "?" + escape_all(term, safe="")

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """The documents of a search result or of a bare database's listing.

        Each hit's document URL (``wais://host/db/<type>/<docid %-escaped>``, RFC 1738
        3.9) is a ``"file"`` link labelled with its headline, read from
        ``info.extra["wais"]``, the data the listing is rendered from (the handler has
        no raw form: a search answer is binary Z39.50). A document, the catalogue
        (``Catalog for database``) included, is a ``"file"`` with no links: a
        catalogue's lines give at most the local part of a docid (freeWAIS-sf's
        ``DocID: start end path``), and a URL needs the whole docid as the server sent
        it in a search answer; the same documents are reached by a search.
        """
        record = info.extra.get("wais")
        if info.kind != "directory" or not isinstance(record, dict):
            return []
        links = []
        for document in record.get("documents") or ():
            target = document.get("url") if isinstance(document, dict) else None
            if isinstance(target, str):
                headline = display(str(document.get("headline") or "").strip()) or None
                links.append(Link(target, FILE, headline))
        return checked(links)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        request = _parse(url)
        lines = [f"Init (version 1, search; message size {wais.DEFAULT_MESSAGE_SIZE})"]
        if request.docid is None:
            words = request.search if request.search is not None else (options.search or "")
            lines.append(f"Search type 3: database {request.database!r}, seed words "
                         f"{words!r}, at most {self._max_documents(options)} documents")
        else:
            lines.append(
                f"Search type 1: database {request.database!r}, docid "
                f"{wais.docid_to_wpath(request.docid)}, type {request.wtype!r}, bytes "
                f"{options.offset}-{options.offset + wais.CHUNK_SIZE} and on, "
                f"{wais.CHUNK_SIZE} at a time"
            )
        return lines

    def _max_documents(self, options: FetchOptions) -> int:
        return options.get(WAISOptions).max_documents

    async def _connect(self, url: URL, options: FetchOptions) -> tuple[_Session, InitResponse]:
        stream = await self.dialer.connect_tcp(
            url.connect_host, url.effective_port or wais.DEFAULT_PORT, url=url,
            connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout, what="the WAIS connection",
        )
        session = _Session(stream, url, options.trace)
        try:
            init = await _init(session, _init_seconds(stream, options))
            if not isinstance(init, InitResponse):
                raise ProtocolError(
                    f"the WAIS server of {url.masked()} answered Init with a SearchResponse",
                    url=url,
                )
            if not init.accepted:
                raise LoginDenied(f"the WAIS server of {url.masked()} refused our Init",
                                  url=url)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await stream.aclose()
            raise
        return session, init

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        request = _parse(url)
        session, init = await self._connect(url, options)
        try:
            if request.docid is None:
                return await self._search(url, request, session, options)
            return await self._document(url, request, session, init, options)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await session.stream.aclose()
            raise

    # -- searches -----------------------------------------------------------------------------

    async def _search(
        self, url: URL, request: _Request, session: _Session, options: FetchOptions
    ) -> Resource:
        words = request.search if request.search is not None else (options.search or "")
        apdu = wais.search_apdu(encode_wire(request.database), encode_wire(words),
                                max_documents=self._max_documents(options))
        reply = await session.exchange(apdu, f"Search {words!r} in {request.database!r}")
        await session.stream.aclose()
        assert isinstance(reply, SearchResponse)
        if not reply.headers and not reply.diagnostics and not words.strip():
            # freeWAIS-sf answers an empty-word search of a missing database with no
            # documents and no diagnostic, but a search with words with "S1 not
            # available": ask again with a word, so both kinds of URL fail alike.
            probe = await self._probe(url, request, options)
            if probe is not None:
                reply = probe
        if reply.diagnostics and not reply.headers:
            d = reply.diagnostics[0]
            cls = RemoteFileNotFound if "not available" in d.text or d.code == "S1" else ServerError
            raise cls(
                f"the WAIS server of {url.masked()} answered the search with diagnostic "
                f"{d.code}: {d.text}",
                url=url,
            )
        text = _render_listing(url, request.database, words, reply)
        return Resource(
            ResourceInfo(
                url=url, size=len(text), total_size=len(text),
                content_type="text/plain; charset=utf-8", kind="directory",
                extra={"wais": {
                    "database": request.database, "search": words,
                    "documents": [
                        {"url": _document_url(url, request.database, h), "score": h.score,
                         "type": h.types[0] if h.types else None, "length": h.length,
                         "headline": h.headline}
                        for h in reply.headers
                    ],
                    "diagnostics": [[d.code, d.text] for d in reply.diagnostics],
                }},
            ),
            iterate_bytes(text),
        )

    async def _probe(self, url: URL, request: _Request,
                     options: FetchOptions) -> SearchResponse | None:
        """A one-word search of the database, to learn whether it exists at all."""
        session, _ = await self._connect(url, options)
        try:
            apdu = wais.search_apdu(encode_wire(request.database), b"a", max_documents=1)
            reply = await session.exchange(apdu, f"Search 'a' in {request.database!r} "
                                           "(does the database exist?)")
        finally:
            with anyio.CancelScope(shield=True):
                await session.stream.aclose()
        assert isinstance(reply, SearchResponse)
        return reply if reply.diagnostics and not reply.headers else None

    # -- documents ---------------------------------------------------------------------------

    async def _document(
        self, url: URL, request: _Request, session: _Session, init: InitResponse,
        options: FetchOptions,
    ) -> Resource:
        assert request.docid is not None
        chunk = wais.CHUNK_SIZE
        if init.maximum_record_size:
            # Leave room for the docid and the response's own fields.
            chunk = max(512, min(chunk, init.maximum_record_size - len(request.docid) - 512))
        database = encode_wire(request.database)
        wtype = encode_wire(request.wtype) if request.wtype else None
        start = max(0, options.offset)
        # A CERN-style length segment is a hint written when the URL was made: the
        # document may have grown since. It is not trusted to end the transfer early;
        # the document is read to its end, and a difference is reported.
        hint = request.length

        async def fetch(offset: int) -> tuple[bytes, SearchResponse]:
            end = offset + chunk
            apdu = wais.retrieval_apdu(database, request.docid or b"", wtype, offset, end)
            reply = await session.exchange(apdu, f"Retrieve bytes {offset}-{end}")
            assert isinstance(reply, SearchResponse)
            return b"".join(t.text for t in reply.texts), reply

        first, reply = await fetch(start)
        if not reply.texts:
            d = reply.diagnostics[0] if reply.diagnostics else None
            said = f"diagnostic {d.code}: {d.text}" if d else "no text and no diagnostic"
            raise RemoteFileNotFound(
                f"the WAIS server of {url.masked()} did not return the document: {said}",
                url=url,
            )

        async def chunks() -> AsyncIterator[bytes]:
            try:
                data, offset = first, start
                while True:
                    if data:
                        yield data
                    offset += len(data)
                    if len(data) < chunk:
                        break  # a short chunk: the document's end
                    data, more = await fetch(offset)
                    if not more.texts:
                        break
                if hint is not None and not start and offset != hint:
                    self.warn(f"{url.masked()} says the document has {hint} bytes; it has "
                              f"{offset} (the whole document was fetched)")
            finally:
                with anyio.CancelScope(shield=True):
                    await session.stream.aclose()

        size = None
        name = _filename(request)
        return Resource(
            ResourceInfo(
                url=url, size=size, total_size=None, offset=start,
                content_type=wais.content_type_for(request.wtype), filename=name,
                kind="file",
                extra={"wais": {"database": request.database, "type": request.wtype,
                                "docid": wais.docid_to_wpath(request.docid)}},
            ),
            chunks(),
        )


def _filename(request: _Request) -> str | None:
    """The local id's file name when the docid has freeWAIS' record layout."""
    records = wais.docid_records(request.docid or b"")
    for kind, value in records or ():
        if kind == 3:
            name = value.decode("latin-1").rsplit("/", 1)[-1].strip()
            return name or None
    return None


def _document_url(url: URL, database: str, header: wais.DocumentHeader) -> str:
    wtype = header.types[0] if header.types else "TEXT"
    return (f"wais://{_hostport(url)}/{quote(database)}/{quote(wtype)}/"
            f"{wais.docid_to_wpath(header.docid)}")


def _render_listing(url: URL, database: str, words: str, reply: SearchResponse) -> bytes:
    count = len(reply.headers)
    what = f"search {words!r}" if words else "no seed words"
    out = [f"WAIS database {database!r} on {_hostport(url)}, {what}: "
           f"{count} document{'s' if count != 1 else ''}"]
    if reply.seed_words_used and reply.seed_words_used != words:
        out.append(f"seed words used: {reply.seed_words_used}")
    for n, h in enumerate(reply.headers, start=1):
        types = ",".join(h.types) or "?"
        size = "?" if h.length is None else str(h.length)
        out.append(f"{n:3}. score {h.score if h.score is not None else '?':>4}  {types:5} "
                   f"{size:>7} bytes  {(h.headline or '').strip()}")
        out.append(f"     {_document_url(url, database, h)}")
    for d in reply.diagnostics:
        out.append(f"diagnostic {d.code}: {d.text}")
    return ("\n".join(out) + "\n").encode("utf-8", "surrogateescape")
