"""WARC/1.1 output for ``anyurl get --warc`` and ``anyurl mirror --warc``, written with warcio.

What each scheme leaves in the archive:

* **HTTP(S)**: a ``request`` record (the request head as sent, credentials masked, and
  its body) and a ``response`` record (status line, headers, body), linked by
  ``WARC-Concurrent-To``, so that the response replays. The body is the one delivered
  (de-chunked): the recorded head loses ``Transfer-Encoding`` and states the body's
  ``Content-Length``.
* **Every other scheme** (ftp, gopher, news, nntp, wais, prospero, file, telnet,
  mailto): a ``resource`` record with the URL as ``WARC-Target-URI`` and the bytes as
  the server sent them, then a ``metadata`` record holding the protocol dialogue (the
  commands sent and the replies, ``> USER anonymous`` / ``< 230 ...``), linked by
  ``WARC-Concurrent-To``. Passwords are masked by the handlers' traces; a ``PASS``
  argument and an ``Authorization`` value are masked here again, as a second guard.

Every record carries ``WARC-Payload-Digest`` and ``WARC-Block-Digest`` (SHA-1, base32, as
warcio makes them); the file starts with a ``warcinfo`` record naming anyurl. Payloads
are read from the saved file in blocks, never held in memory. A ``.gz`` name gets one
gzip member per record, as ``warcio check`` and replay tools expect.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from anyurl import __version__
from anyurl.resource import ResourceInfo

__all__ = ["WARCOutput", "mask_dialogue"]

_PASS = re.compile(r"^([<>]?\s*PASS\s+)\S.*$", re.IGNORECASE)
_AUTH = re.compile(r"^([<>]?\s*(?:Proxy-)?Authorization\s*:\s*)\S.*$", re.IGNORECASE)


def mask_dialogue(lines: Sequence[str]) -> list[str]:
    """The dialogue with any ``PASS`` argument and credential header value as ``****``."""
    masked = []
    for line in lines:
        line = _PASS.sub(r"\g<1>****", line)
        masked.append(_AUTH.sub(r"\g<1>****", line))
    return masked


def _length(payload: BinaryIO) -> int:
    here = payload.tell()
    end = payload.seek(0, os.SEEK_END)
    payload.seek(here)
    return end - here


def _stream(payload: BinaryIO | bytes | None) -> BinaryIO:
    if payload is None:
        return io.BytesIO()
    if isinstance(payload, bytes | bytearray | memoryview):
        return io.BytesIO(bytes(payload))
    return payload


class WARCOutput:
    """One WARC file being written; use as a context manager or call :meth:`close`.

    An existing file is refused (``FileExistsError``) unless ``append=True`` (a resumed
    mirror adds to its archive); a new or empty file starts with the ``warcinfo`` record.
    """

    def __init__(self, path: str | os.PathLike[str], *, append: bool = False,
                 software: str | None = None, operator: str | None = None):
        self.path = Path(path)
        self._file = open(self.path, "ab" if append else "xb")  # noqa: SIM115 - closed in close()
        gz = self.path.name.endswith(".gz")
        self._writer = WARCWriter(self._file, gzip=gz, warc_version="WARC/1.1")
        if self._file.tell() == 0:
            info = {"software": software or f"anyurl/{__version__}",
                    "format": "WARC File Format 1.1",
                    "conformsTo": "https://iipc.github.io/warc-specifications/specifications/"
                                  "warc-format/warc-1.1/"}
            if operator:
                info["operator"] = operator
            self._writer.write_record(
                self._writer.create_warcinfo_record(self.path.name, info))
            self._file.flush()

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
    ) -> str:
        """A request and a response record for one HTTP exchange; the response's id."""
        version = http_version if http_version.startswith("HTTP/") else f"HTTP/{http_version}"
        if version == "HTTP/2":
            version = "HTTP/1.1"  # WARC records HTTP/1.x messages; h2 has the same fields
        request_head = StatusAndHeaders(
            f"{method} {request_target} {version}",
            [(k, "****" if k.lower() in ("authorization", "proxy-authorization") else v)
             for k, v in request_headers], is_http_request=True)
        body = request_body or b""
        request = self._writer.create_warc_record(
            url, "request", payload=io.BytesIO(body), length=len(body),
            http_headers=request_head)
        stream = _stream(payload)
        length = _length(stream)
        kept = [(k, v) for k, v in response_headers
                if k.lower() not in ("transfer-encoding", "content-length")]
        kept.append(("Content-Length", str(length)))
        response_head = StatusAndHeaders(f"{status} {reason}".rstrip(), kept,
                                         protocol=version)
        response = self._writer.create_warc_record(
            url, "response", payload=stream, length=length, http_headers=response_head)
        response_id = str(response.rec_headers.get_header("WARC-Record-ID"))
        request.rec_headers.add_header("WARC-Concurrent-To", response_id)
        self._writer.write_record(response)
        self._writer.write_record(request)
        self._file.flush()
        return response_id

    def write_resource(
        self,
        url: str,
        *,
        content_type: str | None,
        payload: BinaryIO | bytes,
        dialogue: Sequence[str] = (),
    ) -> str:
        """A resource record (and the dialogue's metadata record); the resource's id."""
        stream = _stream(payload)
        length = _length(stream)
        resource = self._writer.create_warc_record(
            url, "resource", payload=stream, length=length,
            warc_content_type=content_type or "application/octet-stream")
        resource_id = str(resource.rec_headers.get_header("WARC-Record-ID"))
        self._writer.write_record(resource)
        if dialogue:
            text = ("\n".join(mask_dialogue(dialogue)) + "\n").encode("utf-8", "replace")
            metadata = self._writer.create_warc_record(
                url, "metadata", payload=io.BytesIO(text), length=len(text),
                warc_content_type="text/plain; charset=utf-8",
                warc_headers_dict={"WARC-Concurrent-To": resource_id})
            self._writer.write_record(metadata)
        self._file.flush()
        return resource_id

    def write_result(self, info: ResourceInfo, payload: BinaryIO,
                     dialogue: Sequence[str] = ()) -> str:
        """The records of one fetched resource: HTTP's request and response when the
        handler recorded the request (``info.extra["request"]``), else a resource record
        and its dialogue. ``payload`` is the body as saved."""
        request = info.extra.get("request")
        if info.url.scheme in ("http", "https") and request and info.status:
            return self.write_http(
                info.url.masked(), method=request["method"],
                request_target=request["target"], http_version=request["http_version"],
                request_headers=list(request["headers"]), request_body=request.get("body"),
                status=info.status, reason=info.reason or "",
                response_headers=list(info.headers), payload=payload)
        return self.write_resource(info.url.masked(), content_type=info.content_type,
                                   payload=payload, dialogue=dialogue)

    def close(self) -> None:
        """Flush and close the file."""
        self._file.close()

    def __enter__(self) -> WARCOutput:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
