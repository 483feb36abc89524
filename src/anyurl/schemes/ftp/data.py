"""FTP data connections: opening one per transfer, and streaming it into a resource.

:func:`open_data` asks for a fresh data connection on a logged-in :class:`~.control.Control`:
EPSV, else PASV (passive), or EPRT, else PORT (active, on a listener of our own). What a
server does not implement (a 5yz) is not asked again on that connection.

Passive mode connects to the *control connection's peer* whatever address a 227 reply
names (as curl and ftplib do): that defeats FTP bounce and broken NAT answers alike. The
port a server names obeys section 6 like a URL's: a well-known port of another protocol
is refused unless ``Config.allowed_ports`` allows it.

A :class:`Transfer` streams the data connection (TYPE A decoded to local line ends, TYPE
I untouched, or as the raw body :mod:`anyurl.net.bulk` moves in the kernel) and then settles
the control connection: a transfer whose final reply is not 2yz is
:class:`~anyurl.errors.PartialTransfer` (18), but for a 522 on a private data connection
(RFC 4217: the server failed its TLS), which is
:class:`~anyurl.errors.TLSHandshakeFailed` (35) as a failed handshake on our side is.
A transfer that completed gives its control connection back for reuse; one cut short
sends ABOR and QUIT. A small image-type body is read whole instead
(:meth:`Transfer.whole`), final reply included, and handed on as bytes in memory.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack

import anyio

from anyurl.config import Config
from anyurl.errors import (
    ConnectFailed,
    PartialTransfer,
    PolicyRefused,
    ProtocolError,
    TLSHandshakeFailed,
)
from anyurl.net.bulk import RawBody
from anyurl.net.ports import BAD_PORTS
from anyurl.net.transport import (
    DEFAULT_RECEIVE_SIZE,
    Connecting,
    Dialer,
    Listener,
    Stream,
    open_listener,
)
from anyurl.protocols.common import RemoteProtocolError
from anyurl.protocols.ftp import (
    ASCIIDecoder,
    Command,
    Reply,
    format_eprt,
    format_port,
    parse_227,
    parse_229,
)
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.ftp.control import DATA_TLS_HINT, Control, refused, weird
from anyurl.url import URL

__all__ = ["DataChannel", "Transfer", "open_data"]


class DataChannel:
    """A data connection: being connected (passive) or still to be accepted (active).

    A passive connection is begun right after the 227/229 reply and not waited for:
    the command that uses it (RETR, NLST) is sent while the handshake is in flight,
    and :meth:`ready`, called between that command and its reply, finishes it (a
    refused connection is an error before we wait for a reply the server would only
    give after its own timeout). That is one round trip less per file than
    connecting first.
    """

    def __init__(self, connecting: Connecting | None, listener: Listener | None,
                 stack: AsyncExitStack | None,
                 protect: Callable[[Stream], Awaitable[None]] | None = None):
        self._connecting = connecting
        self._stream: Stream | None = None
        self._listener = listener
        self._stack = stack
        #: The TLS handshake a private data connection needs (``PROT P``), run once
        #: the server has answered the command with 1yz: before that it may not
        #: have accepted the connection (a refused RETR), and a handshake would hang.
        self._protect = protect

    async def ready(self) -> None:
        """Finish a passive connection's handshake (nothing to do for an active one,
        whose server connects only after the command's reply)."""
        if self._connecting is not None and self._stream is None:
            self._stream = await self._connecting.established()

    async def connected(self, timeout: float | None) -> Stream:
        """The data connection's stream, accepting the server's connection if active,
        in TLS when the data are private."""
        if self._stream is None:
            if self._connecting is not None:
                self._stream = await self._connecting.established()
            else:
                assert self._listener is not None
                self._stream = await self._listener.accept(timeout)
                if self._stack is not None:
                    await self._stack.aclose()  # the listener: one connection is all
                self._listener = None
        if self._protect is not None:
            protect, self._protect = self._protect, None
            await protect(self._stream)
        return self._stream

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True):
            if self._stream is not None:
                await self._stream.aclose()
            elif self._connecting is not None:
                await self._connecting.aclose()
            if self._stack is not None:
                await self._stack.aclose()


class Transfer:
    """Streams one data connection into a Resource and settles the control connection.

    ``release`` takes the control connection back when the transfer completed (the
    pool's); a transfer not completed ends the control connection with ABOR and QUIT.
    """

    def __init__(
        self,
        release: Callable[[Control], Awaitable[None]],
        control: Control,
        data: Stream,
        decoder: ASCIIDecoder | None,
        url: URL,
        final: Reply | None = None,
        info: ResourceInfo | None = None,
    ):
        self.release = release
        #: The transfer's final reply when it came before the data (a 2yz to RETR).
        self.final = final
        self.control = control
        self.data = data
        self.decoder = decoder
        self.url = url
        #: The resource's info, whose ``reply_code`` the final reply sets (``-w``).
        self.info = info
        self.received = 0
        self.completed = False
        #: Bytes :meth:`whole` read and did not keep, for :meth:`chunks` to yield first.
        self._read: list[bytes] | None = None
        self._ended = False  # ... and the data connection ended after them

    async def whole(self, info: ResourceInfo, most: int) -> Resource | None:
        """A small image-type body read whole: the data connection to its end, then
        the final reply (:meth:`settle`), the control connection given back, and the
        bytes as :meth:`Resource.of_bytes <anyurl.resource.Resource.of_bytes>` (which
        the downloader writes without an iterator or a close of its own).

        Why: SIZE said the file is at most ``most`` bytes; streaming it cost two async
        generators, a raw-body offer, a shielded close and a task step per file, for
        bytes that came in one read (issue 21). None when the body is not what SIZE
        said (more than ``most``, or not ``info.size`` bytes): what was read is kept and
        :meth:`chunks` yields it first, so the resource streams and fails as before.
        Called before the body was read and without a decoder."""
        assert self.decoder is None and self._read is None and info.size is not None
        receive = self.data.receive
        parts = []
        got = 0
        while chunk := await receive(DEFAULT_RECEIVE_SIZE):
            parts.append(chunk)
            got += len(chunk)
            if got > most:
                self._read = parts
                return None
        self._read = parts
        if got != info.size:
            self._ended = True
            return None
        await self.settle(got)
        await self.release(self.control)
        self._read = None
        body = parts[0] if len(parts) == 1 else b"".join(parts)
        return Resource.of_bytes(info, body)

    async def listing(self, most: int) -> bytes | None:
        """A listing read whole (decoded) and its final reply read, the control
        connection still the caller's (to list again, or to give back); None when it
        is longer than ``most`` (what was read is kept, decoded, and :meth:`chunks`
        yields it first, so the listing streams as any other).

        Why: a ``LIST`` listing must be read before it is passed on, to know whether
        its format can be read at all (else ``NLST`` is asked on the same connection)."""
        assert self._read is None
        decoder = self.decoder
        receive = self.data.receive
        parts = []
        got = 0
        while chunk := await receive(DEFAULT_RECEIVE_SIZE):
            got += len(chunk)
            parts.append(decoder.feed(chunk) if decoder is not None else chunk)
            if got > most:
                self._read = parts
                return None
        if decoder is not None:
            parts.append(decoder.flush())
        await self.settle(got)
        return b"".join(parts)

    async def chunks(self) -> AsyncIterator[bytes]:
        """The data connection's bytes (decoded in TYPE A), then :meth:`settle`;
        bytes :meth:`whole` read already come first."""
        receive = self.data.receive
        decoder = self.decoder
        size = DEFAULT_RECEIVE_SIZE
        if self._read is not None:
            read, self._read = self._read, None
            for chunk in read:
                self.received += len(chunk)
                yield chunk
            if self._ended:
                await self.settle(self.received)
                return
        if decoder is None:
            # Image type: hand the kernel's buffers on untouched, no per-byte work.
            while chunk := await receive(size):
                self.received += len(chunk)
                yield chunk
        else:
            while chunk := await receive(size):
                self.received += len(chunk)
                text = decoder.feed(chunk)
                if text:
                    yield text
            tail = decoder.flush()
            if tail:
                yield tail
        await self.settle(self.received)

    async def settle(self, received: int) -> None:
        """After the data connection's end: close it, and read the transfer's final
        reply (a 2yz, or the data was not all of it)."""
        self.received = received
        await self.data.aclose()
        reply = self.final or await self.control.read_reply()
        if reply.code == 522 and self.control.private_data:
            # The server failed the data connection's TLS (vsftpd: "522 SSL connection
            # failed"), whatever our side of the handshake saw: curl's 35, not 18.
            raise TLSHandshakeFailed(
                f"ftp server failed the TLS of the data connection for {self.url.masked()}"
                f" after {self.received} bytes: {reply.line}", url=self.url,
                hint=DATA_TLS_HINT)
        if reply.category != 2:
            raise PartialTransfer(
                f"ftp server ended the transfer of {self.url.masked()} after {self.received} "
                f"bytes with: {reply.line}",
                received=self.received,
                url=self.url,
                hint="Try again with resume (resume=True) to continue where it stopped.",
            )
        if self.info is not None:
            self.info.extra["reply_code"] = reply.code
        self.completed = True

    async def close(self) -> None:
        """Close the data connection; pool the control connection or end it (ABOR).

        A completed transfer closed its data connection in :meth:`settle`, and giving
        the control connection back to the pool does not wait (one that is not kept
        says goodbye shielded): no shielded scope per file for that."""
        if self.completed:
            await self.release(self.control)
            return
        with anyio.CancelScope(shield=True):
            await self.data.aclose()
            if self.completed:
                await self.release(self.control)
            else:
                await self.control.goodbye(abort=True)

    def resource(self, info: ResourceInfo, *, bulk: bool = False) -> Resource:
        """The transfer as a resource. With ``bulk``, image type on plain TCP also offers
        the data connection as a raw body: its bytes are the file's, to be moved by the
        kernel up to the server's close (:mod:`anyurl.net.bulk`); not after
        :meth:`whole` read some of them (they are the chunks' to give first)."""
        raw = None
        if (bulk and self.decoder is None and self._read is None
                and self.data.plain_socket is not None):
            raw = RawBody(self.data, b"", None, self.settle)
        return Resource(info, self.chunks(), on_close=self.close, raw=raw)


async def open_data(
    control: Control, url: URL, *, passive: bool, dialer: Dialer, config: Config
) -> DataChannel:
    """A data connection: EPSV, else PASV; or EPRT, else PORT in active mode; in TLS
    (the control connection's session resumed) when the data are private."""
    protect = control.protect if control.private_data else None
    if passive:
        host = control.stream.remote_address[0]
        port: int | None = None
        if control.epsv is not False:
            command = Command("EPSV")
            reply = await control.command(command)
            if reply.code == 229:
                port = _port_229(url, reply)
                control.epsv = True
            elif reply.category == 5:
                control.epsv = False  # fall back to PASV, now and on this connection
            else:
                raise refused(reply, command, url, ProtocolError)
        if port is None:
            command = Command("PASV")
            reply = await control.command(command)
            if reply.code != 227:
                raise refused(
                    reply, command, url, ConnectFailed,
                    hint="The server refuses passive mode; try active mode.",
                )
            named, port = _address_227(url, reply)
            if named != host:
                control.note(
                    f"ignoring the address {named} of the 227 reply; connecting to the "
                    f"control connection's peer {host}"
                )
        if port in BAD_PORTS and port not in config.allowed_ports:
            # Section 6 holds for the data port too: a server must not be able to
            # make us connect to its SMTP port any more than a URL can.
            raise PolicyRefused(
                f"refusing the ftp data connection of {url.masked()} to port {port}: "
                "the server named a port that belongs to another protocol",
                url=url, hint=f"If you trust this server, allow it with "
                f"Config(allowed_ports={{{port}}}).", remedy=("allow_port", str(port)))
        connecting = await dialer.begin_tcp(
            host,
            port,
            url=url,
            connect_timeout=config.connect_timeout,
            read_timeout=config.read_timeout,
            what="the ftp data connection",
        )
        return DataChannel(connecting, None, None, protect)
    stack = AsyncExitStack()  # the listener's, active mode only
    local = control.stream.local_address[0]
    try:
        listener = await stack.enter_async_context(
            open_listener(local, url=url, read_timeout=config.read_timeout)
        )
        lhost, lport = listener.address
        done = False
        if control.eprt is not False or ":" in lhost:
            command = Command("EPRT", format_eprt(lhost, lport))
            reply = await control.command(command)
            if reply.category == 2:
                done = control.eprt = True
            elif reply.category == 5 and ":" not in lhost:
                control.eprt = False
            else:
                raise refused(reply, command, url, ConnectFailed)
        if not done:
            command = Command("PORT", format_port(lhost, lport))
            reply = await control.command(command)
            if reply.category != 2:
                raise refused(
                    reply, command, url, ConnectFailed,
                    hint="The server refuses active mode; try passive mode.",
                )
    except BaseException:
        await stack.aclose()
        raise
    return DataChannel(None, listener, stack, protect)


def _port_229(url: URL, reply: Reply) -> int:
    try:
        return parse_229(reply)
    except RemoteProtocolError as exc:
        raise weird(url, exc) from exc


def _address_227(url: URL, reply: Reply) -> tuple[str, int]:
    try:
        return parse_227(reply)
    except RemoteProtocolError as exc:
        raise weird(url, exc) from exc
