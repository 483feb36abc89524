"""WAIS: Z39.50-1988 as WAIS spoke it, byte for byte; sans-I/O.

Strategy
--------
WAIS is not the Z39.50 of today (BER/ASN.1): it is the 1988 draft with Thinking
Machines' own encoding, which this module writes and reads exactly as the freeWAIS
library does (``ir/zutil.c``, ``zprot.c``, ``wprot.c``, ``ztype1.c``), following
the byte-level notes in ``specs/wais.md``. Every message on the TCP connection is::

    25-octet ASCII header     "%010d" APDU length, 'z', '2', "wais      ", ' ', ' ', '0'
    APDU                      u16 header-length indicator | PDU type | fixed fields
                              | tagged optional fields | user information (not counted)

Tags and lengths are *compressed integers* (base 128, big-endian, high bit on every
octet but the last); numbers are minimal big-endian binaries inside a tagged element;
strings carry no terminator. The user information of a type-3 search, a search response
and an init response is one tag-99 block of tagged elements; a type-1 query is one tag-21
element holding RPN query terms (tag 44 attributes + tag 45 term, tag 46 operators).
Diagnostic records (tag 28) have their own odd layout (2-octet length, 2-letter code,
text, surrogate octet, 0x1D).

A client needs three exchanges: ``Init`` (optional; freeWAIS sends it, and the answer
gives the server's message size), a type-3 ``Search`` with seed words (the answer holds
one tag-150 document header per hit) and, per document, type-1 ``Search`` requests for
``docid AND type AND bytes>=start AND bytes<end`` (the answer holds a tag-153 text
group). There is no Present: WAIS servers keep no result sets.

:class:`WAISConnection` frames messages (either role); the ``*_apdu`` functions build
requests and responses; :func:`parse_apdu` reads any of the four PDUs we use. The
loopback server (:mod:`anyurl.schemes.wais.loopback`) uses the same functions from the other side.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

from anyurl.numbers import ascii_int
from anyurl.protocols.common import (
    NEED_DATA,
    ConnectionClosed,
    CoreProtocolError,
    LocalProtocolError,
    NeedData,
    RemoteProtocolError,
)
from anyurl.url.charset import UCHAR_PLAIN, decode_bytes

__all__ = [
    "CHUNK_SIZE",
    "DEFAULT_MESSAGE_SIZE",
    "DEFAULT_PORT",
    "HEADER_LENGTH",
    "NEED_DATA",
    "ConnectionClosed",
    "Diagnostic",
    "DocumentHeader",
    "DocumentText",
    "InitRequest",
    "InitResponse",
    "Message",
    "Operator",
    "QueryTerm",
    "SearchRequest",
    "SearchResponse",
    "WAISCommandError",
    "WAISConnection",
    "WAISCoreError",
    "WAISReplyError",
    "content_type_for",
    "decode_compressed_int",
    "docid_records",
    "docid_to_wpath",
    "encode_compressed_int",
    "init_apdu",
    "init_response_apdu",
    "parse_apdu",
    "retrieval_apdu",
    "retrieval_terms",
    "search_apdu",
    "search_response_apdu",
    "wais_header",
    "wpath_to_docid",
]

DEFAULT_PORT = 210
HEADER_LENGTH = 25
#: What we tell servers our buffers hold (freeWAIS clients send their buffer size).
DEFAULT_MESSAGE_SIZE = 100_000
#: Bytes asked per retrieval request (Lynx's CHARS_PER_PAGE).
CHUNK_SIZE = 10_000

PDU_INIT = 20
PDU_INIT_RESPONSE = 21
PDU_SEARCH = 22
PDU_SEARCH_RESPONSE = 23

# Z39.50-1988 tags (ir/zutil.h)
DT_PDUType = 1
DT_ReferenceID = 2
DT_ProtocolVersion = 3
DT_Options = 4
DT_PreferredMessageSize = 5
DT_MaximumRecordSize = 6
DT_IDAuthentication = 7
DT_ImplementationID = 8
DT_ImplementationName = 9
DT_ImplementationVersion = 10
DT_UserInformationField = 11
DT_ResultSetName = 17
DT_DatabaseNames = 18
DT_ElementSetNames = 19
DT_QueryType = 20
DT_Query = 21
DT_ResultSetStatus = 26
DT_PresentStatus = 27
DT_DatabaseDiagnosticRecords = 28
DT_AttributeList = 44
DT_Term = 45
DT_Operator = 46
# WAIS extensions (ir/wprot.h)
DT_UserInformationLength = 99
DT_ChunkCode = 100
DT_ChunkIDLength = 101
DT_ChunkMarker = 102
DT_HighlightMarker = 103
DT_DeHighlightMarker = 104
DT_NewlineCharacters = 105
DT_SeedWords = 106
DT_DocumentIDChunk = 107
DT_DateFactor = 111
DT_BeginDateRange = 112
DT_EndDateRange = 113
DT_MaxDocumentsRetrieved = 114
DT_SeedWordsUsed = 115
DT_DocumentID = 116
DT_VersionNumber = 117
DT_Score = 118
DT_BestMatch = 119
DT_DocumentLength = 120
DT_Source = 121
DT_Date = 122
DT_Headline = 123
DT_OriginCity = 124
DT_DocumentText = 127
DT_Lines = 131
DT_TYPE_BLOCK = 132
DT_TYPE = 133
DT_DocumentHeaderGroup = 150
DT_DocumentShortHeaderGroup = 151
DT_DocumentLongHeaderGroup = 152
DT_DocumentTextGroup = 153
DT_DocumentHeadlineGroup = 154
DT_DocumentCodeGroup = 155

DB_DELIMITER = b"\x1f"
END_OF_RECORD = 0x1D
QUERY_TYPE_TEXT_RETRIEVAL = b"1"
QUERY_TYPE_RELEVANCE_FEEDBACK = b"3"


class WAISCoreError(CoreProtocolError, ValueError):
    """Base of this core's errors: catch a side (:class:`WAISReplyError`,
    :class:`WAISCommandError`)."""


class WAISReplyError(WAISCoreError, RemoteProtocolError):
    """Bytes from the peer that are not a WAIS message we understand (bad header,
    truncated APDU ...); on the loopback server's side the peer is the client."""


class WAISCommandError(WAISCoreError, LocalProtocolError):
    """A value of ours that a WAIS message cannot carry (a number too large, negative)."""


# -- primitives -----------------------------------------------------------------------------


def encode_compressed_int(value: int) -> bytes:
    """Base-128 big-endian, continuation bit on every octet but the last (``zutil.c``)."""
    if value < 0:
        raise WAISCommandError("compressed integers are unsigned")
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    return bytes(reversed(out))


def decode_compressed_int(buf: bytes, pos: int) -> tuple[int, int]:
    """The integer starting at ``buf[pos]`` and the position after it."""
    value = 0
    for _ in range(8):
        if pos >= len(buf):
            raise WAISReplyError("a compressed integer runs past the end of the APDU")
        byte = buf[pos]
        pos += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, pos
    raise WAISReplyError("a compressed integer is longer than 8 octets")


def tlv(tag: int, value: bytes) -> bytes:
    """A tagged element: compressed tag, compressed length, the octets."""
    return encode_compressed_int(tag) + encode_compressed_int(len(value)) + value


def num_bytes(value: int) -> bytes:
    """``writeNum``'s payload: the minimal big-endian binary, 1-4 octets (negative: 4)."""
    if value < 0:
        return struct.pack(">i", value)
    for size in (1, 2, 3, 4):
        if value < 1 << (8 * size):
            return value.to_bytes(size, "big")
    raise WAISCommandError(f"number {value} does not fit 4 octets")


def tnum(tag: int, value: int) -> bytes:
    """A tag-length-value field holding the number ``value``."""
    return tlv(tag, num_bytes(value))


def read_num(value: bytes) -> int:
    """The number in a field's value bytes (big-endian; empty is 0)."""
    return int.from_bytes(value, "big") if value else 0


def bitmap(*bits: bool) -> bytes:
    """``makeBitMap``: bit 0 is the most significant bit of the first octet."""
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i // 8] |= 0x80 >> (i % 8)
    return bytes(out)


def read_elements(buf: bytes, start: int = 0, end: int | None = None) -> list[tuple[int, bytes]]:
    """Tagged elements from ``start`` to ``end``; diagnostics (tag 28) in their own layout."""
    end = len(buf) if end is None else end
    pos = start
    out: list[tuple[int, bytes]] = []
    while pos < end:
        tag, after_tag = decode_compressed_int(buf, pos)
        if tag == DT_DatabaseDiagnosticRecords:
            if after_tag + 2 > end:
                raise WAISReplyError("a diagnostic record is cut short")
            length = int(struct.unpack_from(">H", buf, after_tag)[0])
            body_end = after_tag + 2 + length + 1  # code, text, surrogate, end-of-record
            if body_end > end:
                raise WAISReplyError("a diagnostic record runs past its block")
            out.append((tag, buf[after_tag + 2 : body_end]))
            pos = body_end
            continue
        length, pos = decode_compressed_int(buf, after_tag)
        if pos + length > end:
            raise WAISReplyError(f"element with tag {tag} runs past the end of its block")
        out.append((tag, buf[pos : pos + length]))
        pos += length
    return out


def _string(value: bytes) -> str:
    return value.decode("latin-1")


# -- the 25-octet header and framing ------------------------------------------------------------


def wais_header(apdu_length: int, *, server: bytes = b"wais") -> bytes:
    """The ASCII header freeWAIS writes (``writeWAISPacketHeader``)."""
    if not 0 <= apdu_length < 10**10:
        raise WAISCommandError(f"APDU length {apdu_length} does not fit the header")
    return b"%010d" % apdu_length + b"z2" + server.ljust(10)[:10] + b"  0"


@dataclass(frozen=True)
class Message:
    """One received message: its 25-octet header and the APDU octets."""

    header: bytes
    apdu: bytes

    @property
    def pdu_type(self) -> int:
        """The Z39.50 PDU type of the message (-1 when it is too short to say)."""
        return self.apdu[2] if len(self.apdu) > 2 else -1


#: What may come before a message's header and is skipped (freeWAIS reads up to a '0').
_PADDING = b"\r\n\t\0 "
#: The start of a header as far as it came: up to ten digits, or ten and the 'z'.
_HEADER_START = re.compile(rb"[0-9]{0,10}|[0-9]{10}[zZ]")


class WAISConnection:
    """Frames WAIS messages on a byte stream (client or server side).

    ``receive_data(b"")`` signals end of stream. :meth:`next_event` returns a
    :class:`Message`, :class:`ConnectionClosed` or ``NEED_DATA``; a header whose length is
    not ten digits raises :class:`WAISReplyError`. Line ends, NULs and spaces before the
    first ``'0'`` (the start of the zero-padded length) are skipped, as the freeWAIS client
    skips them; any other octet there, or a start that cannot become a header (not digits,
    no ``'z'`` after ten of them), is no WAIS message and raises at once, however few
    octets came: a server of another protocol (Z39.50-1995's BER, a banner) that sent a
    short answer and waits would otherwise be waited on for the rest of a header.
    """

    def __init__(self, *, max_message: int = 64 * 1024 * 1024):
        self._buf = bytearray()
        self._eof = False
        self.max_message = max_message
        self.skipped = 0

    def send(self, apdu: bytes) -> bytes:
        return wais_header(len(apdu)) + apdu

    def receive_data(self, data: bytes) -> None:
        """Bytes from the server (``b""`` when it closed the connection)."""
        if not data:
            self._eof = True
        else:
            self._buf += data

    def next_event(self) -> Message | ConnectionClosed | NeedData:
        """The next complete message (or the close), or ``NEED_DATA``; bytes before a message start
        are skipped and counted.
        """
        if self._buf and self._buf[0] != 0x30:
            start = self._buf.find(b"0")
            drop = len(self._buf) if start < 0 else start
            junk = bytes(self._buf[:drop])
            if junk.strip(_PADDING):
                raise WAISReplyError(f"{junk[:16]!r} where a WAIS message's header belongs")
            self.skipped += drop
            del self._buf[:drop]
        if len(self._buf) < HEADER_LENGTH and not _HEADER_START.fullmatch(self._buf[:11]):
            raise WAISReplyError(
                f"{bytes(self._buf)!r} does not start a WAIS header (ten digits, then 'z')")
        if len(self._buf) >= HEADER_LENGTH:
            header = bytes(self._buf[:HEADER_LENGTH])
            digits = header[:10]
            length = ascii_int(digits)
            if length is None:
                raise WAISReplyError(
                    f"WAIS header {header!r} does not start with a 10-digit length")
            if length > self.max_message:
                raise WAISReplyError(f"WAIS message of {length} octets is larger than allowed")
            if chr(header[10]).lower() != "z":
                raise WAISReplyError(f"WAIS header {header!r} is not a Z39.50 message ('z')")
            if len(self._buf) >= HEADER_LENGTH + length:
                apdu = bytes(self._buf[HEADER_LENGTH : HEADER_LENGTH + length])
                del self._buf[: HEADER_LENGTH + length]
                return Message(header, apdu)
        if self._eof:
            return ConnectionClosed(expected=not self._buf, partial=len(self._buf))
        return NEED_DATA


# -- APDUs ----------------------------------------------------------------------------------


def _apdu(pdu_type: int, fixed: bytes, optional: bytes, user_info: bytes = b"") -> bytes:
    standard = bytes([pdu_type]) + fixed + optional
    return struct.pack(">H", len(standard)) + standard + user_info


def init_apdu(message_size: int = DEFAULT_MESSAGE_SIZE) -> bytes:
    """Init as the freeWAIS client sends it: version 1, "search" only, no user info."""
    return _apdu(
        PDU_INIT,
        b"",
        tlv(DT_ProtocolVersion, bitmap(True))
        + tlv(DT_Options, bitmap(True, False, False, False, False))
        + tnum(DT_PreferredMessageSize, message_size)
        + tnum(DT_MaximumRecordSize, message_size),
    )


def init_response_apdu(
    *, accept: bool = True, message_size: int = DEFAULT_MESSAGE_SIZE,
    implementation: tuple[str, str, str] | None = ("anyurl", "anyurl loopback WAIS", "1"),
) -> bytes:
    """An Init response APDU, as a server sends it (for the loopback WAIS server and tests)."""
    optional = (
        tlv(DT_ProtocolVersion, bitmap(True))
        + tlv(DT_Options, bitmap(True, False, False, False, False))
        + tnum(DT_PreferredMessageSize, message_size)
        + tnum(DT_MaximumRecordSize, message_size)
    )
    if implementation is not None:
        ident, name, version = implementation
        optional += (tlv(DT_ImplementationID, ident.encode())
                     + tlv(DT_ImplementationName, name.encode())
                     + tlv(DT_ImplementationVersion, version.encode()))
    return _apdu(PDU_INIT_RESPONSE, bytes([1 if accept else 0]), optional)


def _search_fixed(small: int, large: int, medium: int, replace: bool) -> bytes:
    return (small.to_bytes(3, "big") + large.to_bytes(3, "big") + medium.to_bytes(3, "big")
            + bytes([1 if replace else 0]))


def search_apdu(database: bytes, seed_words: bytes, *, max_documents: int = 100) -> bytes:
    """A type-3 (relevance feedback) search, field for field as ``generate_search_apdu``."""
    optional = (
        tlv(DT_ResultSetName, b"")
        + tlv(DT_DatabaseNames, database)
        + tlv(DT_QueryType, QUERY_TYPE_RELEVANCE_FEEDBACK)
    )
    info = (tlv(DT_SeedWords, seed_words) + tnum(DT_DateFactor, 1)
            + tnum(DT_MaxDocumentsRetrieved, max_documents))
    return _apdu(PDU_SEARCH, _search_fixed(30, 5000, 30, True), optional,
                 tlv(DT_UserInformationLength, info))


@dataclass(frozen=True)
class QueryTerm:
    """An attribute term: six 2-letter codes (use, relation, ...) and the term octets."""

    attributes: bytes
    term: bytes

    def encode(self) -> bytes:
        """The term's wire form: its attribute list and term fields."""
        return tlv(DT_AttributeList, self.attributes) + tlv(DT_Term, self.term)


@dataclass(frozen=True)
class Operator:
    """``a`` AND, ``o`` OR, ``n`` AND-NOT."""

    op: bytes

    def encode(self) -> bytes:
        """The operator's wire form."""
        return tlv(DT_Operator, self.op)


def retrieval_terms(
    docid: bytes, wtype: bytes | None, start: int | None, end: int | None
) -> list[QueryTerm | Operator]:
    """``docid [AND type] [AND bytes>=start AND bytes<end]`` in RPN (``makeWAISQueryTerms``)."""
    terms: list[QueryTerm | Operator] = [QueryTerm(b"un re ig ig ig ig", docid)]
    if wtype:
        terms += [QueryTerm(b"wt re ig ig ig ig", wtype), Operator(b"a")]
    if start is not None and end is not None:
        terms += [
            QueryTerm(b"wb ro ig ig ig ig", str(start).encode()), Operator(b"a"),
            QueryTerm(b"wb rl ig ig ig ig", str(end).encode()), Operator(b"a"),
        ]
    return terms


def retrieval_apdu(
    database: bytes, docid: bytes, wtype: bytes | None, start: int | None, end: int | None
) -> bytes:
    """A type-1 search fetching bytes [start, end) of a document (``generate_retrieval_apdu``)."""
    optional = (
        tlv(DT_ResultSetName, b"FOO")
        + tlv(DT_DatabaseNames, database)
        + tlv(DT_QueryType, QUERY_TYPE_TEXT_RETRIEVAL)
        + tlv(DT_ElementSetNames, b" \x1fDocument Text")
        + tlv(DT_ReferenceID, b"3")
    )
    query = b"".join(t.encode() for t in retrieval_terms(docid, wtype, start, end))
    return _apdu(PDU_SEARCH, _search_fixed(10, 16, 15, True), optional, tlv(DT_Query, query))


@dataclass(frozen=True)
class DocumentHeader:
    """One hit of a search (tag 150; 151/152 read the same way)."""

    docid: bytes
    version: int | None = None
    score: int | None = None
    best_match: int | None = None
    length: int | None = None
    lines: int | None = None
    types: tuple[str, ...] = ()
    source: str | None = None
    date: str | None = None
    headline: str | None = None
    origin_city: str | None = None

    def encode(self) -> bytes:
        """The header's wire form: docid, then the fields that are set."""
        body = tlv(DT_DocumentID, self.docid)
        for tag, value in ((DT_VersionNumber, self.version), (DT_Score, self.score),
                           (DT_BestMatch, self.best_match),
                           (DT_DocumentLength, self.length), (DT_Lines, self.lines)):
            if value is not None:
                body += tnum(tag, value)
        if self.types:
            body += tlv(DT_TYPE_BLOCK, b"".join(tlv(DT_TYPE, t.encode()) for t in self.types))
        for tag, text in ((DT_Source, self.source), (DT_Date, self.date),
                          (DT_Headline, self.headline), (DT_OriginCity, self.origin_city)):
            if text is not None:
                body += tlv(tag, text.encode("latin-1"))
        return tlv(DT_DocumentHeaderGroup, body)


@dataclass(frozen=True)
class DocumentText:
    """A retrieved piece of a document (tag 153)."""

    docid: bytes
    text: bytes
    version: int | None = None

    def encode(self) -> bytes:
        """The document text group's wire form: docid, version, text."""
        body = tlv(DT_DocumentID, self.docid)
        if self.version is not None:
            body += tnum(DT_VersionNumber, self.version)
        body += tlv(DT_DocumentText, self.text)
        return tlv(DT_DocumentTextGroup, body)


@dataclass(frozen=True)
class Diagnostic:
    """A database diagnostic record: ``code`` like ``S1``, text, surrogate flag."""

    code: str
    text: str
    surrogate: int = 0

    def encode(self) -> bytes:
        """The diagnostic record's wire form (code, text, surrogate, end of record)."""
        info = self.text.encode("latin-1")
        length = 3 + len(info)
        return (encode_compressed_int(DT_DatabaseDiagnosticRecords) + struct.pack(">H", length)
                + self.code.encode("latin-1")[:2].ljust(2) + info
                + bytes([self.surrogate, END_OF_RECORD]))

    @classmethod
    def decode(cls, body: bytes) -> Diagnostic:
        # body = code(2) text(L-3) surrogate(1) end-of-record(1), where len(body) = L + 1
        """A diagnostic record from its body bytes."""
        code = _string(body[:2])
        text = _string(body[2:-2]) if len(body) > 4 else ""
        surrogate = body[-2] if len(body) >= 2 else 0
        return cls(code, text, surrogate)


@dataclass(frozen=True)
class InitRequest:
    """A client's Init request: the sizes it proposes and its options."""
    preferred_message_size: int | None
    maximum_record_size: int | None
    options: bytes


@dataclass(frozen=True)
class InitResponse:
    """The server's answer to Init: accepted or not, its sizes and implementation."""
    accepted: bool
    preferred_message_size: int | None
    maximum_record_size: int | None
    implementation: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchRequest:
    """A Search APDU as a server reads it (type 3 seed words or type 1 query terms)."""

    databases: tuple[bytes, ...]
    query_type: bytes
    result_set_name: bytes
    element_set_names: bytes | None
    reference_id: bytes | None
    seed_words: bytes | None = None
    max_documents: int | None = None
    terms: tuple[QueryTerm | Operator, ...] = ()


@dataclass(frozen=True)
class SearchResponse:
    """The head of a search answer: status, hits, records returned, next position."""
    status: int
    result_count: int
    records_returned: int
    next_position: int
    present_status: int | None = None
    result_set_status: int | None = None
    reference_id: bytes | None = None
    seed_words_used: str | None = None
    headers: tuple[DocumentHeader, ...] = ()
    texts: tuple[DocumentText, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    other_groups: tuple[int, ...] = ()


def search_response_apdu(
    *, status: int = 0, headers: tuple[DocumentHeader, ...] = (),
    texts: tuple[DocumentText, ...] = (), diagnostics: tuple[Diagnostic, ...] = (),
    seed_words_used: bytes | None = None, reference_id: bytes | None = None,
    present_status: int | None = 0,
) -> bytes:
    """A SearchResponse with its user information, in ``writeSearchResponseInfo`` order."""
    records = len(headers) + len(texts)
    fixed = (bytes([status]) + (0).to_bytes(3, "big") + records.to_bytes(3, "big")
             + (0).to_bytes(3, "big"))
    optional = b""
    if present_status is not None:
        optional += tnum(DT_PresentStatus, present_status)
    if reference_id is not None:
        optional += tlv(DT_ReferenceID, reference_id)
    info = b""
    if seed_words_used is not None:
        info += tlv(DT_SeedWordsUsed, seed_words_used)
    info += b"".join(h.encode() for h in headers)
    info += b"".join(t.encode() for t in texts)
    info += b"".join(d.encode() for d in diagnostics)
    user_info = tlv(DT_UserInformationLength, info)
    return _apdu(PDU_SEARCH_RESPONSE, fixed, optional, user_info)


# -- parsing --------------------------------------------------------------------------------


def _header_group(body: bytes) -> DocumentHeader:
    values: dict[str, object] = {}
    types: list[str] = []
    docid = b""
    for tag, value in read_elements(body):
        if tag == DT_DocumentID:
            docid = value
        elif tag == DT_TYPE_BLOCK:
            types += [_string(v) for t, v in read_elements(value) if t == DT_TYPE]
        elif tag in _HEADER_NUMS:
            values[_HEADER_NUMS[tag]] = read_num(value)
        elif tag in _HEADER_STRINGS:
            values[_HEADER_STRINGS[tag]] = _string(value)
    return DocumentHeader(docid=docid, types=tuple(types), **values)  # type: ignore[arg-type]


_HEADER_NUMS = {DT_VersionNumber: "version", DT_Score: "score", DT_BestMatch: "best_match",
                DT_DocumentLength: "length", DT_Lines: "lines"}
_HEADER_STRINGS = {DT_Source: "source", DT_Date: "date", DT_Headline: "headline",
                   DT_OriginCity: "origin_city"}


def _text_group(body: bytes) -> DocumentText:
    docid, text, version = b"", b"", None
    for tag, value in read_elements(body):
        if tag == DT_DocumentID:
            docid = value
        elif tag == DT_DocumentText:
            text = value
        elif tag == DT_VersionNumber:
            version = read_num(value)
    return DocumentText(docid, text, version)


def _user_info(apdu: bytes, pos: int) -> list[tuple[int, bytes]]:
    """The elements of the tag-99 block at ``pos`` (empty when there is none)."""
    if pos >= len(apdu):
        return []
    tag, after = decode_compressed_int(apdu, pos)
    if tag != DT_UserInformationLength:
        raise WAISReplyError(f"expected user information (tag 99) but found tag {tag}")
    length, start = decode_compressed_int(apdu, after)
    if start + length > len(apdu):
        raise WAISReplyError("the user information runs past the end of the APDU")
    return read_elements(apdu, start, start + length)


def parse_apdu(apdu: bytes) -> InitRequest | InitResponse | SearchRequest | SearchResponse:
    """Read an Init, InitResponse, Search or SearchResponse APDU."""
    if len(apdu) < 3:
        raise WAISReplyError(f"APDU of {len(apdu)} octets is too short")
    indicator = int(struct.unpack_from(">H", apdu)[0])
    std_end = 2 + indicator
    if std_end > len(apdu):
        raise WAISReplyError(f"header-length indicator {indicator} exceeds the APDU")
    pdu = apdu[2]
    if pdu in (PDU_INIT, PDU_INIT_RESPONSE):
        return _parse_init(apdu, pdu, std_end)
    if pdu == PDU_SEARCH:
        return _parse_search(apdu, std_end)
    if pdu == PDU_SEARCH_RESPONSE:
        return _parse_search_response(apdu, std_end)
    raise WAISReplyError(f"PDU type {pdu} is not one anyurl reads")


def _parse_init(apdu: bytes, pdu: int, std_end: int) -> InitRequest | InitResponse:
    """An Init or InitResponse APDU (the response has its Result octet first)."""
    pos = 3
    accepted = True
    if pdu == PDU_INIT_RESPONSE:
        accepted = apdu[3] == 1
        pos = 4
    elements = read_elements(apdu, pos, std_end)
    nums = {t: read_num(v) for t, v in elements
            if t in (DT_PreferredMessageSize, DT_MaximumRecordSize)}
    if pdu == PDU_INIT:
        options = next((v for t, v in elements if t == DT_Options), b"")
        return InitRequest(nums.get(DT_PreferredMessageSize),
                           nums.get(DT_MaximumRecordSize), options)
    impl = {t: _string(v) for t, v in elements
            if t in (DT_ImplementationID, DT_ImplementationName, DT_ImplementationVersion)}
    return InitResponse(accepted, nums.get(DT_PreferredMessageSize),
                        nums.get(DT_MaximumRecordSize), impl)


def _parse_search(apdu: bytes, std_end: int) -> SearchRequest:
    """A Search APDU: its fields, then a type-1 query or WAIS's user information."""
    if std_end < 13:
        raise WAISReplyError("Search APDU too short")
    fields = dict(read_elements(apdu, 13, std_end))
    request = SearchRequest(
        databases=tuple(d for d in fields.get(DT_DatabaseNames, b"").split(DB_DELIMITER)
                        if d),
        query_type=fields.get(DT_QueryType, b""),
        result_set_name=fields.get(DT_ResultSetName, b""),
        element_set_names=fields.get(DT_ElementSetNames),
        reference_id=fields.get(DT_ReferenceID),
    )
    if std_end >= len(apdu):
        return request
    tag, _ = decode_compressed_int(apdu, std_end)
    if tag == DT_Query:
        (_, query), = read_elements(apdu, std_end)[:1]
        return _with_terms(request, query)
    info = dict(_user_info(apdu, std_end))
    return SearchRequest(
        **{**request.__dict__, "seed_words": info.get(DT_SeedWords, b""),
           "max_documents": read_num(info[DT_MaxDocumentsRetrieved])
           if DT_MaxDocumentsRetrieved in info else None},
    )


def _parse_search_response(apdu: bytes, std_end: int) -> SearchResponse:
    """A SearchResponse APDU: its counts, its options, and the groups of its user
    information (headers, texts, diagnostics; any other group's tag is kept)."""
    if std_end < 13:
        raise WAISReplyError("SearchResponse APDU too short")
    status = apdu[3]
    count = int.from_bytes(apdu[4:7], "big")
    returned = int.from_bytes(apdu[7:10], "big")
    next_pos = int.from_bytes(apdu[10:13], "big")
    opt = dict(read_elements(apdu, 13, std_end))
    headers: list[DocumentHeader] = []
    texts: list[DocumentText] = []
    diags: list[Diagnostic] = []
    others: list[int] = []
    seed_used: str | None = None
    for tag, value in _user_info(apdu, std_end):
        if tag == DT_DocumentHeaderGroup:
            headers.append(_header_group(value))
        elif tag == DT_DocumentTextGroup:
            texts.append(_text_group(value))
        elif tag == DT_DatabaseDiagnosticRecords:
            diags.append(Diagnostic.decode(value))
        elif tag == DT_SeedWordsUsed:
            seed_used = _string(value)
        else:
            others.append(tag)
    return SearchResponse(
        status, count, returned, next_pos,
        present_status=read_num(opt[DT_PresentStatus]) if DT_PresentStatus in opt else None,
        result_set_status=(read_num(opt[DT_ResultSetStatus])
                           if DT_ResultSetStatus in opt else None),
        reference_id=opt.get(DT_ReferenceID), seed_words_used=seed_used,
        headers=tuple(headers), texts=tuple(texts), diagnostics=tuple(diags),
        other_groups=tuple(others),
    )


def _with_terms(request: SearchRequest, query: bytes) -> SearchRequest:
    terms: list[QueryTerm | Operator] = []
    attributes: bytes | None = None
    for tag, value in read_elements(query):
        if tag == DT_AttributeList:
            attributes = value
        elif tag == DT_Term and attributes is not None:
            terms.append(QueryTerm(attributes, value))
            attributes = None
        elif tag == DT_Operator:
            terms.append(Operator(value))
    return SearchRequest(**{**request.__dict__, "terms": tuple(terms)})


# -- document ids in URLs ---------------------------------------------------------------------

_WPATH_SAFE = UCHAR_PLAIN
_LYNX_RECORDS = re.compile(r"(?:[0-9]{1,9}=[^;]*;)+")  # ASCII record types, int() safe


def docid_to_wpath(docid: bytes) -> str:
    """The docid octets %-escaped (RFC 1738 section 3.9: wpath is the encoded docid).

    ``/`` is escaped as well, so a wpath never adds a path segment.
    """
    return "".join(chr(b) if chr(b) in _WPATH_SAFE and b < 0x80 else f"%{b:02X}" for b in docid)


def wpath_to_docid(raw: str) -> bytes:
    """The docid octets of a URL's raw (still %-escaped) wpath.

    Two forms are accepted: ours and RFC 1738's (the docid %-escaped), and the CERN/Lynx
    record form ``1=vm:210;2=/db;3=...;`` (record type, ``=``, escaped value, ``;``),
    recognised by its shape.
    """
    if _LYNX_RECORDS.fullmatch(raw):
        out = bytearray()
        for record in raw.split(";")[:-1]:
            kind, _, value = record.partition("=")
            data = decode_bytes(value)
            out += encode_compressed_int(int(kind)) + encode_compressed_int(len(data)) + data
        return bytes(out)
    return decode_bytes(raw)


def docid_records(docid: bytes) -> list[tuple[int, bytes]] | None:
    """The freeWAIS records of a docid (1 server, 2 database, 3 local id ...), or None."""
    try:
        return read_elements(docid)
    except WAISReplyError:
        return None


_CONTENT_TYPES = {"TEXT": "text/plain", "HTML": "text/html", "GIF": "image/gif",
                  "WSRC": "application/x-wais-source"}


def content_type_for(wtype: str | None) -> str:
    """Lynx's choice: TEXT, HTML, GIF, WSRC known; everything else octet-stream."""
    return _CONTENT_TYPES.get((wtype or "").upper(), "application/octet-stream")
