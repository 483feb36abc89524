"""WARC/1.1 output for ``anyurl get --warc`` and ``anyurl mirror --warc``, written with warcio.

What each scheme leaves in the archive:

* **HTTP(S)**: a ``response`` record (status line, headers, body) and a ``request``
  record (the request head as sent, credentials masked, and its body) whose
  ``WARC-Concurrent-To`` names the response, in that order, as warcio's own
  ``write_request_response_pair`` writes them. The body is the one delivered
  (de-chunked, and decoded when the caller says so): the recorded head loses
  ``Transfer-Encoding`` (and then ``Content-Encoding``) and states the body's
  ``Content-Length``, so that the response replays.
* **Every other scheme** (ftp, gopher, news, nntp, wais, prospero, file, telnet,
  mailto): a ``resource`` record with the URL as ``WARC-Target-URI`` and the bytes as
  the server sent them, then a ``metadata`` record holding the protocol dialogue (the
  commands sent and the replies, ``> USER anonymous`` / ``< 230 ...``), linked by
  ``WARC-Concurrent-To``. Passwords are masked by the handlers' traces; a ``PASS``
  argument and an ``Authorization`` value are masked here again, as a second guard.

Every record carries ``WARC-Payload-Digest`` and ``WARC-Block-Digest`` (SHA-1, base32, as
warcio makes them); a new file starts with a ``warcinfo`` record naming anyurl (with a
block digest only: it has no payload). A ``.gz`` name gets one gzip member per record, as
``warcio check`` and replay tools expect.

Two things warcio leaves to its caller are done here:

* **Bounded memory.** warcio reads a payload to its end twice (digests, then the record)
  when told its length. A payload is therefore handed over as a *window*: the bytes from
  where the caller's file stood to where it ended when the record began, read in blocks.
  A file that grows meanwhile cannot lengthen the record past its ``Content-Length``, and
  one that shrinks is an error rather than a short record. A stream that cannot seek is
  first copied to a temporary file, never into memory.
* **Whole records.** warcio writes straight to its file object; a payload that fails to
  read half-way (or a full disk) would leave half a record, and every record after it
  unreadable. The file object under warcio is a small buffer over the unbuffered file,
  and the records of one call are a unit: on any exception the file is cut back to where
  they began, so it holds whole records only. Each record is handed to the kernel when
  warcio has written it (it flushes per record), so a killed process loses at most the
  record being written; a crawl that resumes the file says where its last committed
  record ended (``cut_at``), and the file is cut back there, so a record written after
  that (its URL not yet marked done, so fetched again) is not left twice.

Beyond one file: ``max_size`` rolls the archive over to ``NAME-00001.warc.gz``,
``NAME-00002.warc.gz``, ... (:func:`series`) once a file has reached that size, as
``wget --warc-max-size`` does; :meth:`WARCOutput.write_revisit` records a payload seen
before (WARC/1.1 section 6.7.2, profile ``identical-payload-digest``: a refreshed mirror's
unchanged files); and :func:`write_cdxj` writes the CDXJ index (pywb's format, made by
webrecorder's ``cdxj-indexer``) that replay tools read beside the archive.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from typing import Any, BinaryIO

from anyurl.errors import OptionError
from anyurl.numbers import ascii_int
from anyurl.registry import spec_for

try:  # the `warc` extra: a library user who never writes WARC need not install it
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.timeutils import datetime_to_iso_date
    from warcio.warcwriter import WARCWriter
except ImportError as _missing:
    raise OptionError.missing_extra("WARC output", _missing.name, "warc") from None

from anyurl import __version__
from anyurl.resource import ResourceInfo

__all__ = [
    "CONFORMS_TO",
    "DEFAULT_SOFTWARE",
    "MASK",
    "REVISIT_PROFILE",
    "WARCOutput",
    "Written",
    "mask_dialogue",
    "recorded_head",
    "series",
    "write_cdxj",
]

#: The ``software`` of the ``warcinfo`` record unless the caller names another.
DEFAULT_SOFTWARE = f"anyurl/{__version__}"
#: The ``conformsTo`` of the ``warcinfo`` record: the WARC/1.1 specification.
CONFORMS_TO = "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"
#: What a password or a credential header value is replaced with.
MASK = "****"
#: ``WARC-Profile`` of a revisit record whose payload is the same as an earlier one's.
REVISIT_PROFILE = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

#: Bytes held before they go to the kernel; also the block a payload is copied in.
_BLOCK = 1 << 20
_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization"})

# A line's direction marker ("> ", "< ") is anything before the first word.
#: A command whose argument is a password: FTP ``PASS``, NNTP ``AUTHINFO PASS``.
_PASSWORD = re.compile(r"^(\W*(?:AUTHINFO\s+)?PASS\s+)\S.*$", re.IGNORECASE)
#: SMTP ``AUTH PLAIN <initial response>``: the response holds the password, in base64.
_SASL = re.compile(r"^(\W*AUTH\s+\S+\s+)\S.*$", re.IGNORECASE)
#: ``Authorization:`` / ``Proxy-Authorization:`` with its value (scheme and token alike:
#: a bare token has no scheme word to keep).
_CREDENTIAL = re.compile(r"^(\W*(?:Proxy-)?Authorization\s*:\s*)\S.*$", re.IGNORECASE)
#: Control characters, which would end a WARC or HTTP header line early.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_UNSAFE_IN_URI = re.compile(r"[\x00-\x20\x7f]")


def mask_dialogue(lines: Iterable[str]) -> list[str]:
    """The dialogue one line per element, with any password as :data:`MASK`.

    Masked: the argument of ``PASS`` and ``AUTHINFO PASS``, the initial response of SMTP
    ``AUTH``, the value of ``Authorization`` and ``Proxy-Authorization``. An element
    holding line breaks is split first, so that a password cannot hide on a second line.
    """
    masked = []
    for text in lines:
        for line in text.splitlines() or [""]:
            for pattern in (_PASSWORD, _SASL, _CREDENTIAL):
                line = pattern.sub(rf"\g<1>{MASK}", line)
            masked.append(line)
    return masked


def _text(value: str) -> str:
    """A header value on one line (a CR or LF from a server would end the field)."""
    return _CONTROL.sub(" ", value)


def _uri(url: str) -> str:
    """The URL as given, but for spaces and control characters, percent-encoded: no URI
    holds them, and readers would split the field there (warcio warns and rewrites)."""
    return _UNSAFE_IN_URI.sub(lambda m: f"%{ord(m.group()):02X}", url)


def _warc_date(date: datetime | None) -> str:
    """``WARC-Date``: UTC, with microseconds when there are any (WARC/1.1 allows them).
    A naive ``date`` is taken as UTC already."""
    moment = datetime.now(UTC) if date is None else date
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return str(datetime_to_iso_date(moment.astimezone(UTC).replace(tzinfo=None),
                                    use_micros=True))


def _http_version(text: str) -> str:
    """``HTTP/1.1`` from ``1.1`` or ``HTTP/1.1``. An HTTP/2 or /3 exchange is recorded in
    HTTP/1.1 syntax: WARC's ``application/http`` holds HTTP/1.x messages, the fields are
    the same, and replay tools parse no other status line."""
    version = text if text.upper().startswith("HTTP/") else f"HTTP/{text}"
    if version.upper() in ("HTTP/2", "HTTP/2.0", "HTTP/3", "HTTP/3.0"):
        return "HTTP/1.1"
    return version


def _fields(headers: Iterable[tuple[str, str]], *, drop: frozenset[str] = frozenset(),
            mask: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """Header fields to record: HTTP/2 pseudo-headers and ``drop`` left out, ``mask``
    values replaced, every value on one line."""
    kept = []
    for name, value in headers:
        key = name.lower()
        if name.startswith(":") or key in drop:
            continue
        kept.append((_text(name), MASK if key in mask else _text(value)))
    return kept


def _delivered(headers: Iterable[tuple[str, str]], length: int, *,
               decoded: bool) -> list[tuple[str, str]]:
    """The response's fields for the body as delivered: no ``Transfer-Encoding``, no
    ``Content-Encoding`` once decoded, and one ``Content-Length`` stating ``length`` where
    the server's stood (else last)."""
    drop = {"transfer-encoding", "content-encoding"} if decoded else {"transfer-encoding"}
    kept = _fields(headers, drop=frozenset(drop))
    fields: list[tuple[str, str]] = []
    stated = False
    for name, value in kept:
        if name.lower() == "content-length":
            if not stated:
                fields.append((name, str(length)))
            stated = True
        else:
            fields.append((name, value))
    if not stated:
        fields.append(("Content-Length", str(length)))
    return fields


def series(path: str | os.PathLike[str], number: int) -> Path:
    """The ``number``-th file of a rolled archive: 0 is ``path`` itself, then
    ``site-00001.warc.gz``, ``site-00002.warc.gz`` ... beside it (the suffixes kept)."""
    first = Path(path)
    if number == 0:
        return first
    name = first.name
    for suffix in (".warc.gz", ".warc", ".gz"):
        if name.endswith(suffix):
            stem, ext = name[: -len(suffix)], suffix
            break
    else:
        stem, ext = name, ""
    return first.with_name(f"{stem}-{number:05d}{ext}")


@dataclass(frozen=True)
class Written:
    """Where the main record of the last write went, and what a revisit of it needs."""

    #: ``WARC-Record-ID`` of the response or resource record.
    record_id: str
    #: ``WARC-Target-URI`` and ``WARC-Date`` as recorded.
    uri: str
    date: str
    #: ``WARC-Payload-Digest`` (``sha1:BASE32``), or None when warcio gave none.
    payload_digest: str | None
    #: The file the records are in, and its length once they were written: a resumed
    #: crawl cuts the file back to the end of its last committed record.
    file: Path
    end: int


class _Window:
    """``length`` bytes of a seekable file, from where it stood when the window opened.

    What warcio reads as a payload: it needs ``read``, ``tell`` and ``seek`` (to read the
    payload again after the digests). Positions are relative to the window's start.
    """

    def __init__(self, file: BinaryIO, length: int, *, owned: bool = False) -> None:
        self.file = file
        self.length = length
        self._start = file.tell()
        self._pos = 0
        self._owned = owned

    def tell(self) -> int:
        return self._pos

    def seek(self, pos: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._pos, os.SEEK_END: self.length}[whence]
        self._pos = min(max(0, base + pos), self.length)
        self.file.seek(self._start + self._pos)
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        left = self.length - self._pos
        if size is None or size < 0 or size > left:
            size = min(left, _BLOCK)  # never the whole payload at once
        if size == 0:
            return b""
        data = self.file.read(size)
        if not data:
            raise OSError(f"the payload ended at byte {self._pos} of {self.length}: "
                          "its file shrank while it was being archived")
        self._pos += len(data)
        return data

    def close(self) -> None:
        """Close the file if the window made it (a copy of an unseekable stream)."""
        if self._owned:
            self.file.close()


def _seekable(file: BinaryIO) -> bool:
    try:
        return bool(file.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def _window(payload: BinaryIO | bytes) -> _Window:
    """The payload as a window: bytes as they are, a seekable file from its position to
    its end, any other stream copied to a temporary file first."""
    if isinstance(payload, bytes | bytearray | memoryview):
        data = bytes(payload)
        return _Window(io.BytesIO(data), len(data))
    file, owned = payload, False
    if not _seekable(payload):
        file, owned = tempfile.TemporaryFile(), True  # noqa: SIM115 - the window closes it
        while block := payload.read(_BLOCK):
            file.write(block)
        file.seek(0)
    here = file.tell()
    end = file.seek(0, os.SEEK_END)
    file.seek(here)
    return _Window(file, max(0, end - here), owned=owned)


class _Sink:
    """The file under warcio: written bytes stay here until :meth:`flush` (warcio
    flushes after each record), so that a failed record can be dropped before any of
    its bytes reach the file."""

    def __init__(self, file: io.FileIO) -> None:
        self.file = file
        self._pending = bytearray()

    def write(self, data: bytes) -> int:
        self._pending += data
        if len(self._pending) >= _BLOCK:
            self.flush()
        return len(data)

    def flush(self) -> None:
        data, self._pending = self._pending, bytearray()
        view = memoryview(data)
        while view:  # a raw write may take fewer bytes than given
            written = self.file.write(view)
            if not written:
                raise OSError(f"{self.file.name!r}: the WARC file took no bytes")
            view = view[written:]

    def discard(self) -> None:
        """Forget what was written since the last flush."""
        self._pending = bytearray()


class WARCOutput:
    """One WARC/1.1 file being written: use as a context manager or call :meth:`close`.

    An existing file is refused with ``FileExistsError`` (even a dangling symbolic link:
    the file is created with ``O_EXCL``) unless ``append=True``, which adds to it (a
    resumed mirror continues its archive). A new or empty file starts with a ``warcinfo``
    record: ``software``, ``format``, ``conformsTo``, and ``operator`` and ``hostname``
    when given (the host's name is not recorded unless asked). The name decides the
    compression: one gzip member per record when it ends in ``.gz``.

    One writer per file; calls are not thread-safe and must be serialized by the caller.
    Every ``write_*`` method writes whole records or none (see the module's docstring).
    """

    def __init__(self, path: str | os.PathLike[str], *, software: str = DEFAULT_SOFTWARE,
                 operator: str | None = None, hostname: str | None = None,
                 append: bool = False, max_size: int | None = None,
                 cut_at: tuple[Path, int] | None = None) -> None:
        self.first = Path(path)
        self.max_size = max_size
        self._info = {"software": software, "format": "WARC File Format 1.1",
                      "conformsTo": CONFORMS_TO}
        if operator:
            self._info["operator"] = operator
        if hostname:
            self._info["hostname"] = hostname
        #: The main record of the last write (None before one).
        self.last: Written | None = None
        self._number = 0
        if append:
            self._number = self._resume(cut_at)
        self._open(self._number, append=append)

    @property
    def files(self) -> list[Path]:
        """The files of the archive so far, in order (one unless it rolled over)."""
        return [series(self.first, n) for n in range(self._number + 1)
                if os.path.lexists(series(self.first, n))]

    def _resume(self, cut_at: tuple[Path, int] | None) -> int:
        """Which file of the series an appending writer continues; cut back to
        ``cut_at`` (the end of the last record a crawl committed) first, dropping any
        later file of the series, which can only hold uncommitted records."""
        last = 0
        while os.path.lexists(series(self.first, last + 1)):
            last += 1
        if cut_at is None:
            return last
        file, end = Path(cut_at[0]), cut_at[1]
        keep = next((n for n in range(last + 1) if series(self.first, n) == file), None)
        if keep is None:
            return last  # a crawl of another archive: nothing of ours to cut
        for n in range(keep + 1, last + 1):
            series(self.first, n).unlink()
        fd = os.open(file, os.O_WRONLY | os.O_NOFOLLOW)
        try:
            if os.fstat(fd).st_size > end:
                os.truncate(fd, end)
        finally:
            os.close(fd)
        return keep

    def _open(self, number: int, *, append: bool) -> None:
        self.path = series(self.first, number)
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_APPEND if append
                                                              else os.O_EXCL)
        self._file = open(os.open(self.path, flags, 0o644), "ab", buffering=0)  # noqa: SIM115 - closed in close()
        self._sink = _Sink(self._file)
        self._broken = False
        self._writer = WARCWriter(self._sink, gzip=self.path.name.endswith(".gz"),
                                  warc_version="WARC/1.1")
        if self._file.seek(0, os.SEEK_END) == 0:
            try:
                self._write(self._writer.create_warcinfo_record(self.path.name, self._info))
            except BaseException:
                self._file.close()
                raise

    def _roll(self) -> None:
        """Start the next file of the series when this one has reached ``max_size``
        (a file holds at least one record besides its ``warcinfo``)."""
        if self.max_size is None or self.last is None or self.last.file != self.path:
            return
        if self._file.seek(0, os.SEEK_END) < self.max_size:
            return
        self.close()
        self._number += 1
        self._open(self._number, append=False)

    def write_http(
        self,
        url: str,
        *,
        method: str,
        request_target: str,
        http_version: str,
        request_headers: list[tuple[str, str]],
        request_body: bytes | None,
        status: int,
        reason: str,
        response_headers: list[tuple[str, str]],
        payload: BinaryIO | bytes,
        date: datetime | None = None,
        content_decoded: bool = False,
    ) -> str:
        """A ``response`` and a ``request`` record for one HTTP exchange; the response's
        ``WARC-Record-ID``.

        ``url`` (already masked) is the ``WARC-Target-URI`` of both. ``payload`` is the
        body as delivered, de-chunked: bytes, or a file read from its current position to
        its end. The recorded response head drops ``Transfer-Encoding`` and states the
        payload's ``Content-Length``; with ``content_decoded`` (the body was inflated for
        ``--compressed``) it drops ``Content-Encoding`` too. ``Authorization`` and
        ``Proxy-Authorization`` request values are recorded as :data:`MASK`. An empty
        ``reason`` (HTTP/2 has none) is the status's standard phrase. ``date`` (default
        now) is both records' ``WARC-Date``.
        """
        version = _http_version(http_version)
        when = _warc_date(date)
        body = _window(payload)
        try:
            kept = _delivered(response_headers, body.length, decoded=content_decoded)
            try:
                phrase = reason or HTTPStatus(status).phrase
            except ValueError:
                phrase = ""
            response = self._writer.create_warc_record(
                _uri(url), "response", payload=body, length=body.length,
                warc_headers_dict={"WARC-Date": when},
                http_headers=StatusAndHeaders(_text(f"{status} {phrase}".rstrip()), kept,
                                              protocol=version))
            response_id = str(response.rec_headers.get_header("WARC-Record-ID"))
            sent = request_body or b""
            request = self._writer.create_warc_record(
                _uri(url), "request", payload=io.BytesIO(sent), length=len(sent),
                warc_headers_dict={"WARC-Date": when, "WARC-Concurrent-To": response_id},
                http_headers=StatusAndHeaders(
                    _text(f"{method} {request_target} {version}"),
                    _fields(request_headers, mask=_CREDENTIAL_HEADERS), is_http_request=True))
            self._write(response, request)
        finally:
            body.close()
        return response_id

    def write_resource(
        self,
        url: str,
        *,
        content_type: str | None,
        payload: BinaryIO | bytes,
        dialogue: Sequence[str] = (),
        date: datetime | None = None,
    ) -> str:
        """A ``resource`` record, then the dialogue's ``metadata`` record if there is a
        dialogue; the resource's ``WARC-Record-ID``.

        For every scheme but HTTP. ``url`` (already masked) is the ``WARC-Target-URI``;
        ``content_type`` the record's ``Content-Type`` (``application/octet-stream`` when
        None); ``payload`` bytes, or a file read from its current position to its end.
        ``dialogue`` is recorded as ``text/plain``, one line per line, through
        :func:`mask_dialogue`, with ``WARC-Concurrent-To`` naming the resource.
        """
        when = _warc_date(date)
        body = _window(payload)
        try:
            resource = self._writer.create_warc_record(
                _uri(url), "resource", payload=body, length=body.length,
                warc_content_type=_text(content_type or "application/octet-stream"),
                warc_headers_dict={"WARC-Date": when})
            resource_id = str(resource.rec_headers.get_header("WARC-Record-ID"))
            records = [resource]
            if dialogue:
                text = "".join(f"{line}\n" for line in mask_dialogue(dialogue))
                data = text.encode("utf-8", "backslashreplace")
                records.append(self._writer.create_warc_record(
                    _uri(url), "metadata", payload=io.BytesIO(data), length=len(data),
                    warc_content_type="text/plain; charset=utf-8",
                    warc_headers_dict={"WARC-Date": when, "WARC-Concurrent-To": resource_id}))
            self._write(*records)
        finally:
            body.close()
        return resource_id

    def write_metadata(self, url: str, data: bytes, *,
                       content_type: str = "application/json") -> Written:
        """A ``metadata`` record alone (WARC/1.1 6.6): what was learnt of ``url``
        (already masked) without fetching it, as a mirror records a symbolic link that
        a listing named (its target): there is no payload to hold, only the fact."""
        record = self._writer.create_warc_record(
            _uri(url), "metadata", payload=io.BytesIO(data), length=len(data),
            warc_content_type=_text(content_type),
            warc_headers_dict={"WARC-Date": _warc_date(None)})
        self._write(record)
        assert self.last is not None
        return self.last

    def write_result(self, info: ResourceInfo, payload: BinaryIO,
                     dialogue: Sequence[str] = (), *, date: datetime | None = None) -> str:
        """The records of one fetched resource, as the downloader saved it.

        HTTP's request and response when the handler recorded the request
        (``info.extra["request"]``), else a resource record and its dialogue. ``payload``
        is the body as saved: for a HEAD (``kind == "headers"``) the saved text is the
        head, so the response is recorded with an empty body; for a resumed transfer
        answered ``206`` the saved file is whole, and the response holds the bytes this
        response carried (from ``info.offset``), as its ``Content-Range`` says.
        """
        request = info.extra.get("request")
        spec = spec_for(info.url.scheme)
        if spec is not None and spec.warc_record == "response" and request and info.status:
            body: BinaryIO | bytes = payload
            if info.kind == "headers":
                body = b""
            elif info.status == 206 and info.offset:
                _skip_resumed(payload, info)
            return self.write_http(
                info.url.masked(), method=request["method"],
                request_target=request["target"], http_version=request["http_version"],
                request_headers=list(request["headers"]), request_body=request.get("body"),
                status=info.status, reason=info.reason or "",
                response_headers=list(info.headers), payload=body, date=date,
                content_decoded=bool(info.extra.get("decoded")))
        return self.write_resource(info.url.masked(), content_type=info.content_type,
                                   payload=payload, dialogue=dialogue, date=date)

    def write_revisit(
        self,
        url: str,
        *,
        refers_to: Written,
        content_type: str | None = None,
        http_status: tuple[int, str, list[tuple[str, str]]] | None = None,
        date: datetime | None = None,
    ) -> str:
        """A ``revisit`` record: ``url`` was captured again and its payload is the one
        ``refers_to`` recorded (WARC/1.1 6.7.2, :data:`REVISIT_PROFILE`); its
        ``WARC-Record-ID``.

        ``WARC-Refers-To``, ``-Target-URI`` and ``-Date`` name the earlier record and
        ``WARC-Payload-Digest`` is its digest, so a replay tool serves the earlier
        payload. For HTTP, ``http_status`` (status, reason, header fields) is the new
        response's head, recorded as the block as the profile allows; other schemes'
        revisits have an empty block.
        """
        if refers_to.payload_digest is None:
            raise ValueError(f"{url}: the earlier record has no payload digest to refer to")
        http_headers = None
        if http_status is not None:
            status, reason, fields = http_status
            try:
                phrase = reason or HTTPStatus(status).phrase
            except ValueError:
                phrase = ""
            http_headers = StatusAndHeaders(
                _text(f"{status} {phrase}".rstrip()),
                _fields(fields, drop=frozenset({"transfer-encoding"})), protocol="HTTP/1.1")
        headers = {"WARC-Date": _warc_date(date), "WARC-Profile": REVISIT_PROFILE,
                   "WARC-Refers-To": refers_to.record_id}
        if content_type and http_status is None:
            headers["Content-Type"] = _text(content_type)
        record = self._writer.create_revisit_record(
            _uri(url), refers_to.payload_digest, _uri(refers_to.uri), refers_to.date,
            http_headers=http_headers, warc_headers_dict=headers)
        self._write(record)
        return str(record.rec_headers.get_header("WARC-Record-ID"))

    def _write(self, *records: Any) -> None:
        """Write ``records`` whole, or cut the file back to where they began; the first
        is the main one, which :attr:`last` then describes."""
        if records and records[0].rec_type != "warcinfo":
            self._roll()
        if self._file.closed:
            raise ValueError(f"{self.path}: the WARC file is closed")
        if self._broken:
            raise OSError(f"{self.path}: a failed record could not be cut off; not adding more")
        start = self._file.seek(0, os.SEEK_END)
        try:
            for record in records:
                self._writer.write_record(record)
            self._sink.flush()
            main = records[0].rec_headers if records else None
            if main is not None and records[0].rec_type != "warcinfo":
                self.last = Written(
                    str(main.get_header("WARC-Record-ID")),
                    str(main.get_header("WARC-Target-URI")), str(main.get_header("WARC-Date")),
                    main.get_header("WARC-Payload-Digest"), self.path,
                    self._file.seek(0, os.SEEK_END))
        except BaseException:
            self._sink.discard()
            try:
                self._file.truncate(start)
                self._file.seek(start)
            except OSError:
                self._broken = True
            raise

    def close(self) -> None:
        """Close the file (every record is in it already); closing twice does nothing."""
        if not self._file.closed:
            try:
                self._sink.flush()
            finally:
                self._file.close()

    def __enter__(self) -> WARCOutput:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def write_cdxj(warcs: Sequence[str | os.PathLike[str]], target: str | os.PathLike[str]) -> Path:
    """Index ``warcs`` into the CDXJ file ``target`` (sorted, as pywb and other replay
    tools read it: ``SURT timestamp {json}``, the JSON naming url, mime, status, digest,
    length, offset and filename, the file's name relative to the index's folder); the
    index is written beside and renamed into place, so a reader never sees half of it.

    The indexer is webrecorder's ``cdxj-indexer``; the response, revisit and resource
    records are indexed (a request or a dialogue's metadata record replays nothing).
    Its SURT key drops the scheme (``ftp://h/x`` and ``http://h/x`` share a key), as
    pywb's does; the ``url`` field tells them apart.
    """
    try:
        from cdxj_indexer.main import write_cdx_index  # type: ignore[import-untyped]
    except ImportError as exc:
        raise OptionError.missing_extra("the CDXJ index", exc.name, "warc") from None

    out = Path(target)
    partial = out.with_name(out.name + ".part")
    inputs = [os.fspath(w) for w in warcs]
    try:
        write_cdx_index(os.fspath(partial), inputs,
                        {"sort": True, "records": "response,revisit,resource",
                         "dir_root": os.fspath(out.parent.resolve())})
        os.replace(partial, out)
    finally:
        if partial.exists():
            partial.unlink()
    return out


def recorded_head(record: Any) -> dict[str, Any]:
    """What the head a ``response`` or ``revisit`` record holds says (the record's own
    format, ``application/http``, as warcio reads it): ``status`` (None unless three
    ASCII digits), ``reason``, ``headers`` (names lower case) and the payload's
    ``content_type``; {} for another record, or one without a head."""
    head = record.http_headers
    if head is None or record.rec_type not in ("response", "revisit"):
        return {}
    code, _, reason = str(head.statusline or "").partition(" ")
    return {"headers": tuple((k.lower(), v) for k, v in head.headers),
            "content_type": head.get_header("Content-Type"),
            "status": ascii_int(code, max_digits=3), "reason": reason or None}


def _skip_resumed(payload: BinaryIO, info: ResourceInfo) -> None:
    """Move a whole saved file to where a resumed ``206`` response's body began, when
    the file holds the earlier part too (a copy of stdout holds only the response's)."""
    if not _seekable(payload):
        return
    here = payload.tell()
    remaining = payload.seek(0, os.SEEK_END) - here
    whole = remaining >= info.offset and (info.size is None
                                          or remaining == info.offset + info.size)
    payload.seek(here + info.offset if whole else here)
