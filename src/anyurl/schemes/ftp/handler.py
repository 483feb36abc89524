"""The ftp scheme (RFC 1738 section 3.2): what an ftp: URL means, run over the other modules.

The dialogue itself lives in the sans-I/O core :mod:`anyurl.protocols.ftp`, which also
builds the URL's command list; :class:`FTPHandler` walks that list step by step over a
logged-in :class:`~.control.Control` (taken from the :mod:`.pool` or a fresh login),
opens :mod:`.data` connections and reads :mod:`.listings`. For
``ftp://user@host/a/b/name;type=i`` it sends, in order::

    USER user / PASS ... / ACCT ...     as the server asks (331, 332); anonymous without a user
    PWD                                 remember the login directory, for connection reuse
    CWD a / CWD b                       one per <cwd> segment, decoded, even an empty one
    TYPE I / SIZE name                  SIZE only in image type: it checks completeness
    EPSV (PASV on 5xx) or EPRT/PORT     a fresh data connection per transfer
    REST n                              only when resuming an image transfer
    RETR name                           or NLST [name] for a listing (MLSD [name] with
                                        FTPOptions(listing="mlsd"))

``plan()`` prints that same list without I/O, so ``--plan`` and ``open()`` cannot drift.

What stays here is what the replies mean for the URL: a refused RETR is
:class:`~anyurl.errors.RemoteFileNotFound` (78), unless the name had no typecode and
CWD into it works (Lynx's guess: a directory, listed); a transfer that delivers fewer
bytes than SIZE announced is :class:`~anyurl.errors.PartialTransfer` (18); a resume past
the end is :class:`~anyurl.errors.ResumeFailed`, one at the end an empty resource;
``-r`` is REST to the first byte and the transfer cut after the last; ``-I`` is SIZE
and MDTM. A file SIZE says is small (:data:`WHOLE_AT_MOST`, image type) is read whole,
226 included, before ``open`` returns (:meth:`.data.Transfer.whole`); others stream.
A pooled connection that turns out dead (its first reply is EOF or 421) or cannot CWD
back to its login directory is replaced by a fresh login and the URL replayed, once.
"""

from __future__ import annotations

import mimetypes
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable

import anyio

from anyurl.config import Config
from anyurl.errors import (
    AnyURLError,
    ConnectionLost,
    RemoteAccessDenied,
    RemoteFileNotFound,
    ResumeFailed,
    URLError,
)
from anyurl.links import Link
from anyurl.net.transport import DIRECT, Dialer, Stream
from anyurl.protocols.common import LocalProtocolError
from anyurl.protocols.ftp import (
    ASCIIDecoder,
    Command,
    Reply,
    Retrieval,
    State,
    retrieval_commands,
    retrieval_for,
)
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler
from anyurl.schemes.ftp.control import (
    Control,
    Login,
    PoolKey,
    Stale,
    connect,
    ftp_options,
    key_for,
    login_for,
    refused,
    tls_mode,
)
from anyurl.schemes.ftp.data import DataChannel, Transfer, open_data
from anyurl.schemes.ftp.listings import list_directory, listing_links, listing_verbs
from anyurl.schemes.ftp.options import FTPOptions
from anyurl.schemes.ftp.pool import ControlPool
from anyurl.schemes.ftp.view import FTPPath
from anyurl.url import URL

__all__ = ["WHOLE_AT_MOST", "FTPHandler"]

#: A file SIZE says is at most this long (in image type) is read whole before
#: ``open`` returns (:meth:`.data.Transfer.whole`): one read, no streaming per file.
WHOLE_AT_MOST = 64 * 1024


async def _limited(chunks: AsyncIterator[bytes], count: int | None) -> AsyncIterator[bytes]:
    """``chunks`` cut after ``count`` bytes (all of them for None); the rest is closed."""
    if count is None:
        async for chunk in chunks:
            yield chunk
        return
    left = count
    try:
        while left > 0:
            try:
                chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            if len(chunk) >= left:
                yield chunk[:left]
                return
            left -= len(chunk)
            yield chunk
    finally:
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()


def _content_type(name: str) -> str | None:
    """The type a file name's extension suggests; a name without one (``f00042``)
    suggests none, without the look-up (about 8 us a small file)."""
    return mimetypes.guess_type(name)[0] if "." in name else None


def _listed_size(url: URL, retrieval: Retrieval, options: FetchOptions) -> int | None:
    """The size the listing that named ``url`` gave (``FTPOptions.listed_size``, a
    mirror's), for a file fetched in image type: it stands for ``SIZE``'s answer."""
    lookup = ftp_options(options).listed_size
    if lookup is None or retrieval.mode != "I" or ftp_options(options).head:
        return None
    return lookup(url)


def _empty() -> AsyncIterator[bytes]:
    async def gen() -> AsyncIterator[bytes]:
        return
        yield b""  # pragma: no cover

    return gen()


class FTPHandler(SchemeHandler):
    """``ftp:`` URLs: RFC 1738 3.2 exactly, with a pool of logged-in control connections."""

    schemes = ("ftp", "ftps")
    options_type = FTPOptions
    #: FTP cannot pipeline, but a host's files handed over as a batch (:meth:`open_batch`:
    #: on logged-in, positioned control connections) skip the downloader's task, gate
    #: and options per file: 2,000 files of 1 KiB took about 30 % less CPU than one job
    #: at a time (``bench/README.md``).
    batches = True
    #: A batch opens a round of files on ``FetchOptions.connections`` logins at once.
    batch_connections = True

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
    ) -> None:
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        #: Idle logged-in control connections, by login.
        self.pool = ControlPool(config)
        self._prompted: dict[PoolKey, str] = {}
        #: Counters for tests and the benchmark: logins made and connections reused.
        self.stats = {"connections": 0, "reused": 0}

    async def open_batch(
        self, urls: Iterable[URL], options: FetchOptions
    ) -> AsyncGenerator[tuple[URL, Resource | AnyURLError], None]:
        """Open a host's files over up to ``options.connections`` control connections at
        once (the per-host slots the caller lends the batch: the downloader's spare ones).

        FTP has one command in flight per control connection, and each file costs the
        server's round trips (EPSV, RETR's 150, the 226). So the URLs are taken a round
        of ``connections`` at a time, opened side by side on as many logged-in connections
        (the pool's, or new ones), and handed over in the order given: the caller reads
        (or closes) each before asking for the next, as :meth:`SchemeHandler.open_batch`
        says. A small file is held whole (:meth:`open` reads it), a big one streams on
        its own connection until the caller has read it; a round never outlives the
        call that opened it (no task spans a ``yield``). One connection (the default)
        opens one file after another.
        """
        lanes = max(1, options.connections)
        todo = list(urls)
        ready: deque[tuple[URL, Resource | AnyURLError]] = deque()
        taken = 0
        try:
            while taken < len(todo) or ready:
                if not ready:
                    round_ = todo[taken:taken + lanes]
                    taken += len(round_)
                    ready.extend(zip(round_, await self._open_round(round_, options),
                                     strict=True))
                url, outcome = ready.popleft()
                try:
                    yield url, outcome
                finally:
                    if isinstance(outcome, Resource):
                        await outcome.aclose()  # asking for the next closes this one
        finally:
            with anyio.CancelScope(shield=True):
                for _, outcome in ready:  # opened ahead, never handed over
                    if isinstance(outcome, Resource):
                        await outcome.aclose()

    async def _open_round(self, urls: list[URL], options: FetchOptions,
                          ) -> list[Resource | AnyURLError]:
        """:meth:`open` of each of ``urls`` side by side; each its resource or its error."""
        outcomes: list[Resource | AnyURLError | None] = [None] * len(urls)

        async def one(k: int) -> None:
            try:  # each file's dialogue is its own, whatever opens beside it
                outcomes[k] = await self.open(urls[k], options.for_url(urls[k]))
            except AnyURLError as exc:
                outcomes[k] = exc

        if len(urls) == 1:
            await one(0)
        else:
            try:
                async with anyio.create_task_group() as tg:
                    for k in range(len(urls)):
                        tg.start_soon(one, k)
            except BaseException:
                with anyio.CancelScope(shield=True):  # cancelled: what was opened closes
                    for outcome in outcomes:
                        if isinstance(outcome, Resource):
                            await outcome.aclose()
                raise
        return [outcome for outcome in outcomes if outcome is not None]

    def _passive(self, options: FetchOptions) -> bool:
        chosen = ftp_options(options).passive
        return self.config.ftp_passive if chosen is None else chosen

    # -- what the URL asks for ---------------------------------------------------------

    def _retrieval(self, url: URL, options: FetchOptions) -> Retrieval:
        parts = url.parts
        if not isinstance(parts, FTPPath):
            raise URLError(f"{url.masked()} is not an ftp URL", url=url)
        for value in (url.user, url.password):
            if value is not None and ("\r" in value or "\n" in value):
                raise URLError(
                    f"{url.masked()} has a CR or LF in its user or password, which would end "
                    "the USER or PASS command early",
                    url=url,
                )
        try:
            return retrieval_for(parts, ftp_options(options).ascii)
        except LocalProtocolError as exc:
            raise URLError(f"{url.masked()}: {exc}", url=url) from exc

    def _login(self, url: URL) -> Login:
        return login_for(url, self.config, self.warn)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        retrieval = self._retrieval(url, options)
        login = self._login(url)
        passive = self._passive(options)
        offset = options.offset if retrieval.mode == "I" else 0
        data_command = Command("EPSV") if passive else Command("EPRT", "|1|<address>|<port>|")
        tls = tls_mode(url, options)
        commands = [Command("AUTH", "TLS")] if tls in ("try", "require") else []
        commands += [Command("USER", login.user), Command("PASS", "")]
        if login.account is not None:
            commands.append(Command("ACCT", login.account))
        if tls:
            commands += [Command("PBSZ", "0"), Command("PROT", "P")]
        commands.append(Command("PWD"))
        commands += retrieval_commands(retrieval, offset=offset, data_command=data_command,
                                       listing=listing_verbs(options)[0])
        commands.append(Command("QUIT"))
        # PASS is listed although a server may not ask for it (230 right after USER).
        return [command.display() for command in commands]

    def is_listing(self, info: ResourceInfo) -> bool:
        """A directory's listing (MLSD, LIST, NLST) is one."""
        return info.kind == "directory"

    def links(self, info: ResourceInfo, body: bytes) -> list[Link]:
        """The entries of a directory listing, as ftp: URLs of that directory
        (:func:`~.listings.listing_links`)."""
        return listing_links(info, body)

    # -- the pool --------------------------------------------------------------------------

    async def _acquire(
        self, url: URL, options: FetchOptions, *, fresh: bool = False
    ) -> tuple[Control, bool]:
        """A pooled control connection of ``url``'s key, else a new login (who logs in,
        netrc included, is decided only then: a pooled URL needs no look-up)."""
        if not fresh:
            chosen = await self.pool.take(key_for(url, tls_mode(url, options)), url,
                                          options.trace)
            if chosen is not None:
                self.stats["reused"] += 1
                return chosen, True
        return await self._connect(url, self._login(url), options), False

    async def _release(self, control: Control) -> None:
        await self.pool.release(control)

    async def aclose(self) -> None:
        await self.pool.aclose()

    async def _connect(self, url: URL, login: Login, options: FetchOptions) -> Control:
        control = await connect(self.dialer, self.config, url, options)
        self.stats["connections"] += 1
        try:
            await control.log_in(login, options, self._prompted)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await control.goodbye()
            raise
        return control

    async def _open_data(self, control: Control, url: URL, options: FetchOptions) -> DataChannel:
        return await open_data(control, url, passive=self._passive(options),
                               dialer=self.dialer, config=self.config)

    async def _list(
        self, control: Control, url: URL, name: str, options: FetchOptions,
        opened: DataChannel | None = None,
    ) -> Resource:
        return await list_directory(
            control, url, name, options, opened=opened,
            open_data=lambda: self._open_data(control, url, options),
            connect_timeout=self.config.connect_timeout, release=self._release)

    # -- one URL ---------------------------------------------------------------------------

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        retrieval = self._retrieval(url, options)
        offset = options.offset
        brange = options.byte_range
        if brange is not None and retrieval.mode != "I":
            self.warn(f"not fetching a range of {url.masked()}: byte offsets only hold in "
                      "image type (RFC 3659 5.1); fetching it whole")
            brange = None
        if brange is not None:
            offset += brange[0]  # REST to the range's first byte (and what a retry has)
        if offset and retrieval.mode != "I":
            self.warn(
                f"not resuming {url.masked()}: byte offsets only hold in image type "
                "(RFC 3659 5.1); fetching it whole"
            )
            offset = 0
        resource = await self._open_at(url, retrieval, offset, options)
        if brange is None or resource.info.kind != "file":
            return resource
        return await self._ranged(resource, url, offset, brange, options)

    async def _ranged(self, resource: Resource, url: URL, offset: int,
                      brange: tuple[int, int | None], options: FetchOptions) -> Resource:
        """``-r``: REST to the first byte, and the transfer cut after the last."""
        info = resource.info
        if info.offset != offset:  # the server refused REST: the data starts at byte 0
            await resource.aclose()
            raise ResumeFailed(
                f"the ftp server of {url.masked()} refused REST {offset}: it cannot send "
                "a range", url=url, hint="Fetch the whole file without -r.")
        last = brange[1]
        count = None if last is None else last - offset + 1
        if count is not None and info.size is not None:
            count = min(count, info.size)
        size = count if count is not None else info.size
        ranged = ResourceInfo(
            url=info.url, size=size,
            total_size=None if size is None else options.offset + size,
            offset=options.offset, content_type=info.content_type,
            filename=info.filename, kind=info.kind, extra=info.extra.copy())
        chunks = resource.__aiter__()
        return Resource(ranged, _limited(chunks, count), on_close=resource.aclose)

    async def _open_at(self, url: URL, retrieval: Retrieval, offset: int,
                       options: FetchOptions) -> Resource:
        for attempt in (1, 2):
            control, reused = await self._acquire(url, options, fresh=attempt == 2)
            try:
                with control.reader.step():  # on trio: one cancel scope for the file
                    return await self._retrieve(control, url, retrieval, offset, options,
                                                reused)
            except Stale as exc:
                with anyio.CancelScope(shield=True):
                    await control.goodbye()
                control.note(f"cannot return to the login directory ({exc}); logging in again")
            except ConnectionLost:
                # A pooled connection may have died while idle: its first reply tells.
                # Then replay the URL on a fresh login, once.
                stale = reused and control.replies_this_use == 0 and attempt == 1
                with anyio.CancelScope(shield=True):
                    await control.goodbye()
                if not stale:
                    raise
                control.note("the pooled connection was dead; logging in again")
            except (RemoteAccessDenied, RemoteFileNotFound, ResumeFailed):
                # The server said no, and the dialogue is intact: keep the login.
                with anyio.CancelScope(shield=True):
                    await self._release(control)
                raise
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await control.goodbye(abort=control.core.state is not State.IDLE)
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def _head(self, control: Control, url: URL, retrieval: Retrieval,
                    size: int | None) -> Resource:
        """``-I``: SIZE (already asked) and MDTM, as curl prints them for ftp."""
        modified: str | None = None
        command = Command("MDTM", retrieval.name)
        reply = await control.command(command)
        stamp = reply.line[4:].strip() if reply.code == 213 else ""
        try:
            when = time.strptime(stamp[:14], "%Y%m%d%H%M%S")
            modified = time.strftime("%a, %d %b %Y %H:%M:%S GMT", when)
        except ValueError:
            pass  # no MDTM (502), or an answer that is not a time: not printed
        await self._release(control)
        lines = []
        if modified is not None:
            lines.append(f"Last-Modified: {modified}\r\n")
        if size is not None:
            lines.append(f"Content-Length: {size}\r\n")
        lines.append("Accept-ranges: bytes\r\n")
        data = "".join(lines).encode("ascii")
        info = ResourceInfo(url=url, size=len(data), kind="headers", content_type="text/plain",
                            filename=retrieval.name or None,
                            extra={"remote_size": size, "modified": modified})
        return Resource(info, iterate_bytes(data))

    async def _retrieve(
        self,
        control: Control,
        url: URL,
        retrieval: Retrieval,
        offset: int,
        options: FetchOptions,
        reused: bool,
    ) -> Resource:
        skip = await control.position(retrieval.cwd, reused)
        # The core's command list is the dialogue (and --plan's): walk it in order.
        data_marker = Command("EPSV")
        size = _listed_size(url, retrieval, options)  # a listing's: no SIZE asked
        if offset and size is not None:  # checked as SIZE's answer would be
            complete = self._resume_check(url, offset, size, retrieval, control)
            if complete is not None:
                return complete
        commands = retrieval_commands(retrieval, offset=offset, data_command=data_marker,
                                      ask_size=control.size is not False and size is None,
                                      listing=listing_verbs(options, control)[0])
        channel: DataChannel | None = None
        data: Stream | None = None
        final: Reply | None = None
        try:
            for command in commands:
                verb = command.verb
                if command is data_marker:
                    if ftp_options(options).head and retrieval.mode != "list":
                        return await self._head(control, url, retrieval, size)
                    channel = await self._open_data(control, url, options)
                elif verb == "CWD":
                    if skip:
                        skip -= 1
                        continue
                    await control.change_directory(command)
                elif verb in ("NLST", "MLSD", "LIST"):
                    opened, channel = channel, None
                    return await self._list(control, url, retrieval.name, options, opened)
                elif verb == "TYPE":
                    await control.set_type(command)
                elif verb == "SIZE":
                    size = await control.ask_size(command)
                    complete = self._resume_check(url, offset, size, retrieval, control)
                    if complete is not None:
                        return complete
                elif verb == "REST":
                    reply = await control.command(command)
                    if reply.code != 350:
                        self.warn(
                            f"ftp server refused REST {offset} for {url.masked()} "
                            f"({reply.line}); fetching it whole"
                        )
                        offset = 0
                elif verb == "RETR":
                    assert channel is not None
                    reply = await control.command(command, meanwhile=channel.ready)
                    if reply.category != 1:
                        listing = await self._retr_refused(control, url, retrieval, channel,
                                                           command, reply, options)
                        if listing is not None:
                            return listing
                        final = reply
                    data = await channel.connected(self.config.connect_timeout)
                else:  # pragma: no cover - retrieval_commands yields nothing else
                    raise AssertionError(f"no step for {verb}")
        except BaseException:
            if channel is not None and data is None:
                await channel.aclose()
            raise
        assert data is not None
        return await self._body(control, url, retrieval, offset, size, data, final)

    async def _body(self, control: Control, url: URL, retrieval: Retrieval, offset: int,
                    size: int | None, data: Stream, final: Reply | None) -> Resource:
        """The file's data connection as its resource: read whole when small (image
        type), else streamed (the raw body offered to :mod:`anyurl.net.bulk`)."""
        info = ResourceInfo(
            url=url,
            size=None if size is None else size - offset,
            total_size=size,
            offset=offset,
            content_type=_content_type(retrieval.name),
            filename=retrieval.name or None,
            kind="file",
            extra={"type": retrieval.mode},
        )
        decoder = ASCIIDecoder() if retrieval.mode == "A" else None
        transfer = Transfer(self._release, control, data, decoder, url, final, info)
        if decoder is None and info.size is not None and info.size <= WHOLE_AT_MOST:
            try:
                whole = await transfer.whole(info, WHOLE_AT_MOST)
            except BaseException:
                await transfer.close()  # ABOR and QUIT, as for a body given up
                raise
            if whole is not None:
                return whole
        # Image type on plain TCP may go to anyurl.net.bulk as the raw body.
        return transfer.resource(info, bulk=True)

    def _resume_check(self, url: URL, offset: int, size: int | None, retrieval: Retrieval,
                      control: Control) -> Resource | None:
        """After SIZE: refuse a resume past the end; an empty resource if already complete."""
        if not offset or size is None:
            return None
        if offset > size:
            raise ResumeFailed(
                f"cannot resume {url.masked()} at byte {offset}: the file has {size} bytes",
                url=url,
                hint="The remote file shrank or changed; download it again from the start.",
            )
        if offset < size:
            return None
        control.note("the file is already complete; nothing to transfer")
        info = ResourceInfo(
            url=url, size=0, total_size=size, offset=offset,
            content_type=_content_type(retrieval.name),
            filename=retrieval.name or None,
        )
        return Resource(info, _empty(), on_close=lambda: self._release(control))

    async def _retr_refused(
        self, control: Control, url: URL, retrieval: Retrieval, channel: DataChannel,
        command: Command, reply: Reply, options: FetchOptions,
    ) -> Resource | None:
        """RETR answered without a 1yz: a listing (Lynx's guess), a transfer already
        over (2yz: the data are waiting on the data connection), or the refusal."""
        if reply.category == 2:
            control.note(f"RETR answered {reply.line} with no preliminary reply: the data "
                         "were sent at once")
            return None
        await channel.aclose()
        if reply.code in (450, 550) and retrieval.guessed:
            # Lynx's heuristic: a name that cannot be retrieved may be a directory.
            cwd = Command("CWD", retrieval.name)
            again = await control.command(cwd)
            if again.category == 2:
                control.cwd = None  # in a directory no URL segment names: unknown
                return await self._list(control, url, "", options)
        raise refused(
            reply, command, url, RemoteFileNotFound,
            hint="Check the file name; names are case-sensitive on most servers.",
        )
