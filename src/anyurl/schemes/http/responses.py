"""What a response means: the :class:`~anyurl.resource.Resource` an HTTP answer becomes.

:func:`to_resource` reads a response head against what was asked: an error status is
an exception (:func:`status_error`: 404/410 not found, 401/403/407 login refused, the
others a server error with its status and ``Retry-After``), unless the caller keeps
error bodies; a resume's ``206`` must start where asked (``Content-Range``), a ``416``
at the file's size means "already complete"; a HEAD's head is the resource; a body in a
content coding is decoded as it streams (:mod:`.decoding`), and a plain one over TCP
may leave the socket for a file without Python (:mod:`anyurl.net.bulk`). The connection
goes back to the pool once the body is read to its end (:class:`_BodyEnd`).
:func:`small_resource` is the same answer for a pipelined 200 whose body is already read.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote

from anyurl.downloads.names import disposition_filename
from anyurl.errors import (
    AnyURLError,
    BadContentEncoding,
    LoginDenied,
    ProtocolError,
    RemoteFileNotFound,
    ResumeFailed,
    ServerError,
)
from anyurl.net.bulk import RawBody
from anyurl.numbers import ascii_int, is_ascii_digits
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http.connect import Connector
from anyurl.schemes.http.decoding import CodingError, Decoder, decoder_for
from anyurl.schemes.http.http11 import HTTP11Connection
from anyurl.schemes.http.interfaces import Connection, Response
from anyurl.schemes.http.options import HTTPOptions
from anyurl.schemes.http.pipeline import Exchange
from anyurl.schemes.http.view import HTTPPath
from anyurl.url import URL

__all__ = ["retry_after_seconds", "small_resource", "status_error", "to_resource"]


class _BodyEnd:
    """Who gives a response's connection back: the body when read to its end (to the
    pool), otherwise whoever closes first (the body's ``finally`` or the Resource, which
    also covers a resource closed before its first chunk, when the body never ran)."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.released = False

    async def close(self) -> None:
        if not self.released:
            self.released = True
            await self.conn.aclose()


async def to_resource(
    connector: Connector, url: URL, final: URL, conn: Connection, response: Response,
    options: FetchOptions, method: str = "GET", sent: dict[str, Any] | None = None,
) -> Resource:
    """What ``response`` (to a request for ``url``, answered at ``final``) means: a
    :class:`Resource` streaming its body (decoded if asked), the head of a HEAD, a range
    checked against the one asked, an error for an error status (see the handler's
    module docstring); ``conn`` goes back to the pool when the body ends."""
    status = response.status
    length = response.content_length
    offset = 0
    size = length
    total = length
    ranged = options.byte_range is not None
    if status == 206 and (options.offset or ranged):
        offset, size, total = _check_content_range(final, response, options)
    elif status == 416 and options.offset and not ranged:
        return await _range_not_satisfiable(connector, final, conn, response, options)
    elif status >= 300 and not options.get(HTTPOptions).keep_error_body:
        error = status_error(final, response)
        body = await connector.discard(conn, response)  # a short page, for archives
        error.answer = {"request": sent, "status": response.status,
                        "reason": response.reason, "headers": list(response.headers),
                        "body": body}
        raise error
    elif status == 206:  # a range nobody asked for: the start is not the file's
        await conn.aclose()
        raise ProtocolError(
            f"{final.masked()} answered '{response.status_line}' to a request without "
            "Range", url=final)
    if method == "HEAD":
        return await _head_resource(connector, final, conn, response, sent)
    encoding = (response.header("content-encoding") or "").strip().lower()
    decoder = None
    if encoding and options.get(HTTPOptions).decode_content:
        try:
            decoder = decoder_for(encoding)
        except CodingError as exc:
            await conn.aclose()
            raise _bad_coding(final, exc) from None
        if decoder is not None:
            size = None  # the decoded size is not announced
    etag = response.header("etag")
    validator = etag if etag and not etag.startswith("W/") else response.header(
        "last-modified")
    info = ResourceInfo(
        url=final,
        size=size,
        total_size=total,
        offset=offset,
        content_type=response.header("content-type"),
        filename=_filename(final, response),
        validator=validator,
        status=status,
        reason=response.reason,
        headers=tuple(response.headers),
        extra={
            "status": status,
            "status_line": response.status_line,
            "headers": response.headers,
            "content_encoding": encoding or None,
            "decoded": decoder is not None,
            "connection_reused": conn.cycles > 0,
            "http_version": conn.http_version,
            "request": sent,
        },
    )
    end = _BodyEnd(conn)
    raw = _raw_body(connector, end, response) if decoder is None else None
    return Resource(info, _body(connector, end, response, decoder, final), on_close=end.close,
                    raw=raw)

def _raw_body(connector: Connector, end: _BodyEnd, response: Response) -> RawBody | None:
    """The body as bytes on the socket, for a move without Python (HTTP/1.1 with a
    Content-Length over plain TCP): see :mod:`anyurl.net.bulk`."""
    conn = end.conn
    if not isinstance(conn, HTTP11Connection | Exchange):
        return None
    found = conn.raw_body(response)
    if found is None:
        return None
    prefix, remaining = found

    async def finish(moved: int) -> None:
        conn.raw_done(response)
        end.released = True
        await connector.release(conn)

    return RawBody(conn.stream, prefix, remaining, finish)

async def _head_resource(connector: Connector, final: URL, conn: Connection,
                         response: Response, sent: dict[str, Any] | None) -> Resource:
    """HEAD (``-I``): the response head is the resource, as curl prints it."""
    async for _ in conn.body(response):
        pass  # nothing: h11 and h2 know a HEAD response has no body
    await connector.release(conn)
    head = (response.status_line + "\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in response.headers) + "\r\n")
    data = head.encode("latin-1", "replace")
    info = ResourceInfo(
        url=final, size=len(data), kind="headers", content_type="text/plain",
        status=response.status, reason=response.reason, headers=tuple(response.headers),
        extra={"status": response.status, "status_line": response.status_line,
               "headers": response.headers, "http_version": conn.http_version,
               "request": sent})
    return Resource(info, iterate_bytes(data))

def _check_content_range(
    url: URL, response: Response, options: FetchOptions
) -> tuple[int, int | None, int | None]:
    text = response.header("content-range") or ""
    try:
        unit, _, rest = text.partition(" ")
        span, _, total_text = rest.partition("/")
        first_text, _, last_text = span.partition("-")
        first, last = _range_number(first_text), _range_number(last_text)
        total = None if total_text.strip() == "*" else _range_number(total_text)
        if unit.lower() != "bytes":
            raise ValueError(unit)
    except ValueError:
        raise ResumeFailed(
            f"{url.masked()} answered '{response.status_line}' with Content-Range "
            f"{text!r}, which anyurl cannot use to resume",
            url=url,
        ) from None
    start = options.offset + (options.byte_range[0] if options.byte_range else 0)
    if first != start:
        raise ResumeFailed(
            f"{url.masked()} resumed at byte {first} (Content-Range {text!r}) where byte "
            f"{start} was asked for",
            url=url,
            hint="Download the file again from the start.",
        )
    if options.byte_range is not None:
        # The range is the resource: its bytes before this attempt are the offset.
        return options.offset, last - first + 1, options.offset + last - first + 1
    return first, last - first + 1, total

async def _range_not_satisfiable(
    connector: Connector, url: URL, conn: Connection, response: Response,
    options: FetchOptions,
) -> Resource:
    text = response.header("content-range") or ""
    total_text = text.rpartition("/")[2].strip()
    await connector.discard(conn, response)
    total = ascii_int(total_text, max_digits=19)
    if total == options.offset:
        # What we have is the whole file: nothing left to transfer.
        info = ResourceInfo(url=url, size=0, total_size=options.offset,
                            offset=options.offset, filename=_filename(url, response),
                            extra={"status": 416, "status_line": response.status_line,
                                   "already_complete": True})
        return Resource(info, _empty())
    size = f"; the file has {total} bytes" if total is not None else ""
    raise ResumeFailed(
        f"{url.masked()} answered '{response.status_line}' to a resume from byte "
        f"{options.offset}{size}",
        url=url,
        hint="The local partial file is larger than the remote one; download it again.",
    )

async def _body(
    connector: Connector, end: _BodyEnd, response: Response, decoder: Decoder | None, url: URL
) -> AsyncIterator[bytes]:
    conn = end.conn
    try:
        async for data in conn.body(response):
            if decoder is None:
                if data:
                    yield data
                continue
            try:
                # One piece at a time, each bounded (decoding's DECODED_CHUNK): the
                # consumer counts it against max_filesize before the next is made.
                for piece in decoder.decode(data):
                    yield piece
            except CodingError as exc:
                raise _bad_coding(url, exc) from None
        if decoder is not None:
            try:
                for piece in decoder.finish():
                    yield piece
            except CodingError as exc:
                raise _bad_coding(url, exc) from None
        end.released = True
        await connector.release(conn)
    finally:
        await end.close()


def _bad_coding(url: URL, exc: CodingError) -> BadContentEncoding:
    """The error for a body that does not decode (``--compressed``), naming the URL."""
    return BadContentEncoding(
        f"{url.masked()} sent a body that does not decode as {exc.coding}: {exc.reason}",
        url=url, hint="Fetch it without decode_content to keep the bytes as sent.",
        remedy=("compressed",))


def small_resource(url: URL, response: Response, index: dict[str, str], data: bytes,
                    reused: bool, sent: dict[str, Any]) -> Resource:
    """A plain 200 of a pipelined window whose whole body was read
    (:meth:`~.pipeline.PipelinedConnection.whole_body`): what
    :func:`to_resource` makes of it, with the head's ``index`` (each
    name once) and the body in memory."""
    final = url.without_fragment()
    size = len(data)
    encoding = (index.get("content-encoding") or "").strip().lower()
    etag = index.get("etag")
    headers = response.headers
    info = ResourceInfo(
        url=final,
        size=size,
        total_size=size,
        offset=0,
        content_type=index.get("content-type"),
        filename=_filename_from(final, index.get("content-disposition")),
        validator=etag if etag and not etag.startswith("W/") else index.get(
            "last-modified"),
        status=200,
        reason=response.reason,
        headers=tuple(headers),
        extra={
            "status": 200,
            "status_line": response.status_line,
            "headers": headers,
            "content_encoding": encoding or None,
            "decoded": False,
            "connection_reused": reused,
            "http_version": "1.1",
            "request": sent,
        },
    )
    return Resource.of_bytes(info, data)


def _filename(url: URL, response: Response) -> str | None:
    return _filename_from(url, response.header("content-disposition"))


def _filename_from(url: URL, disposition: str | None) -> str | None:
    """The name a ``Content-Disposition`` gives, else the URL's last path segment."""
    name = disposition_filename(disposition)
    if name is not None:
        return name
    parts = url.parts
    if isinstance(parts, HTTPPath) and parts.hpath:
        name = unquote(parts.hpath.rsplit("/", 1)[-1])
        return name or None
    return None


async def _empty() -> AsyncIterator[bytes]:
    return
    yield b""  # pragma: no cover - makes this an async generator


def status_error(url: URL, response: Response) -> AnyURLError:
    """The error for a status the handler does not follow or serve (``status`` set)."""
    error = _status_error(url, response)
    error.status = response.status
    if response.status in (429, 503):  # how long the server asks us to wait (RFC 9110 10.2.3)
        error.retry_after = retry_after_seconds(response.header("retry-after"))
    return error


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` value asks for: delay-seconds, or an HTTP date (from
    ``now``, the clock's time when None; a date passed is 0). None when absent or neither."""
    if value is None:
        return None
    text = value.strip()
    if is_ascii_digits(text):
        seconds = ascii_int(text, max_digits=18)  # longer: more than any retry waits
        return float("inf") if seconds is None else float(seconds)
    if not text.isascii():  # the email package reads other scripts' digits in a date
        return None
    import email.utils  # an HTTP date: rare, and the email package costs every start

    try:
        when = email.utils.parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _range_number(text: str) -> int:
    """A ``Content-Range`` position or length: ASCII digits (RFC 9110 14.4); ValueError
    for anything else, ``+5`` or ``٣`` too, which ``int()`` alone would take."""
    number = ascii_int(text.strip(" \t"), max_digits=19)
    if number is None:
        raise ValueError(text)
    return number


def _status_error(url: URL, response: Response) -> AnyURLError:
    status = response.status
    line = response.status_line
    if status in (404, 410):
        return RemoteFileNotFound(f"{url.masked()} answered '{line}'", url=url,
                                  hint="Check the path; the file may have moved.")
    if status in (401, 403):
        hint = ("Give a user and password in the URL (http://user:password@host/) if the "
                "server wants a login." if status == 401 else
                "The server refuses to serve it to you.")
        return LoginDenied(f"{url.masked()} answered '{line}'", url=url, hint=hint)
    if status == 407:
        return LoginDenied(f"the gateway for {url.masked()} answered '{line}'", url=url,
                           hint="Put the gateway's user and password in its URL.")
    if status >= 400:
        return ServerError(f"{url.masked()} answered '{line}'", status=status, url=url,
                           hint="HTTPOptions(keep_error_body=True) returns what the server "
                           "sent.", remedy=("keep_error_body",))
    return ServerError(f"{url.masked()} answered '{line}'", status=status, url=url,
                       hint="The server did not send the file itself.")
