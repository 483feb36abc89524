"""A loopback WAIS server: Z39.50-1988 with WAIS extensions, one tiny database.

No WAIS server is packaged (freeWAIS-sf is 1996 C code that needs porting), so this one
serves anyurl's tests and ``anyurl demo``. It reads and writes the bytes of
:mod:`anyurl.protocols.wais` -- the same encoder as the client, so agreement with it proves
symmetry; agreement with the freeWAIS-sf server is covered separately by the unit tests
built from the bytes it was observed to send (``specs/wais.md`` section 9).

Run it with ``python -m anyurl.schemes.wais.loopback --host 127.0.0.1 --port 2210``, or::

    async with serve_wais() as server:
        url = server.url("demo?gopher")

Database ``demo`` (what freeWAIS-sf does is imitated where known):

* ``gopher.txt``, ``prospero.txt``, ``wais.txt``: short TEXT documents;
* ``large.txt``: 25 000 bytes of TEXT (three retrieval chunks of 10 000);
* ``logo.gif``: a small binary GIF document;
* empty seed words: the source description ("Information on database: demo", WSRC) and
  the catalogue ("Catalog for database: demo", TEXT), as freeWAIS-sf answers;
* no hits: the catalogue header alone; an unknown database: an ``S1`` diagnostic.

Type-3 searches score documents by how often the seed words occur (top score 1000);
type-1 retrievals return bytes [start, end) of the document whose docid and type match.
Docids have freeWAIS' record layout (1 server, 2 database, 3 local id, 7 copyright).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

import anyio
import anyio.abc

from anyurl.numbers import ascii_int
from anyurl.protocols.wais import (
    NEED_DATA,
    ConnectionClosed,
    Diagnostic,
    DocumentHeader,
    DocumentText,
    InitRequest,
    Message,
    Operator,
    QueryTerm,
    SearchRequest,
    WAISConnection,
    WAISReplyError,
    docid_to_wpath,
    init_response_apdu,
    parse_apdu,
    search_response_apdu,
    tlv,
    tnum,
)
from anyurl.testing._server import command_line, open_tcp, serve_until_interrupted

__all__ = ["DATABASE", "WAISDocument", "WAISServer", "build_documents", "main", "serve_wais"]

log = logging.getLogger("anyurl.schemes.wais.loopback")

DATABASE = "demo"
LARGE_SIZE = 25_000


@dataclass(frozen=True)
class WAISDocument:
    """One document of the database: name, WAIS type, content, headline, docid."""

    name: str
    wtype: str
    content: bytes
    headline: str
    docid: bytes = b""


def _large_text(size: int) -> bytes:
    out = bytearray()
    n = 0
    while len(out) < size:
        out += b"line %05d of the large WAIS document, %s\n" % (
            n, hashlib.sha256(b"%d" % n).hexdigest()[:16].encode())
        n += 1
    return bytes(out[:size])


GIF = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00"
       b"\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")


def build_documents(host: str, port: int, database: str = DATABASE) -> list[WAISDocument]:
    """The database's documents, their docids naming ``host:port``."""
    texts = [
        ("gopher.txt", "TEXT", b"The gopher protocol was designed at the University of "
         b"Minnesota.\nGopher menus list items by type.\n"),
        ("prospero.txt", "TEXT", b"Prospero is a distributed file system from USC/ISI.\n"
         b"Its objects carry access methods: AFTP, GOPHER, WAIS.\n"),
        ("wais.txt", "TEXT", b"WAIS means Wide Area Information Servers.\nA WAIS search "
         b"sends seed words; the server ranks documents.\n"),
        ("large.txt", "TEXT", _large_text(LARGE_SIZE)),
        ("logo.gif", "GIF", GIF),
    ]
    source = (f'(:source\n   :version  3\n   :ip-name "{host}"\n   :tcp-port {port}\n'
              f'   :database-name "{database}"\n   :maintainer "nobody@localhost"\n'
              '   :description "The anyurl loopback WAIS database."\n)\n').encode()
    docs: list[WAISDocument] = []
    for name, wtype, content in texts:
        docs.append(WAISDocument(name, wtype, content, f"{name}   /srv/{database}/docs/"))
    catalog = b"Catalog for database: " + database.encode() + b"\n" + b"".join(
        b"  %s (%s, %d bytes)\n" % (d.name.encode(), d.wtype.encode(), len(d.content))
        for d in docs)
    docs.append(WAISDocument(f"{database}.src", "WSRC", source,
                             f"Information on database: {database}"))
    docs.append(WAISDocument(f"{database}.cat", "TEXT", catalog,
                             f"Catalog for database: {database}"))
    out = []
    for d in docs:
        local = f"0 {len(d.content)} /srv/{database}/docs/{d.name}".encode()
        docid = (tlv(1, f"{host}:{port}".encode()) + tlv(2, f"/srv/{database}".encode())
                 + tlv(3, local) + tnum(7, 0))
        out.append(WAISDocument(d.name, d.wtype, d.content, d.headline, docid))
    return out


class WAISServer:
    """Answers WAIS APDUs from the documents of one database."""

    def __init__(self, host: str, port: int, database: str = DATABASE, *,
                 quiet_empty_search: bool = False):
        self.host = host
        self.port = port
        self.database = database
        #: Answer an empty-word search of an unknown database with no documents and no
        #: diagnostic, as freeWAIS-sf 2.0.65's waisserver was seen to do.
        self.quiet_empty_search = quiet_empty_search
        self.documents = build_documents(host, port, database)
        #: Every request received, parsed (for tests).
        self.requests: list[InitRequest | SearchRequest] = []

    def url(self, path: str) -> str:
        """A wais URL of this server for ``path``."""
        return f"wais://{self.host}:{self.port}/{path}"

    def document_url(self, name: str) -> str:
        """The wais URL that retrieves the document called ``name``."""
        doc = self.document(name)
        return self.url(f"{self.database}/{doc.wtype}/{docid_to_wpath(doc.docid)}")

    def document(self, name: str) -> WAISDocument:
        """The document called ``name``."""
        return next(d for d in self.documents if d.name == name)

    def _header(self, doc: WAISDocument, score: int) -> DocumentHeader:
        return DocumentHeader(
            docid=doc.docid, version=0, score=score, best_match=0, length=len(doc.content),
            lines=doc.content.count(b"\n"), types=(doc.wtype,),
            source=f"/srv/{self.database}", date="0", headline=doc.headline,
        )

    def answer(self, apdu: bytes) -> bytes:
        """The response APDU to one request APDU: Init, or Search (a retrieval is a Search)."""
        request = parse_apdu(apdu)
        if isinstance(request, InitRequest):
            self.requests.append(request)
            return init_response_apdu()
        if not isinstance(request, SearchRequest):
            raise WAISReplyError("only Init and Search are served")
        self.requests.append(request)
        unknown = [d for d in request.databases if d.decode("latin-1") != self.database]
        if unknown or not request.databases:
            name = unknown[0].decode("latin-1") if unknown else ""
            if (self.quiet_empty_search and request.query_type != b"1"
                    and not (request.seed_words or b"").strip()):
                return search_response_apdu(status=0, reference_id=request.reference_id)
            return search_response_apdu(
                status=0, reference_id=request.reference_id,
                diagnostics=(Diagnostic("S1", "The following database is not available: "
                                        + name),))
        if request.query_type == b"1":
            return self._retrieve(request)
        return self._search(request)

    def _search(self, request: SearchRequest) -> bytes:
        words = re.findall(rb"[A-Za-z0-9]+", (request.seed_words or b"").lower())
        special = [d for d in self.documents if d.wtype == "WSRC" or d.name.endswith(".cat")]
        plain = [d for d in self.documents if d not in special]
        if not words:
            headers = tuple(self._header(d, 0) for d in special)
        else:
            scored = []
            for doc in plain:
                text = doc.content.lower() + doc.name.lower().encode()
                score = sum(text.count(w) for w in words)
                if score:
                    scored.append((score, doc))
            scored.sort(key=lambda s: -s[0])
            limit = request.max_documents or len(scored)
            if scored:
                top = scored[0][0]
                headers = tuple(self._header(d, max(1, s * 1000 // top))
                                for s, d in scored[:limit])
            else:
                headers = (self._header(special[-1], 0),)
        return search_response_apdu(status=1, headers=headers,
                                    seed_words_used=request.seed_words,
                                    reference_id=request.reference_id)

    def _retrieve(self, request: SearchRequest) -> bytes:
        docid = wtype = None
        start, end = 0, None
        for term in request.terms:
            if isinstance(term, Operator):
                continue
            assert isinstance(term, QueryTerm)
            use, relation = term.attributes[:2], term.attributes[3:5]
            if use == b"un":
                docid = term.term
            elif use == b"wt":
                wtype = term.term.decode("latin-1")
            elif use == b"wb" and relation == b"ro":
                start = ascii_int(term.term, max_digits=12) or 0
            elif use == b"wb" and relation == b"rl":
                end = ascii_int(term.term, max_digits=12)
        doc = next((d for d in self.documents if d.docid == docid), None)
        if doc is None or (wtype is not None and wtype.upper() != doc.wtype):
            what = "document" if doc is None else f"type {wtype} of the document"
            return search_response_apdu(
                status=0, reference_id=request.reference_id,
                diagnostics=(Diagnostic("D2", f"The {what} is not in this database"),))
        piece = doc.content[start:end]
        return search_response_apdu(
            status=0, reference_id=request.reference_id,
            texts=(DocumentText(doc.docid, piece, 0),))

    async def handle(self, stream: anyio.abc.ByteStream) -> None:
        """Serve one connection's requests until the client closes it."""
        conn = WAISConnection()
        async with stream:
            while True:
                event = conn.next_event()
                if event is NEED_DATA:
                    try:
                        data = await stream.receive(65536)
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        data = b""
                    conn.receive_data(data)
                    continue
                if isinstance(event, ConnectionClosed):
                    return
                assert isinstance(event, Message)
                try:
                    reply = self.answer(event.apdu)
                except WAISReplyError as exc:
                    log.info("closing a connection after a bad APDU: %s", exc)
                    return
                try:
                    await stream.send(conn.send(reply))
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return


def serve_wais(host: str = "127.0.0.1", port: int = 0, database: str = DATABASE, *,
               quiet_empty_search: bool = False) -> AbstractAsyncContextManager[WAISServer]:
    """Serve on ``host:port`` (port 0: a free one) until the block exits."""
    return open_tcp(lambda me, bound: WAISServer(me, bound, database,
                                                 quiet_empty_search=quiet_empty_search),
                    host, port)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.wais.loopback``: serve until interrupted."""
    parser = command_line("wais", __doc__, 2210)
    parser.add_argument("--database", default=DATABASE)
    args = parser.parse_args(argv)

    def ready(server: WAISServer) -> None:
        print(f"wais listening on {server.host}:{server.port} (database {server.database})",
              flush=True)

    return serve_until_interrupted(lambda: serve_wais(args.host, args.port, args.database),
                                   ready, backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
