"""Resource: what a scheme handler returns, an async stream of byte chunks plus metadata.

Bodies flow in chunks with bounded memory: a handler hands over an async iterator
that reads from its connection as the consumer asks. ``Resource`` counts what passes
through and, when the stream ends short of the size the server announced, raises
:class:`~anyurl.errors.PartialTransfer` instead of ending quietly, so no handler can
forget that check. Closing the resource (``async with`` or :meth:`Resource.aclose`)
closes the iterator, which is where handlers release their connection.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

import anyio

from anyurl.errors import FileSizeExceeded, PartialTransfer
from anyurl.timeouts import Timeout, total_expired, using
from anyurl.url import URL

if TYPE_CHECKING:
    from anyurl.net.bulk import RawBody

_T = TypeVar("_T")

__all__ = ["LINE_LIMIT", "TEXT_LIMIT", "LineSplitter", "Resource", "ResourceExtra", "ResourceInfo",
           "charset_of", "decode_text", "parse_json"]


#: What :meth:`Resource.text` and :meth:`Resource.json` read at most by default (bytes).
TEXT_LIMIT = 16 << 20
#: The longest line :meth:`Resource.iter_lines` yields by default (characters).
LINE_LIMIT = 1 << 20


class ResourceExtra(TypedDict, total=False):
    """What a handler tells of a resource beyond :class:`ResourceInfo`'s common fields.

    Every key is optional and belongs to the schemes that set it; the WARC writer, the
    mirror, ``-w``, ``--json`` and the browser gateway read them. A key not listed here
    is a type error (mypy), so what a handler says and what a reader expects stay one.
    """

    # -- http, https --------------------------------------------------------------------
    #: The final response's status, its status line and its headers as received.
    status: int
    status_line: str
    headers: Any
    #: ``"1.1"`` or ``"2"``.
    http_version: str | None
    #: The request as sent, for the WARC's request record: method, target,
    #: http_version, headers (passwords masked), body.
    request: dict[str, Any] | None
    #: The response's Content-Encoding, and whether anyurl undid it (``--compressed``).
    content_encoding: str | None
    decoded: bool
    connection_reused: bool
    #: A resume asked for bytes the file does not have (416): it was complete already.
    already_complete: bool
    # -- ftp ----------------------------------------------------------------------------
    #: The listing command that produced a directory (``MLSD``, ``LIST``, ``NLST``).
    command: str
    #: The representation type of a retrieval (``"I"``, ``"A"``).
    type: str
    #: ``-I``: SIZE's and MDTM's answers (the time as an HTTP date).
    remote_size: int | None
    modified: str | None
    # -- gopher -------------------------------------------------------------------------
    #: A menu's items (up to ``MAX_KEPT_ITEMS``) and whether there were more.
    items: list[Any]
    items_truncated: bool
    #: A Gopher+ item's attribute blocks.
    attributes: Any
    #: A ``URL:`` item's target.
    target: str
    # -- news, nntp, mailto -------------------------------------------------------------
    #: The news server (``host:port``) and the article's group, number and Message-ID.
    server: str
    group: str | None
    number: int | None
    message_id: str | None
    #: A group listing: the group's article count and lowest and highest numbers.
    count: int
    low: int
    high: int
    #: mailto: the relay (``host:port``) and the recipient.
    relay: str
    recipient: str
    # -- any scheme whose server answers with reply codes ---------------------------------
    #: The server's last reply code (FTP's ``226`` after a completed transfer, the mail
    #: relay's ``250``): :attr:`ResourceInfo.response_code` when there is no status.
    reply_code: int
    # -- telnet -------------------------------------------------------------------------
    host: str
    port: int
    # -- prospero, wais -----------------------------------------------------------------
    #: The object's report as data (host, port, hsoname, attributes, access methods...).
    prospero: dict[str, Any]
    #: The report as text, kept as metadata when a raw fetch returns the object itself.
    report: str
    #: A search's or a document's details (database, search, documents ...).
    wais: dict[str, Any]


@dataclass
class ResourceInfo:
    """Metadata of an opened resource.

    ``size`` is the number of bytes the stream will yield when known (already reduced
    by ``offset`` for a resumed transfer); ``total_size`` the size of the whole remote
    object when known. ``offset`` is where the stream starts within the object (non-zero
    only when a resume was asked for and the server honoured it). ``kind`` says what the
    bytes are: ``"file"``, ``"directory"`` (a listing), ``"menu"``, ``"article"``,
    ``"headers"`` (an HTTP HEAD) ...

    ``url`` is the final URL (after redirects), ``filename`` the name the server or the
    URL suggests. For HTTP, ``status``, ``reason`` and ``headers`` (names lower-cased,
    in the order received; :meth:`header` looks one up) are the final response's; they
    are None and empty for the other schemes. ``extra`` holds what is particular to one
    handler (the protocol dialogue's details).
    """

    url: URL
    size: int | None = None
    total_size: int | None = None
    offset: int = 0
    content_type: str | None = None
    filename: str | None = None
    kind: str = "file"
    validator: str | None = None  # ETag / Last-Modified, for a safe resume later
    status: int | None = None
    reason: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    extra: ResourceExtra = field(default_factory=lambda: ResourceExtra())

    @property
    def response_code(self) -> int:
        """What the server last answered, as curl's ``-w '%{response_code}'`` gives it:
        the HTTP status, else the last reply code the handler noted (FTP's ``226``);
        0 when neither came."""
        if self.status is not None:
            return self.status
        return self.extra.get("reply_code", 0)

    def header(self, name: str) -> str | None:
        """The first value of response header ``name`` (any case), or None."""
        key = name.lower()
        for k, v in self.headers:
            if k == key:
                return v
        return None


class Resource:
    """An opened resource; iterate it with ``async for chunk in resource``."""

    def __init__(
        self,
        info: ResourceInfo,
        chunks: AsyncIterator[bytes],
        *,
        on_close: Callable[[], Awaitable[None]] | None = None,
        raw: RawBody | None = None,
    ):
        self.info = info
        self._chunks = chunks
        self._on_close = on_close
        self._closed = False
        self.bytes_received = 0
        #: The body as plain bytes on a socket, when the handler can offer it so
        #: (:mod:`anyurl.net.bulk`): :meth:`copy_to` moves it without copying it through
        #: Python. Set only before anything was read; consumed by the first read.
        self.raw = raw
        self._timeout: Timeout | None = None
        self._deadline: float | None = None
        #: The whole body when the handler had it in memory (:meth:`of_bytes`), until
        #: read: :meth:`take_whole` hands it over without an iterator.
        self._whole: bytes | None = None

    @classmethod
    def of_bytes(cls, info: ResourceInfo, data: bytes) -> Resource:
        """A resource over a body already in memory (a small pipelined HTTP response).

        Reading it costs no async generator (each one costs the event loop's
        first-iteration hook and finaliser, a few microseconds a file):
        :meth:`take_whole` gives the bytes at once, :meth:`read` and :meth:`copy_to`
        use it, and iterating yields them as one chunk.
        """
        resource = cls(info, _Once(data))
        resource._whole = data
        return resource

    def take_whole(self) -> bytes | None:
        """The whole body at once, counted as read, when it is in memory and nothing of
        it was read yet (:meth:`of_bytes`); None otherwise (then iterate)."""
        data = self._whole
        if data is None:
            return None
        self._whole = None
        self.raw = None
        chunks = self._chunks
        if isinstance(chunks, _Once):
            chunks.data = None
        self.bytes_received += len(data)
        return data

    def withdraw(self, error: Callable[[], Exception]) -> None:
        """Make an in-memory body (:meth:`of_bytes`) not read yet unreadable: reading
        it raises ``error()``. A batch that moved on withdraws it, so a resource of a
        batch behaves the same whether its body was small and in memory or not."""
        chunks = self._chunks
        if self._whole is not None and isinstance(chunks, _Once):
            self._whole = None
            chunks.data = None
            chunks.error = error()

    def limit_time(self, timeout: Timeout, deadline: float | None) -> None:
        """Read the body under ``timeout``'s limits and by ``deadline`` (an
        :func:`anyio.current_time` value, or None): a step of reading that passes the
        deadline raises :class:`~anyurl.errors.TransferTimeout` naming the URL and
        ``Timeout.total``. :meth:`Resolver.open <anyurl.resolver.Resolver.open>` sets it."""
        self._timeout = timeout
        self._deadline = deadline

    async def _within(self, step: Callable[[], Awaitable[_T]]) -> _T:
        """One step of reading (a chunk, a kernel move) under the request's timeouts."""
        with using(self._timeout):
            if self._deadline is None:
                return await step()
            with anyio.CancelScope(deadline=self._deadline) as scope:
                return await step()
        assert scope.cancelled_caught
        timeout = self._timeout
        raise total_expired(self.info.url, timeout.total if timeout else None)

    @property
    def url(self) -> URL:
        """The URL the bytes come from (``info.url``: after redirects)."""
        return self.info.url

    def __aiter__(self) -> AsyncIterator[bytes]:
        self.raw = None  # read as chunks from now on
        self._whole = None
        return self._iterate()

    async def copy_to(self, fd: int, progress: Callable[[int], None] | None = None) -> int:
        """Write the whole body to the file descriptor ``fd``; the bytes written.

        With a raw body the kernel moves it (``splice``); otherwise the chunks are
        written in turn. ``progress(bytes so far)`` is called as it goes. A body that
        ends short of the announced size raises :class:`PartialTransfer`, as iterating
        does; an error of the target is the ``OSError`` of the write.
        """
        raw, self.raw = self.raw, None
        whole = self.take_whole()
        if whole is not None:
            view = memoryview(whole)
            while view:
                view = view[os.write(fd, view):]
            if progress is not None and whole:
                progress(self.bytes_received)
            return self.bytes_received
        if raw is None:
            async for chunk in self:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
                if progress is not None:
                    progress(self.bytes_received)
            return self.bytes_received
        from anyurl.net.bulk import move

        done = 0
        if raw.prefix:
            view = memoryview(raw.prefix)
            while view:
                view = view[os.write(fd, view):]
            done = len(raw.prefix)
            if progress is not None:
                progress(done)

        def moved_so_far(n: int) -> None:
            self.bytes_received = done + n
            if progress is not None:
                progress(done + n)

        if self._timeout is None:
            moved = await move(raw.stream, fd, raw.remaining, moved_so_far)
        else:
            moved = await self._within(
                lambda: move(raw.stream, fd, raw.remaining, moved_so_far))
        self.bytes_received = done + moved
        expected = self.info.size
        if (raw.remaining is not None and moved < raw.remaining) or (
                expected is not None and self.bytes_received < expected):
            raise self._short(expected if expected is not None
                              else done + (raw.remaining or 0))
        await raw.finish(moved)
        return self.bytes_received

    async def _iterate(self) -> AsyncIterator[bytes]:
        if self._timeout is None:
            async for chunk in self._chunks:
                if chunk:
                    self.bytes_received += len(chunk)
                    yield chunk
        else:
            step = self._chunks.__anext__
            while True:
                try:
                    chunk = await self._within(step)
                except StopAsyncIteration:
                    break
                if chunk:
                    self.bytes_received += len(chunk)
                    yield chunk
        expected = self.info.size
        if expected is not None and self.bytes_received < expected:
            raise self._short(expected)

    def _short(self, expected: int) -> PartialTransfer:
        """The error for a body that ended after :attr:`bytes_received` of ``expected``."""
        return PartialTransfer(
            f"transfer of {self.info.url.masked()} ended after {self.bytes_received} of "
            f"{expected} bytes",
            received=self.bytes_received,
            expected=expected,
            url=self.info.url,
            hint="Try again with resume (resume=True) to continue where it stopped.",
        )

    async def read(self, limit: int | None = None) -> bytes:
        """The whole body in memory; for small resources (use iteration for large ones).

        With ``limit``, more than ``limit`` bytes raise :class:`FileSizeExceeded` (63)
        as soon as they arrive, so a server cannot make this grow without bound.
        """
        if limit is not None and self.info.size is not None and self.info.size > limit:
            raise _too_large(self.info.url, self.info.size, limit)
        if self._whole is not None and (limit is None or len(self._whole) <= limit):
            whole = self.take_whole()
            assert whole is not None
            return whole
        parts = []
        total = 0
        async for chunk in self:
            total += len(chunk)
            if limit is not None and total > limit:
                raise _too_large(self.info.url, total, limit)
            parts.append(chunk)
        return b"".join(parts)

    @property
    def encoding(self) -> str | None:
        """The ``charset`` of the content type (``text/plain; charset=iso-8859-1``), or
        None when the server named none (:meth:`text` then decodes UTF-8)."""
        return charset_of(self.info.content_type)

    async def text(self, limit: int | None = TEXT_LIMIT, *, encoding: str | None = None,
                   errors: str = "replace") -> str:
        """The whole body as text, read as :meth:`read` reads it (at most ``limit``
        bytes: :class:`FileSizeExceeded` beyond), decoded with ``encoding``, else the
        content type's charset, else UTF-8 (an unknown charset too). What does not
        decode is replaced (``errors``), as httpx's ``.text`` does."""
        return decode_text(await self.read(limit), encoding or self.encoding, errors)

    async def json(self, limit: int | None = TEXT_LIMIT) -> Any:
        """The body parsed as JSON (at most ``limit`` bytes). UTF-8, -16 and -32 are told
        apart as RFC 8259 allows; a charset the content type names is decoded first. Not
        JSON: :class:`ValueError` (:class:`json.JSONDecodeError`)."""
        return parse_json(await self.read(limit), self.encoding)

    async def iter_lines(self, limit: int | None = LINE_LIMIT, *,
                         encoding: str | None = None,
                         errors: str = "replace") -> AsyncIterator[str]:
        """The body's lines as they arrive, without their ending (LF, CR LF or CR), in
        bounded memory: a line longer than ``limit`` characters raises
        :class:`FileSizeExceeded` rather than growing without end. Decoded as
        :meth:`text` decodes."""
        lines = LineSplitter(encoding or self.encoding, errors, limit, self.info.url)
        async for chunk in self:
            for line in lines.feed(chunk):
                yield line
        for line in lines.feed(b"", final=True):
            yield line

    def close_now(self) -> bool:
        """Close at once when closing needs no I/O (a body in memory, :meth:`of_bytes`,
        with nothing to release): True then; False when :meth:`aclose` must run."""
        if self._closed:
            return True
        if self._on_close is None and isinstance(self._chunks, _Once):
            self._closed = True
            self._chunks.data = None
            self._whole = None
            return True
        return False

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            aclose = getattr(self._chunks, "aclose", None)
            if aclose is not None:
                await aclose()
        finally:
            if self._on_close is not None:
                await self._on_close()

    async def __aenter__(self) -> Resource:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _too_large(url: URL, size: int, limit: int) -> FileSizeExceeded:
    return FileSizeExceeded(
        f"{url.masked()} is larger than the limit of {limit} bytes ({size} or more)",
        url=url, hint="Raise the limit if you want it anyway.", remedy=("max_filesize",))


def charset_of(content_type: str | None) -> str | None:
    """The ``charset`` parameter of a content type, or None."""
    if not content_type:
        return None
    import email.message  # a text body's charset only: not paid by every start

    message = email.message.Message()
    message["content-type"] = content_type
    charset = message.get_param("charset")
    return charset.strip() or None if isinstance(charset, str) else None


def _codec(name: str) -> str | None:
    """Python's name of the codec ``name``, or None when Python has no such codec."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_text(data: bytes, charset: str | None, errors: str = "replace") -> str:
    """``data`` as text in ``charset`` (UTF-8 when None or unknown to Python)."""
    codec = _codec(charset) if charset else None
    return data.decode(codec or "utf-8", errors)


_LINE_END = re.compile(r"\r\n|\r|\n")


def parse_json(data: bytes, charset: str | None) -> Any:
    """``data`` as JSON: decoded from ``charset`` first when it names another codec than
    UTF-8, else given to :func:`json.loads` as bytes (which tells UTF-8, -16, -32 apart)."""
    import json  # a JSON body only: not paid by every start

    codec = _codec(charset) if charset else None
    if codec is not None and codec != "utf-8":
        return json.loads(data.decode(codec))
    return json.loads(data)


class LineSplitter:
    """Bytes in, complete lines out (no line ending), decoded incrementally; the one
    implementation behind :meth:`Resource.iter_lines` and the sync facade's."""

    def __init__(self, charset: str | None, errors: str, limit: int | None, url: URL):
        codec = (_codec(charset) if charset else None) or "utf-8"
        self._decoder = codecs.getincrementaldecoder(codec)(errors)
        self._pending = ""
        self._limit = limit
        self._url = url

    def feed(self, data: bytes, *, final: bool = False) -> list[str]:
        """The lines completed by ``data`` (with ``final``: the last one too)."""
        text = self._pending + self._decoder.decode(data, final)
        # A CR at the very end may be the first half of a CR LF: wait for the next byte.
        hold = "\r" if text.endswith("\r") and not final else ""
        if hold:
            text = text[:-1]
        # Only LF, CR LF and CR end a line (not str.splitlines's form feeds and others).
        lines = _LINE_END.split(text)
        last = lines.pop()  # what follows the last line ending: not a line yet
        if final:
            if last:
                lines.append(last)
            self._pending = ""
        else:
            self._pending = last + hold
        if self._limit is not None:
            for line in [*lines, self._pending]:
                if len(line) > self._limit:
                    raise FileSizeExceeded(
                        f"{self._url.masked()} has a line longer than the limit of "
                        f"{self._limit} characters", url=self._url,
                        hint="Raise the limit, or read the body in chunks.")
        return lines


class _Once:
    """An async iterator over one bytes object: no generator frame (see
    :meth:`Resource.of_bytes`)."""

    __slots__ = ("data", "error")

    def __init__(self, data: bytes):
        self.data: bytes | None = data
        #: Raised instead, once the body was withdrawn (:meth:`Resource.withdraw`).
        self.error: Exception | None = None

    def __aiter__(self) -> _Once:
        return self

    async def __anext__(self) -> bytes:
        data = self.data
        if data is None:
            if self.error is not None:
                raise self.error
            raise StopAsyncIteration
        self.data = None
        return data


async def iterate_bytes(data: bytes, chunk_size: int = 65536) -> AsyncIterator[bytes]:
    """An async iterator over ``data`` in chunks (for handlers with in-memory bodies)."""
    for i in range(0, len(data), chunk_size):
        yield data[i : i + chunk_size]
