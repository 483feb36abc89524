"""The one place that opens connections: TCP, UDP and TLS, timeouts, error mapping.

Every socket anyurl uses is made here; :mod:`anyurl.net.bulk` moves a raw body from one of
these sockets (handed over by the stream that owns it) to a file descriptor.

Protocol cores never see a socket and handlers never catch ``OSError``: every foreign
exception of a socket, TLS or anyio stream (``socket.gaierror``,
``ConnectionRefusedError``, ``ssl.SSLCertVerificationError``, anyio's
``BrokenResourceError`` ...) becomes an :mod:`anyurl.errors` class here, with the URL
(password masked) in its message. The mapping is a table per operation
(:data:`CONNECT_ERRORS`, :data:`STREAM_ERRORS`), looked up along the exception's class
hierarchy by :func:`map_error`, as httpcore maps its backends' errors. Handlers and the
downloader use anyio too, for task groups, timeouts and worker threads, but not for
sockets.

Closed is not Broken (trio's distinction): ``ClosedResourceError`` means our own code
closed the stream and is :class:`~anyurl.errors.StreamClosed`, a bug never retried;
``BrokenResourceError`` and a reset mean the peer or the network broke it,
:class:`~anyurl.errors.ConnectionLost`, which a retry may cure.
"""

from __future__ import annotations

import errno
import os
import select
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Protocol

import anyio
import anyio.abc

from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    ConnectionLost,
    HostNotResolved,
    StreamClosed,
    TLSCertificateError,
    TLSHandshakeFailed,
    TransferTimeout,
)
from anyurl.registry import spec_for
from anyurl.timeouts import current as current_timeout
from anyurl.url import URL

__all__ = [
    "CONNECT_ERRORS",
    "DEFAULT_RECEIVE_SIZE",
    "DIRECT",
    "STREAM_ERRORS",
    "Connecting",
    "Datagrams",
    "Dialer",
    "Listener",
    "Stream",
    "Tunnel",
    "connect_tcp",
    "map_error",
    "on_asyncio",
    "open_listener",
    "open_udp",
    "stream_error",
]

#: Receive size for bulk data: just under glibc's 128 KiB mmap threshold. Each receive
#: makes a new bytes object of up to this size; at 1 MiB every one was a fresh mmap
#: that page-faulted as it filled (200,000+ faults and 1.4-3.3 s for 1 GiB from vsftpd
#: here), while at 120 KiB they come from the heap (12,000 faults, 0.85-0.95 s).
DEFAULT_RECEIVE_SIZE = 120 << 10

#: ``write_timeout`` not given: the read timeout bounds sends too.
_SAME = object()


def on_asyncio() -> bool:
    """Whether the running event loop is asyncio's (else trio's), read from anyio's
    event-loop token: anyio no longer depends on sniffio, so a fresh install may not
    have it."""
    import asyncio

    native = anyio.lowlevel.current_token().native_token
    return isinstance(native, asyncio.AbstractEventLoop)


def _seconds_or_none(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


class Stream:
    """A connected byte stream with read and write timeouts and anyurl's errors.

    The timeouts are the ones given here, except while a request of the resolver runs
    (:func:`anyurl.timeouts.current`): then that request's ``read`` and ``write`` apply,
    so a pooled connection serves each request with the request's own limits.
    """

    def __init__(
        self,
        stream: anyio.abc.ByteStream,
        *,
        url: URL,
        read_timeout: float | None,
        what: str,
        write_timeout: float | object | None = _SAME,
    ):
        self._stream = stream
        self.url = url
        #: The far end of a tunnel (:meth:`tunnelled_to`): what remote_address says.
        self._far_end: tuple[str, int] | None = None
        self._read_timeout = read_timeout
        self._write_timeout = (read_timeout if write_timeout is _SAME
                               else _seconds_or_none(write_timeout))
        self.what = what

    @property
    def read_timeout(self) -> float | None:
        """Seconds a receive may wait for the next byte (None: no limit)."""
        request = current_timeout()
        return self._read_timeout if request is None else request.read

    @property
    def write_timeout(self) -> float | None:
        """Seconds a send may block on a full socket buffer (None: no limit)."""
        request = current_timeout()
        return self._write_timeout if request is None else request.write

    @property
    def raw(self) -> anyio.abc.ByteStream:
        """The anyio byte stream underneath (for a TLS upgrade or a test)."""
        return self._stream

    @property
    def plain_socket(self) -> socket.socket | None:
        """The TCP socket when bytes on it are the stream's bytes as they are (no TLS, no
        bytes put back, not closed): a raw body can then move from it to a file without
        passing through Python (:mod:`anyurl.net.bulk`). None otherwise."""
        stream = self._stream
        if isinstance(stream, _RawSocketStream) and not stream._closed:
            return stream._sock
        return None

    @property
    def alpn_protocol(self) -> str | None:
        """The protocol the TLS server chose by ALPN (``"h2"``), None without TLS or ALPN."""
        from anyio.streams.tls import TLSAttribute

        value = self._stream.extra(TLSAttribute.alpn_protocol, None)
        return str(value) if value else None

    @property
    def local_address(self) -> tuple[str, int]:
        """(host, port) of our end of the connection."""
        addr = self._stream.extra(anyio.abc.SocketAttribute.local_address)
        return (str(addr[0]), int(addr[1]))

    @property
    def remote_address(self) -> tuple[str, int]:
        """(host, port) of the peer: through a tunnel, the target the tunnel reaches
        (an address, or the name a proxy resolved), not the proxy."""
        if self._far_end is not None:
            return self._far_end
        addr = self._stream.extra(anyio.abc.SocketAttribute.remote_address)
        return (str(addr[0]), int(addr[1]))

    def tunnelled_to(self, host: str, port: int) -> None:
        """Say that this stream is a tunnel (SOCKS, CONNECT) to ``host:port``: an FTP
        client connects its passive data connection to "the control connection's peer",
        which must be the server, reached through the same proxy, not the proxy."""
        self._far_end = (host, port)

    async def receive(self, max_bytes: int = 65536) -> bytes:
        """Up to ``max_bytes``; ``b""`` when the peer has closed its side."""
        try:
            stream = self._stream
            if isinstance(stream, _RawSocketStream):
                # The timeout is armed only when the socket has nothing to give,
                # not on every chunk of a bulk transfer.
                return await stream.receive_within(max_bytes, self.read_timeout)
            with anyio.fail_after(self.read_timeout):
                return await stream.receive(max_bytes)
        except anyio.EndOfStream:
            return b""
        except TimeoutError:
            raise self.read_timed_out() from None
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, ssl.SSLError,
                OSError) as exc:
            raise _stream_error(exc, self.url, self.what, "while receiving") from exc

    def read_timed_out(self) -> TransferTimeout:
        """The error for ``read_timeout`` seconds without a byte (also for code that
        waits on the socket itself: :mod:`anyurl.net.bulk`)."""
        return TransferTimeout(
            f"no data from {self.what} of {self.url.masked()} for "
            f"{self.read_timeout or 0:g} seconds (the read timeout)",
            url=self.url,
            hint="The server may be stalled; raise Config.read_timeout or max_time, or retry.",
            remedy=("read_timeout",),
        )

    async def send(self, data: bytes) -> None:
        """Send all of ``data``; a send blocked longer than :attr:`write_timeout` (the
        peer stopped reading) raises :class:`~anyurl.errors.TransferTimeout`."""
        timeout = self.write_timeout
        try:
            stream = self._stream
            if isinstance(stream, _RawSocketStream):
                # As for receive: the timeout is armed only when the socket is full.
                await stream.send_within(data, timeout)
                return
            with anyio.fail_after(timeout):
                await stream.send(data)
        except TimeoutError:
            raise TransferTimeout(
                f"sending to {self.what} of {self.url.masked()} stalled for "
                f"{timeout or 0:g} seconds (the write timeout): the peer stopped reading",
                url=self.url, hint="Raise Timeout.write (Config.write_timeout) if the peer "
                "is merely slow.", remedy=("write_timeout",),
            ) from None
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, ssl.SSLError,
                OSError) as exc:
            raise _stream_error(exc, self.url, self.what, "while sending") from exc

    def bytes_waiting(self) -> bool:
        """Whether the peer has sent bytes not received yet, asked without waiting.

        Only a plain TCP socket is looked at (a peek of one byte): under TLS the socket
        also carries the TLS layer's own records (a session ticket after the
        handshake), so False there. The peer's close (a peek of nothing) is no byte.
        A client asks it where no answer is due (STYLE 26): bytes then answer nothing,
        and the connection is out of step."""
        sock = self.plain_socket
        if sock is None:
            return False
        try:
            return bool(sock.recv(1, socket.MSG_PEEK | getattr(socket, "MSG_DONTWAIT", 0)))
        except OSError:  # nothing there (EAGAIN), or reset: the next read says which
            return False

    def unreceive(self, data: bytes) -> None:
        """Put ``data`` back in front of the stream: the next receives return it first.

        A proxy may send the first bytes of the tunnelled protocol (an FTP banner) in
        the same segment as its ``200`` reply to ``CONNECT``; they belong to the caller.
        """
        if data:
            self._stream = _Prefixed(self._stream, data)

    @property
    def tls_session(self) -> ssl.SSLSession | None:
        """The TLS session of this stream (None without TLS): an FTP data connection
        resumes its control connection's (RFC 4217 10.2; vsftpd's ``require_ssl_reuse``).
        Under TLS 1.3 the server sends it after the handshake, so it is there once a
        reply has been read over TLS."""
        from anyio.streams.tls import TLSAttribute

        ssl_object = self._stream.extra(TLSAttribute.ssl_object, None)
        return None if ssl_object is None else ssl_object.session

    async def start_tls(
        self, server_hostname: str, ssl_context: ssl.SSLContext | None = None,
        session: ssl.SSLSession | None = None,
    ) -> None:
        """Run a TLS handshake over this (already connected) stream, e.g. a tunnel;
        resuming ``session`` when given."""
        try:
            with anyio.fail_after(self.read_timeout):
                self._stream = await _wrap_tls(
                    self._stream, server_hostname,
                    ssl_context or ssl.create_default_context(), session)
        except TimeoutError:
            raise TransferTimeout(
                f"TLS handshake with {server_hostname} for {self.url.masked()} timed out",
                url=self.url,
            ) from None
        except (ssl.SSLError, anyio.BrokenResourceError, anyio.EndOfStream, OSError) as exc:
            raise _tls_error(exc, f"{server_hostname}", self.url) from exc

    async def send_eof(self) -> None:
        """Close our sending side (a half-close); errors are ignored."""
        try:
            await self._stream.send_eof()
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass

    async def __aenter__(self) -> Stream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with anyio.CancelScope(shield=True):
            await self.aclose()


async def _wrap_tls(stream: anyio.abc.ByteStream, hostname: str, context: ssl.SSLContext,
                    session: ssl.SSLSession | None) -> anyio.abc.ByteStream:
    """``TLSStream.wrap``, or with ``session`` the same steps offering that session to
    resume: anyio's ``wrap`` has no parameter for it, and an FTP server that requires
    reuse (vsftpd) refuses a data connection with a session of its own (522)."""
    from anyio.streams.tls import TLSStream

    if session is None:
        return await TLSStream.wrap(stream, hostname=hostname, ssl_context=context,
                                    standard_compatible=False)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    ssl_object = context.wrap_bio(incoming, outgoing, server_side=False,
                                  server_hostname=hostname, session=session)
    wrapper = TLSStream(transport_stream=stream, standard_compatible=False,
                        _ssl_object=ssl_object, _read_bio=incoming, _write_bio=outgoing)
    await wrapper._call_sslobject_method(ssl_object.do_handshake)
    return wrapper


class _RawSocketStream(anyio.abc.ByteStream):
    """A TCP stream on a non-blocking socket, driven by the event loop's readiness waits.

    Why not anyio's own socket stream: on asyncio it goes through a transport and
    protocol that copy each chunk into a queue and pause and resume reading on every
    call, which measured 1.5 to 2 times curl's time for a bulk download on loopback.
    Reading the socket directly (``recv`` first, waiting only when it would block)
    costs one system call per chunk on both asyncio and trio. A fast transfer still
    passes a checkpoint every ``YIELD_EVERY`` bytes, so it cannot starve other tasks
    or outlive a cancellation (see :meth:`receive_within`).

    The stream keeps the running backend's class (``anyio.lowlevel.current_token()``)
    and calls its waits, checkpoints and cancel scopes directly: every ``anyio.*`` call
    looks the running backend up again, and a small FTP file made about 25 of them
    (issue 21). The class is the same for every event loop of one backend, so a
    pooled connection may outlive the loop it was made in.
    """

    #: Bytes a receive may return without yielding to other tasks (see receive_within).
    YIELD_EVERY = 1 << 20

    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._closed = False
        self._unyielded = 0
        self._backend = anyio.lowlevel.current_token().backend_class
        #: A connect begun and not finished (:func:`_begin_raw_tcp`).
        self._connecting = False

    async def receive(self, max_bytes: int = 65536) -> bytes:
        return await self.receive_within(max_bytes, None)

    async def _wait(self, writable: bool, timeout: float | None) -> None:
        """Until the socket is readable (writable), at most ``timeout`` seconds
        (``TimeoutError`` after): one cancel scope of the backend, made directly."""
        backend = self._backend
        wait = backend.wait_writable if writable else backend.wait_readable
        if timeout is None:
            await wait(self._sock)
            return
        scope = backend.create_cancel_scope(deadline=backend.current_time() + timeout)
        with scope:
            await wait(self._sock)
        if scope.cancelled_caught:
            raise TimeoutError

    async def receive_within(self, max_bytes: int, timeout: float | None) -> bytes:
        """Data already in the socket is returned at once; otherwise wait for it, at
        most ``timeout`` seconds each time nothing has come (a deadline per wait, so
        the read timeout holds between bytes, not for the whole body).

        Scheduling and cancellation: every wait is a checkpoint, and a run of receives
        that never waits passes a full checkpoint (cancellable, yielding to other
        tasks) once per ``YIELD_EVERY`` bytes, before the next ``recv`` so that no
        byte taken from the socket is lost to a cancellation. A checkpoint per chunk
        was a measurable part of a bulk transfer, and a cancellation check per call
        (a walk up the task's cancel scopes) a measurable part of a small FTP file,
        whose every reply waits anyway (issue 21).
        """
        if self._unyielded >= self.YIELD_EVERY:
            self._unyielded = 0
            await self._backend.checkpoint()
        sock = self._sock
        while True:
            if self._closed:
                raise anyio.ClosedResourceError
            try:
                data = sock.recv(max_bytes)
            except BlockingIOError:
                await self._wait(False, timeout)
                self._unyielded = 0
                continue
            except OSError as exc:
                raise anyio.BrokenResourceError from exc
            if not data:
                raise anyio.EndOfStream
            self._unyielded += len(data)
            return data

    async def send(self, item: bytes) -> None:
        await self.send_within(item, None)

    async def send_within(self, item: bytes, timeout: float | None) -> None:
        """Send all of ``item``, waiting (at most ``timeout`` each time) only when the
        socket's buffer is full.

        As for :meth:`receive_within`: every wait is a checkpoint, and sends that go
        out at once pass one (before sending) once per ``YIELD_EVERY`` bytes. A
        request line of a keep-alive run or an FTP command is followed by a receive
        that waits anyway; a scheduling pass or a cancellation check per command was
        a measurable share of a small fetch.
        """
        if self._unyielded >= self.YIELD_EVERY:
            self._unyielded = 0
            await self._backend.checkpoint()
        view = memoryview(item)
        sock = self._sock
        while view:
            if self._closed:
                raise anyio.ClosedResourceError
            try:
                sent = sock.send(view)
            except BlockingIOError:
                await self._wait(True, timeout)
                self._unyielded = 0
                continue
            except OSError as exc:
                raise anyio.BrokenResourceError from exc
            view = view[sent:]
        self._unyielded += len(item)

    async def finish_connect(self, timeout: float | None) -> None:
        """The end of a connect begun by :func:`_begin_raw_tcp`: a look without
        waiting first (the handshake is usually over by the time the caller asks),
        else a wait of at most ``timeout`` seconds; a failed handshake is its
        ``OSError``."""
        if not self._connecting:
            return
        poll = select.poll()
        poll.register(self._sock, select.POLLOUT)
        if not poll.poll(0):
            await self._wait(True, timeout)
        self._connecting = False
        error = self._sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if error:
            raise OSError(error, os.strerror(error))

    async def send_eof(self) -> None:
        try:
            self._sock.shutdown(socket.SHUT_WR)
        except OSError as exc:
            raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        """Close the socket (waking any task waiting on it); closing again does nothing.

        Not a checkpoint: the close is done when it returns, and an FTP file closes
        its data connection just before it waits for the 226 anyway; a yield here was
        an extra turn of the event loop per small file."""
        if self._closed:
            return
        self._closed = True
        self._backend.notify_closing(self._sock)
        self._sock.close()

    @property
    def extra_attributes(self) -> Mapping[Any, Callable[[], Any]]:
        sock = self._sock
        return {
            anyio.abc.SocketAttribute.family: lambda: sock.family,
            anyio.abc.SocketAttribute.local_address: sock.getsockname,
            anyio.abc.SocketAttribute.remote_address: sock.getpeername,
            anyio.abc.SocketAttribute.local_port: lambda: sock.getsockname()[1],
            anyio.abc.SocketAttribute.remote_port: lambda: sock.getpeername()[1],
            anyio.abc.SocketAttribute.raw_socket: lambda: sock,
        }


def _literal_address(host: str, port: int) -> list[tuple[Any, ...]] | None:
    """``getaddrinfo``'s answer for an IP address literal, without its worker thread.

    A resolver call runs in a thread (a hop that measured about a fifth of opening a
    loopback connection); an address needs no resolving. None for a host name.
    """
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host)
        except OSError:
            continue
        address = (host, port) if family == socket.AF_INET else (host, port, 0, 0)
        return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", address)]
    return None


async def _open_raw_tcp(host: str, port: int, family: int = 0,
                        timeout: float | None = None) -> _RawSocketStream:
    """Connect to the first address of ``host`` that accepts, one after another
    (only addresses of ``family`` when it is not 0: ``-4``/``-6``), all within
    ``timeout`` seconds (``TimeoutError`` after; None: the caller's scope bounds it)."""
    backend = anyio.lowlevel.current_token().backend_class
    deadline = None if timeout is None else backend.current_time() + timeout
    literal = _literal_address(host, port)
    if literal and family and literal[0][0] != family:
        have, want = ("IPv4", "IPv6") if family == socket.AF_INET6 else ("IPv6", "IPv4")
        raise OSError(errno.EAFNOSUPPORT, f"{host} is an {have} address, and only {want} "
                      "was allowed")
    if literal:
        infos = literal
    else:
        with anyio.fail_after(timeout):
            infos = await anyio.getaddrinfo(host, port, family=family,
                                            type=socket.SOCK_STREAM)
    if family:
        infos = [info for info in infos if info[0] == family]
        if not infos:
            kind = "IPv4" if family == socket.AF_INET else "IPv6"
            raise socket.gaierror(socket.EAI_ADDRFAMILY if hasattr(
                socket, "EAI_ADDRFAMILY") else socket.EAI_NONAME, f"no {kind} address")
    last: OSError | None = None
    for family, kind, proto, _name, address in infos:
        sock = socket.socket(family, kind, proto)
        stream = _RawSocketStream(sock)
        try:
            sock.setblocking(False)
            try:
                sock.connect(address)
            except BlockingIOError:
                left = None if deadline is None else deadline - backend.current_time()
                await stream._wait(True, left)
                error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if error:
                    raise OSError(error, os.strerror(error)) from None
        except OSError as exc:
            sock.close()
            last = exc
            continue
        except BaseException:
            sock.close()
            raise
        return stream
    raise last or OSError(f"no address found for {host!r}")


def _begin_raw_tcp(host: str, port: int, family: int = 0) -> _RawSocketStream:
    """A non-blocking connect to the address literal ``host`` begun (the handshake
    finished by :meth:`_RawSocketStream.finish_connect`); an immediate failure is
    the ``OSError``."""
    literal = _literal_address(host, port)
    assert literal is not None
    if family and literal[0][0] != family:
        have, want = ("IPv4", "IPv6") if family == socket.AF_INET6 else ("IPv6", "IPv4")
        raise OSError(errno.EAFNOSUPPORT, f"{host} is an {have} address, and only {want} "
                      "was allowed")
    family, kind, proto, _name, address = literal[0]
    sock = socket.socket(family, kind, proto)
    stream = _RawSocketStream(sock)
    try:
        sock.setblocking(False)
        try:
            sock.connect(address)
        except BlockingIOError:
            stream._connecting = True
    except BaseException:
        sock.close()
        raise
    return stream

class _Prefixed(anyio.abc.ByteStream):
    """A byte stream that first returns bytes already read from it (see ``unreceive``)."""

    def __init__(self, inner: anyio.abc.ByteStream, prefix: bytes):
        self._inner = inner
        self._prefix = prefix

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self._prefix:
            data, self._prefix = self._prefix[:max_bytes], self._prefix[max_bytes:]
            return data
        return await self._inner.receive(max_bytes)

    async def send(self, item: bytes) -> None:
        await self._inner.send(item)

    async def send_eof(self) -> None:
        await self._inner.send_eof()

    async def aclose(self) -> None:
        await self._inner.aclose()

    @property
    def extra_attributes(self) -> Mapping[Any, Callable[[], Any]]:
        return self._inner.extra_attributes


class Tunnel(Protocol):
    """Opens a byte stream to ``host:port`` through something else (an HTTP CONNECT).

    Implementations connect with :func:`connect_tcp` (direct) and return the stream,
    positioned at the first byte from ``host:port``. A :class:`Dialer` holds one.
    """

    def __call__(
        self,
        host: str,
        port: int,
        *,
        url: URL,
        connect_timeout: float | None,
        read_timeout: float | None,
    ) -> Awaitable[Stream]: ...


#: Connecting (and a TLS handshake): foreign exception class -> anyurl error class.
CONNECT_ERRORS: dict[type[BaseException], type[AnyURLError]] = {
    socket.gaierror: HostNotResolved,
    ssl.SSLCertVerificationError: TLSCertificateError,
    ssl.SSLError: TLSHandshakeFailed,
    # A TLS handshake with a server that does not speak TLS (https:// to a plain port)
    # ends in the peer's close or garbage, not an ssl error.
    anyio.EndOfStream: TLSHandshakeFailed,
    anyio.BrokenResourceError: TLSHandshakeFailed,
    TimeoutError: TransferTimeout,
    OSError: ConnectFailed,
}

#: Receiving and sending on a connected stream.
STREAM_ERRORS: dict[type[BaseException], type[AnyURLError]] = {
    anyio.ClosedResourceError: StreamClosed,
    anyio.BrokenResourceError: ConnectionLost,
    ssl.SSLError: ConnectionLost,
    TimeoutError: TransferTimeout,
    OSError: ConnectionLost,
}


def map_error(table: Mapping[type[BaseException], type[AnyURLError]],
              exc: BaseException) -> type[AnyURLError] | None:
    """The anyurl class ``table`` gives for ``exc``: its own class's row, else its nearest
    base class's; None when no row applies (the exception is not the network's)."""
    for cls in type(exc).__mro__:
        found = table.get(cls)
        if found is not None:
            return found
    return None


def stream_error(exc: BaseException, url: URL, what: str, doing: str) -> AnyURLError:
    """The anyurl error for ``exc`` raised by a stream's socket (``doing``: "while
    receiving"); for code that uses the socket itself (:mod:`anyurl.net.bulk`)."""
    return _stream_error(exc, url, what, doing)


def _stream_error(exc: BaseException, url: URL, what: str, doing: str) -> AnyURLError:
    kind = map_error(STREAM_ERRORS, exc) or ConnectionLost
    if kind is StreamClosed:
        return StreamClosed(f"{what} of {url.masked()} was used after anyurl closed it "
                            f"({doing})", url=url,
                            hint="This is a bug in anyurl; please report it.")
    return kind(f"{what} of {url.masked()} broke {doing}: {_reason(exc)}", url=url)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


async def connect_tcp(
    host: str,
    port: int,
    *,
    url: URL,
    connect_timeout: float | None = 30.0,
    read_timeout: float | None = 60.0,
    tls: bool = False,
    server_hostname: str | None = None,
    ssl_context: ssl.SSLContext | None = None,
    alpn_protocols: Sequence[str] | None = None,
    what: str = "the connection",
    family: int = 0,
) -> Stream:
    """Connect to ``host:port`` directly and return a :class:`Stream`; errors name ``url``.

    Handlers connect through their :class:`Dialer` instead, which may hold a tunnel.
    With ``tls`` and ``alpn_protocols`` (``["h2", "http/1.1"]``) the protocols are
    offered in the handshake (on ``ssl_context`` when given) and the server's pick is
    :attr:`Stream.alpn_protocol`.
    """
    if tls and alpn_protocols:
        ssl_context = ssl_context or ssl.create_default_context()
        ssl_context.set_alpn_protocols(list(alpn_protocols))
    request = current_timeout()
    if request is not None:  # the request's own limits (Resolver.open(timeout=...))
        connect_timeout, read_timeout = request.connect, request.read
    try:
        stream: anyio.abc.ByteStream
        if tls:
            with anyio.fail_after(connect_timeout):
                sock = await _open_raw_tcp(host, port, family)
                ctx = ssl_context or ssl.create_default_context()
                from anyio.streams.tls import TLSStream

                stream = await TLSStream.wrap(
                    sock, hostname=server_hostname or host, ssl_context=ctx,
                    standard_compatible=False,
                )
        else:
            # The deadline goes to the waits themselves: no cancel scope around a
            # connect that completes without waiting (an FTP data connection per file).
            stream = await _open_raw_tcp(host, port, family, connect_timeout)
    except (OSError, anyio.EndOfStream, anyio.BrokenResourceError) as exc:
        # TimeoutError, socket.gaierror and ssl.SSLError are OSErrors too.
        error = _connect_error(exc, host, port, url, connect_timeout)
        if isinstance(exc, TimeoutError):
            raise error from None
        raise error from exc
    _tune(stream)
    return Stream(stream, url=url, read_timeout=read_timeout, what=what)


def _connect_error(exc: BaseException, host: str, port: int, url: URL,
                   connect_timeout: float | None) -> AnyURLError:
    """The anyurl error for ``exc`` raised while connecting to ``host:port``."""
    shown = f"{host}:{port}"
    if isinstance(exc, TimeoutError):
        return TransferTimeout(
            f"connecting to {shown} for {url.masked()} timed out after "
            f"{connect_timeout or 0:g} seconds (the connect timeout)",
            url=url,
            hint="Check the host and port, or raise Config.connect_timeout.",
            remedy=("connect_timeout",),
        )
    if isinstance(exc, socket.gaierror) or (
            isinstance(exc, OSError) and not isinstance(exc, ssl.SSLError)
            and _is_resolution_error(exc)):
        return HostNotResolved(
            f"could not resolve host {host!r} for {url.masked()}: {_reason(exc)}",
            url=url,
            hint="Check the spelling of the host name.",
        )
    if isinstance(exc, ssl.SSLError | anyio.EndOfStream | anyio.BrokenResourceError):
        return _tls_error(exc, shown, url)
    return ConnectFailed(
        f"could not connect to {shown} for {url.masked()}: {_reason(exc)}",
        url=url,
        hint="Is the server running and listening on that port?",
    )


class Connecting:
    """A TCP connection begun and not yet waited for (:meth:`Dialer.begin_tcp`).

    Why: an FTP client can send ``RETR`` while its data connection's handshake is
    still in flight, and look at the connection just before it reads the reply. That
    is one round trip (and one wait of the event loop) less per file than connecting
    first, and a refused connection is still an error before the reply is awaited.
    """

    def __init__(self, ready: Stream | None, *, raw: _RawSocketStream | None = None,
                 deadline: float | None = None, host: str = "", port: int = 0,
                 url: URL | None = None, connect_timeout: float | None = None,
                 read_timeout: float | None = None, what: str = "the connection"):
        self._ready = ready
        self._raw = raw
        self._deadline = deadline
        self._where = (host, port)
        self._url = url
        self._timeouts = (connect_timeout, read_timeout)
        self._what = what

    async def established(self) -> Stream:
        """The connected stream, waiting for the handshake (up to the connect timeout,
        counted from :meth:`Dialer.begin_tcp`) only if it is not over yet."""
        if self._ready is not None:
            return self._ready
        raw, url = self._raw, self._url
        assert raw is not None and url is not None
        host, port = self._where
        connect_timeout, read_timeout = self._timeouts
        try:
            left = None if self._deadline is None else (
                self._deadline - raw._backend.current_time())
            await raw.finish_connect(left)
        except OSError as exc:
            await raw.aclose()
            error = _connect_error(exc, host, port, url, connect_timeout)
            if isinstance(exc, TimeoutError):
                raise error from None
            raise error from exc
        except BaseException:
            await raw.aclose()
            raise
        _tune(raw)
        self._ready = Stream(raw, url=url, read_timeout=read_timeout, what=self._what)
        return self._ready

    async def aclose(self) -> None:
        """Close the connection, made or not."""
        if self._ready is not None:
            await self._ready.aclose()
        elif self._raw is not None:
            await self._raw.aclose()


class Dialer:
    """Opens a handler's TCP connections: directly, or all through one ``tunnel``.

    A gateway in tunnel mode (RFC 1738 section 4) gives the inner scheme's handler a
    ``Dialer(tunnel)``, so every connection that handler opens, an FTP data connection
    too, goes through the gateway's CONNECT; other handlers use :data:`DIRECT`. The
    tunnel is an explicit object the handler holds, not ambient state.
    """

    def __init__(self, tunnel: Tunnel | None = None, family: int = 0):
        self.tunnel = tunnel
        #: ``socket.AF_INET`` or ``AF_INET6`` to connect over that only (``-4``/``-6``).
        self.family = family

    async def connect_tcp(
        self,
        host: str,
        port: int,
        *,
        url: URL,
        connect_timeout: float | None = 30.0,
        read_timeout: float | None = 60.0,
        tls: bool = False,
        server_hostname: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
        alpn_protocols: Sequence[str] | None = None,
        what: str = "the connection",
    ) -> Stream:
        """As :func:`connect_tcp`, through this dialer's tunnel when it has one."""
        if self.tunnel is None:
            return await connect_tcp(
                host, port, url=url, connect_timeout=connect_timeout,
                read_timeout=read_timeout, tls=tls, server_hostname=server_hostname,
                ssl_context=ssl_context, alpn_protocols=alpn_protocols, what=what,
                family=self.family)
        if tls and alpn_protocols:
            ssl_context = ssl_context or ssl.create_default_context()
            ssl_context.set_alpn_protocols(list(alpn_protocols))
        stream = await self.tunnel(host, port, url=url, connect_timeout=connect_timeout,
                                   read_timeout=read_timeout)
        stream.what = what
        stream.url = url
        if stream._far_end is None:
            stream.tunnelled_to(host, port)
        if tls:
            await stream.start_tls(server_hostname or host, ssl_context)
        return stream


    async def begin_tcp(
        self,
        host: str,
        port: int,
        *,
        url: URL,
        connect_timeout: float | None = 30.0,
        read_timeout: float | None = 60.0,
        what: str = "the connection",
    ) -> Connecting:
        """A plain TCP connection to the address ``host`` begun, its handshake not
        waited for (:meth:`Connecting.established` does). A host name, or a connection
        through a tunnel, is made here whole, as by :meth:`connect_tcp`."""
        if self.tunnel is not None or _literal_address(host, port) is None:
            return Connecting(await self.connect_tcp(
                host, port, url=url, connect_timeout=connect_timeout,
                read_timeout=read_timeout, what=what))
        request = current_timeout()
        if request is not None:  # the request's own limits (Resolver.open(timeout=...))
            connect_timeout, read_timeout = request.connect, request.read
        try:
            raw = _begin_raw_tcp(host, port, self.family)
        except OSError as exc:
            raise _connect_error(exc, host, port, url, connect_timeout) from exc
        deadline = None if connect_timeout is None else (
            raw._backend.current_time() + connect_timeout)
        return Connecting(None, raw=raw, deadline=deadline, host=host, port=port, url=url,
                          connect_timeout=connect_timeout, read_timeout=read_timeout,
                          what=what)


#: The dialer of handlers that connect directly.
DIRECT = Dialer()


def _plain_hint(url: URL) -> str | None:
    """What to try when a URL of a scheme in TLS from the first byte met a server that
    does not speak it: the scheme's plain name (its descriptor's ``plain_names``)."""
    spec = spec_for(url.scheme)
    plain = spec.plain_names.get(url.scheme) if spec is not None else None
    if plain is None:
        return None
    return f"An {url.scheme}:// URL needs a TLS port; try {plain}:// for a plain one."


def _tls_error(exc: BaseException, shown: str, url: URL) -> AnyURLError:
    kind = map_error(CONNECT_ERRORS, exc)
    if kind is TLSCertificateError:
        return TLSCertificateError(
            f"the certificate of {shown} for {url.masked()} was not accepted: "
            f"{_reason(exc)}", url=url,
            hint="Check the host name and the date; a private CA needs its certificate.")
    if isinstance(exc, anyio.EndOfStream | anyio.BrokenResourceError):
        return TLSHandshakeFailed(
            f"TLS handshake with {shown} for {url.masked()} failed: the server closed the "
            "connection (does it speak TLS on that port?)", url=url,
            hint=_plain_hint(url))
    return TLSHandshakeFailed(
        f"TLS handshake with {shown} for {url.masked()} failed: {_reason(exc)}", url=url,
        hint="Does the server speak TLS on that port?")


def _is_resolution_error(exc: OSError) -> bool:
    # anyio wraps several per-address failures in one OSError; a failed lookup shows
    # as gaierror somewhere in the chain or in the message.
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, socket.gaierror):
            return True
        cause = cause.__cause__ or cause.__context__
    text = str(exc)
    return "Name or service not known" in text or "nodename nor servname" in text


def _tune(stream: anyio.abc.ByteStream) -> None:
    sock: socket.socket | None
    if isinstance(stream, _RawSocketStream):
        sock = stream._sock  # without building the stream's attribute table
    else:
        sock = stream.extra(anyio.abc.SocketAttribute.raw_socket, None)
    if sock is None:
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass


class Listener:
    """A listening socket for a peer to connect back to (FTP active mode)."""

    def __init__(
        self,
        listener: anyio.abc.SocketListener,
        *,
        url: URL,
        read_timeout: float | None,
    ):
        self._listener = listener
        self.url = url
        self.read_timeout = read_timeout

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) the listener is bound to, for an FTP PORT/EPRT."""
        addr = self._listener.extra(anyio.abc.SocketAttribute.local_address)
        return (str(addr[0]), int(addr[1]))

    async def accept(self, timeout: float | None, what: str = "the data connection") -> Stream:
        """The first connection to arrive, within ``timeout`` seconds (TransferTimeout after)."""
        try:
            with anyio.fail_after(timeout):
                sock = await self._listener.accept()
        except TimeoutError:
            raise TransferTimeout(
                f"the server did not connect back for {self.url.masked()} within "
                f"{timeout:g} seconds",
                url=self.url,
                hint="A firewall may block active mode; try passive mode.",
            ) from None
        _tune(sock)
        return Stream(sock, url=self.url, read_timeout=self.read_timeout, what=what)

    async def aclose(self) -> None:
        await self._listener.aclose()


@asynccontextmanager
async def open_listener(
    local_host: str, *, url: URL, read_timeout: float | None
) -> AsyncIterator[Listener]:
    """Listen on an ephemeral port of ``local_host`` for one incoming connection."""
    try:
        multi = await anyio.create_tcp_listener(local_host=local_host, local_port=0)
        listener = multi.listeners[0]
    except OSError as exc:
        raise ConnectFailed(
            f"could not listen on {local_host} for {url.masked()}: {_reason(exc)}", url=url
        ) from exc
    assert isinstance(listener, anyio.abc.SocketListener)
    wrapped = Listener(listener, url=url, read_timeout=read_timeout)
    try:
        yield wrapped
    finally:
        with anyio.CancelScope(shield=True):
            await wrapped.aclose()


# -- UDP ----------------------------------------------------------------------------------
#
# Datagram protocols (Prospero's ARDP) need no stream: one unconnected UDP socket talks to
# one peer host. It is unconnected on purpose: a Prospero server may answer from another
# port than the one asked (191 for 1525), so replies are accepted from any port of the
# peer's address and paired by the protocol (ARDP connection ids), not by the kernel.


class Datagrams:
    """A UDP socket talking to one peer: ``send`` to it, ``receive`` from its address.

    ``receive`` returns ``None`` when ``timeout`` passes without a datagram: for a
    datagram protocol silence is an input (time to retransmit), not an error.
    Datagrams from other hosts are dropped. Errors name the URL, as for TCP.
    """

    def __init__(
        self,
        sock: anyio.abc.UDPSocket,
        remote: tuple[str, int],
        *,
        url: URL,
        what: str,
    ):
        self._sock = sock
        self.remote_address = remote
        self._accepted = {remote[0]}
        self.url = url
        self.what = what

    @property
    def local_address(self) -> tuple[str, int]:
        """(host, port) of our UDP socket."""
        addr = self._sock.extra(anyio.abc.SocketAttribute.local_address)
        return (str(addr[0]), int(addr[1]))

    def retarget(self, host: str, port: int) -> None:
        """Send from now on to ``host:port`` (an IP address), and accept its replies."""
        self.remote_address = (host, port)
        self._accepted.add(host)

    async def send(self, data: bytes) -> None:
        try:
            await self._sock.sendto(data, *self.remote_address)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise ConnectFailed(
                f"could not send to {self.what} at {self.remote_address[0]}:"
                f"{self.remote_address[1]} for {self.url.masked()}: {_reason(exc)}",
                url=self.url,
            ) from exc

    async def receive(self, timeout: float | None) -> tuple[bytes, tuple[str, int]] | None:
        """The next datagram from the peer's address and its source, or None on timeout."""
        with anyio.move_on_after(timeout):
            while True:
                try:
                    data, (host, port) = await self._sock.receive()
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
                    raise ConnectionLost(
                        f"receiving from {self.what} of {self.url.masked()} failed: "
                        f"{_reason(exc)}",
                        url=self.url,
                    ) from exc
                if str(host) in self._accepted:
                    return data, (str(host), int(port))
        return None

    async def aclose(self) -> None:
        try:
            await self._sock.aclose()
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass

    async def __aenter__(self) -> Datagrams:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with anyio.CancelScope(shield=True):
            await self.aclose()


async def open_udp(
    host: str,
    port: int,
    *,
    url: URL,
    connect_timeout: float | None = 30.0,
    what: str = "the server",
) -> Datagrams:
    """Resolve ``host`` and open an unconnected UDP socket for talking to ``host:port``.

    There is no handshake, so a server that is not there shows only as silence: the
    protocol's retransmission schedule decides when to give up.
    """
    try:
        with anyio.fail_after(connect_timeout):
            infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_DGRAM)
    except TimeoutError:
        raise TransferTimeout(
            f"resolving {host!r} for {url.masked()} timed out", url=url
        ) from None
    except (socket.gaierror, OSError) as exc:
        raise HostNotResolved(
            f"could not resolve host {host!r} for {url.masked()}: {_reason(exc)}",
            url=url,
            hint="Check the spelling of the host name.",
        ) from exc
    if not infos:
        raise HostNotResolved(f"host {host!r} of {url.masked()} has no address", url=url)
    family, _, _, _, sockaddr = infos[0]
    inet6 = family == socket.AF_INET6
    try:
        sock = await anyio.create_udp_socket(
            family=socket.AF_INET6 if inet6 else socket.AF_INET,
            local_host="::" if inet6 else "0.0.0.0",
        )
    except OSError as exc:
        raise ConnectFailed(
            f"could not open a UDP socket for {url.masked()}: {_reason(exc)}", url=url
        ) from exc
    return Datagrams(sock, (str(sockaddr[0]), int(sockaddr[1])), url=url, what=what)
