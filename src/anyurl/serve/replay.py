"""Replay: the records of WARC files written by ``anyurl mirror --warc``, as the gateway
shows them, with no network at all.

What the mirror writes (:mod:`anyurl.downloads.warc`, docs/mirror.md): an HTTP exchange is a
``response`` record (and a ``request`` one), every other scheme a ``resource`` record with
the bytes as the server sent them followed by a ``metadata`` record holding the protocol
dialogue, and a refresh records an unchanged payload as a ``revisit`` naming the record
that holds it (``WARC-Refers-To-Target-URI``, ``-Date``, the payload digest). Pywb and its
kin replay HTTP records only; here every scheme's records replay.

The archive is indexed once: from the CDXJ index beside a WARC file when there is one
(``site.warc.gz`` -> ``site.cdxj``, written by ``--warc-cdx``), else by reading the file
once with warcio's :class:`~warcio.archiveiterator.ArchiveIterator`. A record is then read
by seeking to its offset. A replayed resource's :class:`~anyurl.resource.ResourceInfo` is
rebuilt from what the record says (its type, its URL, the FTP listing command of its
dialogue), so that the scheme's handler renders it and finds its links as it does for a
live fetch.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from warcio.archiveiterator import ArchiveIterator

from anyurl.downloads.warc import recorded_head
from anyurl.errors import AnyURLError, FileSizeExceeded, RemoteFileNotFound, URLError
from anyurl.numbers import ascii_int
from anyurl.registry import spec_for
from anyurl.resource import ResourceExtra, ResourceInfo
from anyurl.url import URL, parse

__all__ = ["Archive", "Capture", "Entry", "replay_info", "timestamp"]

#: Record types that hold (or name) a payload; requests, warcinfo and metadata do not.
_REPLAYED = frozenset({"response", "resource", "revisit"})
#: A listing command in a recorded FTP dialogue (``> MLSD``, ``> LIST -a``, ``> NLST``).


@dataclass(frozen=True)
class Entry:
    """Where one record is: its file, its offset, and what the index says of it."""

    url: str
    date: str
    file: Path
    offset: int
    revisit: bool
    digest: str | None = None


@dataclass
class Capture:
    """One replayed resource: its info as a handler reads it, its bytes, its date."""

    info: ResourceInfo
    body: bytes
    #: ``WARC-Date`` of the record served (a revisit's own date).
    date: str
    #: The protocol dialogue of its ``metadata`` record, one line per element.
    dialogue: list[str] = field(default_factory=list)


def _key(url: str) -> str:
    """The form a URL is looked up in: as anyurl's parser writes it (so that a URL
    typed with ``%7E`` or ``~`` finds the same record), else as it is."""
    try:
        return str(parse(url).without_fragment())
    except URLError:
        return url


def _cdxj_of(warc: Path) -> Path:
    """The CDXJ index ``--warc-cdx`` writes beside ``warc``: its name's WARC suffixes
    replaced by ``.cdxj``."""
    name = warc.name
    for suffix in (".warc.gz", ".warc", ".gz"):
        if name.endswith(suffix):
            return warc.with_name(name[: -len(suffix)] + ".cdxj")
    return warc.with_name(name + ".cdxj")


class Archive:
    """The records of ``warcs``, indexed by URL; the newest capture of a URL wins.

    ``max_size`` bounds the bytes of one payload read into memory: a larger record is
    refused with :class:`~anyurl.errors.FileSizeExceeded`, as a live fetch is.
    """

    def __init__(self, warcs: Sequence[str | os.PathLike[str]], *,
                 max_size: int | None = None) -> None:
        self.warcs = [Path(w) for w in warcs]
        self.max_size = max_size
        self._by_url: dict[str, list[Entry]] = {}
        for warc in self.warcs:
            if not warc.is_file():
                raise AnyURLError(f"{warc}: no such WARC file",
                                  hint="Give the file anyurl mirror --warc wrote.")
        indexes = {_cdxj_of(w) for w in self.warcs}
        covered: set[Path] = set()
        for index in sorted(indexes):
            if index.is_file():
                covered |= self._read_cdxj(index)
        for warc in self.warcs:
            if warc.resolve() not in covered:
                self._scan(warc)
        for entries in self._by_url.values():
            entries.sort(key=lambda e: e.date)

    # -- the index -------------------------------------------------------------------

    def _add(self, entry: Entry) -> None:
        self._by_url.setdefault(_key(entry.url), []).append(entry)

    def _read_cdxj(self, index: Path) -> set[Path]:
        """Read a CDXJ index; the WARC files it covers."""
        covered: set[Path] = set()
        with open(index, encoding="utf-8") as lines:
            for line in lines:
                try:
                    _surt, date, blob = line.rstrip("\n").split(" ", 2)
                    fields: dict[str, Any] = json.loads(blob)
                    file = (index.parent / str(fields["filename"])).resolve()
                    offset = _cdxj_offset(fields["offset"])
                    url = str(fields["url"])
                except (ValueError, KeyError):
                    continue  # a line this reader does not know: not ours to replay
                covered.add(file)
                self._add(Entry(url, date, file, offset,
                                fields.get("mime") == "warc/revisit", fields.get("digest")))
        return covered

    def _scan(self, warc: Path) -> None:
        """Index ``warc`` by reading it once (no CDXJ index beside it)."""
        with open(warc, "rb") as stream:
            records = ArchiveIterator(stream)
            for record in records:
                if record.rec_type not in _REPLAYED:
                    continue
                headers = record.rec_headers
                date = re.sub(r"\D", "", str(headers.get_header("WARC-Date") or ""))[:14]
                self._add(Entry(str(headers.get_header("WARC-Target-URI")), date,
                                warc.resolve(), records.get_record_offset(),
                                record.rec_type == "revisit",
                                headers.get_header("WARC-Payload-Digest")))

    def urls(self) -> list[tuple[str, str]]:
        """Every archived URL with its newest capture's date (``YYYYMMDDhhmmss``)."""
        return sorted((entries[-1].url, entries[-1].date)
                      for entries in self._by_url.values())

    def __contains__(self, url: str) -> bool:
        return _key(url) in self._by_url

    # -- reading a record ------------------------------------------------------------

    def find(self, url: URL, at: str | None = None) -> Entry:
        """The newest capture of ``url``, or with ``at`` (a timestamp, ``YYYYMMDDhhmmss``
        or a prefix of it) the capture nearest to that time, as pywb picks one;
        :class:`RemoteFileNotFound` when none."""
        entries = self._by_url.get(_key(str(url)))
        if not entries:
            raise RemoteFileNotFound(
                f"{url.masked()} is not in the archive",
                hint="Only what the mirror fetched replays; the front page lists it.")
        if at is None:
            return entries[-1]
        wanted = _seconds(at)
        return min(reversed(entries), key=lambda e: abs(_seconds(e.date) - wanted))

    def read(self, url: URL, at: str | None = None) -> Capture:
        """The newest capture of ``url`` (the nearest to ``at``: :meth:`find`), a revisit
        resolved to the payload it names.

        Blocking file I/O: call it in a worker thread.
        """
        entry = self.find(url, at)
        record = self._record(entry)
        date = record["date"]
        if record["type"] == "revisit":
            original = self._original(entry, record)
            payload = self._record(original)
            record = {**payload, "date": date, "refers_date": payload["date"]}
        info = replay_info(url, record)
        return Capture(info, record["body"], date, record["dialogue"])

    def _original(self, entry: Entry, revisit: dict[str, Any]) -> Entry:
        """The record a revisit refers to: of its ``WARC-Refers-To-Target-URI``, with its
        payload digest, not itself a revisit."""
        uri = revisit.get("refers_uri") or entry.url
        digest = revisit.get("digest")
        for candidate in reversed(self._by_url.get(_key(uri), [])):
            if candidate.revisit:
                continue
            if digest is None or candidate.digest in (None, digest):
                return candidate
        raise RemoteFileNotFound(
            f"{entry.url}: the archive's revisit record refers to a payload it does not hold",
            hint="Replay every file of the archive series together (--warc F1 F2 ...).")

    def _record(self, entry: Entry) -> dict[str, Any]:
        """The record at ``entry``: type, date, content type, a response's status and
        headers (:func:`~anyurl.downloads.warc.recorded_head`),
        the payload (bounded by ``max_size``) and the dialogue of the metadata record
        that follows a resource record."""
        with open(entry.file, "rb") as stream:
            stream.seek(entry.offset)
            records = iter(ArchiveIterator(stream))
            record = next(records)
            headers = record.rec_headers
            found: dict[str, Any] = {
                "type": record.rec_type,
                "id": headers.get_header("WARC-Record-ID"),
                "uri": headers.get_header("WARC-Target-URI"),
                "date": str(headers.get_header("WARC-Date") or entry.date),
                "digest": headers.get_header("WARC-Payload-Digest"),
                "refers_uri": headers.get_header("WARC-Refers-To-Target-URI"),
                "content_type": headers.get_header("Content-Type"),
                "status": None, "reason": None, "headers": (), "dialogue": [],
            }
            found.update(recorded_head(record))  # a response's status and headers
            found["body"] = self._payload(entry, record)
            if record.rec_type == "resource":
                for after in records:
                    concurrent = after.rec_headers.get_header("WARC-Concurrent-To")
                    if after.rec_type == "metadata" and concurrent == found["id"]:
                        text = after.content_stream().read().decode("utf-8", "replace")
                        found["dialogue"] = text.splitlines()
                    break
        return found

    def _payload(self, entry: Entry, record: Any) -> bytes:
        stream = record.content_stream()
        limit = self.max_size
        data = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(data) > limit:
            raise FileSizeExceeded(
                f"{entry.url}: the archived payload is larger than the gateway's limit of "
                f"{limit} bytes", hint="Raise anyurl serve --max-size.")
        return bytes(data)


def replay_info(url: URL, record: dict[str, Any]) -> ResourceInfo:
    """The :class:`ResourceInfo` a handler needs to read a replayed record as it reads a
    live fetch (``kind``, ``content_type`` and the ``extra`` its ``links`` look at).

    What a handler's ``open`` would have said is read from the record by the scheme's
    descriptor (:attr:`~anyurl.registry.SchemeSpec.stored_kind`): a Gopher menu or
    attribute block from its content type, an FTP listing from the listing command in
    its dialogue (``info.extra["command"]``), a newsgroup or an article and a WAIS
    search from the URL. What the record cannot say (a WAIS result's documents, a
    Prospero report's fields, which live in ``info.extra`` of a live fetch) is left
    out: the page then links the URLs written in the text.
    """
    ctype = record.get("content_type")
    body: bytes = record.get("body", b"")
    kind = "file"
    extra: ResourceExtra = {}
    base = (ctype or "").split(";")[0].strip().lower()
    spec = spec_for(url.scheme)
    if spec is not None and spec.stored_kind is not None:
        kind, implied = spec.stored_kind(url, base, tuple(record.get("dialogue") or ()))
        extra = cast("ResourceExtra", dict(implied))
    return ResourceInfo(url=url, size=len(body), total_size=len(body), content_type=ctype,
                        kind=kind, status=record.get("status"), reason=record.get("reason"),
                        headers=tuple(record.get("headers") or ()), extra=extra,
                        filename=_filename(url))


def _filename(url: URL) -> str | None:
    """The last segment of ``url``'s path, decoded, for a download's name."""
    from urllib.parse import unquote

    name = unquote((url.path or "").rstrip("/").rsplit("/", 1)[-1])
    return name or None


def timestamp(date: str) -> str:
    """A capture's 14-digit timestamp (``YYYYMMDDhhmmss``) from its ``WARC-Date`` or a
    CDXJ line's date."""
    return re.sub(r"[^0-9]", "", date)[:14]


def _seconds(stamp: str) -> int:
    """A timestamp as seconds since year 0, for nearness: a prefix is padded as pywb
    pads it (``2024`` is 2024-01-01 00:00:00); a field out of range is clamped."""
    digits = (timestamp(stamp) + "00000101000000"[len(timestamp(stamp)):])[:14]
    year, month, day, hour, minute, second = (
        int(digits[a:b]) for a, b in ((0, 4), (4, 6), (6, 8), (8, 10), (10, 12), (12, 14)))
    days = year * 372 + (min(max(month, 1), 12) - 1) * 31 + min(max(day, 1), 31) - 1
    return ((days * 24 + min(hour, 23)) * 60 + min(minute, 59)) * 60 + min(second, 59)


def _cdxj_offset(value: object) -> int:
    """A CDXJ line's ``offset``: cdxj-indexer writes ASCII digits in a string (a JSON
    number is taken too). ValueError otherwise, so the line is skipped as unknown
    rather than seeking to ``int("+5")``, ``int("٣")`` or a negative place."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    number = ascii_int(value) if isinstance(value, str) else None
    if number is None:
        raise ValueError(f"offset {value!r} is not a decimal number")
    return number
