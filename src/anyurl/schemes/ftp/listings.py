"""FTP directory listings: which command lists, reading one, and its entries as links.

A directory is listed with ``NLST [name]`` (``MLSD [name]`` first with
``FTPOptions(listing="mlsd")``, then ``LIST -a``, read for its facts as wget and curl
read it, then ``NLST`` for a format that cannot be read); a server that does not
implement a command (500/502) gets the next one, and one without MLSD is not asked
again on that connection. A fetched listing becomes ftp: URLs again in :func:`listing_links`, for
``links()`` and the mirror; the parsers themselves are the core's (``parse_nlst``,
``parse_mlsd``, ``parse_list`` of :mod:`anyurl.protocols.ftp`).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable

from anyurl.errors import RemoteFileNotFound
from anyurl.links import FILE, PAGE, Link, checked
from anyurl.net.transport import Stream
from anyurl.protocols.ftp import (
    LISTING_VERBS,
    ASCIIDecoder,
    Command,
    ListEntry,
    Reply,
    fact_size,
    fact_time,
    parse_mlsd,
    parse_nlst,
    read_list,
)
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.ftp.control import Control, ftp_options, refused
from anyurl.schemes.ftp.data import DataChannel, Transfer
from anyurl.schemes.ftp.view import FTPPath
from anyurl.url import URL, quote
from anyurl.url.charset import UCHAR_PLAIN, display

__all__ = ["list_directory", "listing_links", "listing_verbs"]

#: What an fsegment of RFC 1738 3.2.2 may hold unescaped; ``;``, ``/`` and ``?`` are
#: always escaped in a name (``;type=`` and a CWD step must not appear from one).
_FSEGMENT = UCHAR_PLAIN | frozenset(":@&=")


def listing_verbs(options: FetchOptions, control: Control | None = None) -> tuple[str, ...]:
    """The listing commands to try in order (``FTPOptions.listing``); MLSD is left
    out on a connection whose server already said it has none."""
    verbs = LISTING_VERBS[ftp_options(options).listing]
    if control is not None and control.mlsd is False:
        verbs = tuple(v for v in verbs if v != "MLSD")
    return verbs


#: A ``LIST`` listing read whole (to know that its format can be read) is at most
#: this long; a longer one streams as it comes.
LIST_WHOLE_AT_MOST = 16 << 20


def _listing_commands(verbs: tuple[str, ...], name: str, facts: bool,
                      control: Control) -> list[Command]:
    """The commands to try in order: ``LIST -a`` before ``LIST`` when facts are asked
    for (wget's choice: ``-a`` lists dotfiles too), unless this server refused it."""
    commands = []
    for verb in verbs:
        if verb == "LIST" and facts and control.list_a is not False:
            commands.append(Command("LIST", f"-a {name}" if name else "-a"))
        commands.append(Command(verb, name or None))
    return commands


async def _ask(control: Control, command: Command, channel: DataChannel,
               connect_timeout: float | None) -> Stream | Reply:
    """``command`` over ``channel``: the data connection when the server begins (1yz),
    else its refusal (the channel closed)."""
    try:
        reply = await control.command(command, meanwhile=channel.ready)
        if reply.category == 1:
            return await channel.connected(connect_timeout)
    except BaseException:
        await channel.aclose()
        raise
    await channel.aclose()
    return reply


async def list_directory(
    control: Control,
    url: URL,
    name: str,
    options: FetchOptions,
    *,
    open_data: Callable[[], Awaitable[DataChannel]],
    connect_timeout: float | None,
    release: Callable[[Control], Awaitable[None]],
    opened: DataChannel | None = None,
) -> Resource:
    """List ``name`` with the first command of :func:`listing_verbs` the server has
    (``MLSD``, ``LIST -a``, ``LIST``, ``NLST`` with ``FTPOptions(listing="mlsd")``;
    ``NLST``, ``LIST`` by default): the next one when it does not implement one
    (500/502; any refusal of ``LIST -a``, which is then not asked again on the
    connection).

    ``opened`` is a data connection already opened for the first command (the step
    before it in the command list); ``open_data`` opens the next ones. An MLSD listing
    is passed on as sent: RFC 3659 7.2 sends it as if in ``TYPE L 8``, so its CR LF are
    the format, not a text conversion; NLST and LIST use an implied ``TYPE A`` (RFC
    1123 4.1.2.7). A ``LIST`` asked for facts is read whole first: a format
    :func:`~anyurl.protocols.ftp.read_list` cannot read is listed again with ``NLST``,
    for the names at least. ``release`` takes the control connection back after the
    listing.
    """
    facts = ftp_options(options).listing == "mlsd"
    commands = _listing_commands(listing_verbs(options, control), name, facts, control)
    for n, command in enumerate(commands):
        if command.verb == "LIST" and facts and control.list_form is False:
            continue  # this server's LIST is not read here: NLST
        answer = await _ask(control, command, opened or await open_data(), connect_timeout)
        opened = None
        verb = command.verb
        if isinstance(answer, Reply):
            if verb == "LIST" and command.argument != (name or None):  # LIST -a
                control.list_a = False  # as wget: refused, plain LIST from now on
                control.note("the server refused LIST -a: listing with LIST")
                continue
            if answer.code not in (500, 502) or n == len(commands) - 1:
                raise refused(answer, command, url, RemoteFileNotFound)
            if verb == "MLSD":
                control.mlsd = False  # not implemented: the next, now and on this connection
                control.note("the server has no MLSD: listing with "
                             f"{commands[n + 1].display()}")
            continue
        if verb == "MLSD":
            control.mlsd = True
        info = ResourceInfo(url=url, content_type="text/plain", kind="directory",
                            filename=None, extra={"command": verb})
        # NLST and LIST use an implied TYPE AN (RFC 1123 4.1.2.7): convert line ends.
        decoder = None if verb == "MLSD" else ASCIIDecoder()
        transfer = Transfer(release, control, answer, decoder, url, info=info)
        if not (facts and verb == "LIST"):
            return transfer.resource(info)
        if command.argument != (name or None):
            control.list_a = True
        try:
            body = await transfer.listing(LIST_WHOLE_AT_MOST)
        except BaseException:
            await transfer.close()
            raise
        if body is None:
            return transfer.resource(info)
        if _read_once(body) is None and any(c.verb == "NLST" for c in commands[n:]):
            control.note("cannot read this LIST format: listing with NLST")
            control.list_form = False  # not asked again on this connection
            continue  # on this connection, which is still ours
        await release(control)
        return Resource.of_bytes(info, body)
    raise AssertionError("unreachable")  # pragma: no cover - the last refusal raises


#: ``LIST`` bodies read last (:func:`_read_once`): at most this many, of at most
#: :data:`READ_KEPT_BYTES` together, each at most :data:`READ_KEPT_SIZE` bytes. A
#: mirror's batch lists up to 256 directories before it reads their links: a listing
#: is a few hundred bytes.
READ_KEPT = 1024
READ_KEPT_BYTES = 2 << 20
READ_KEPT_SIZE = 256 << 10
_read: dict[bytes, tuple[ListEntry, ...] | None] = {}
_read_bytes = [0]  # the bodies' bytes in _read
_read_lock = threading.Lock()  # (a caller may read links in a worker thread)


def _read_once(body: bytes) -> list[ListEntry] | None:
    """:func:`read_list` of ``body``, kept until the same bytes are read again: a
    mirror reads the links of the listing :func:`list_directory` just read (to know it
    can), saved and read back, and ``ls -l`` lines cost a few microseconds each."""
    if len(body) > READ_KEPT_SIZE:
        return read_list(body)
    with _read_lock:
        known = body in _read
        if known:  # read twice: the second time is the last
            kept = _read.pop(body)
            _read_bytes[0] -= len(body)
    if not known:
        entries = read_list(body)
        kept = None if entries is None else tuple(entries)
        with _read_lock:
            while _read and (len(_read) >= READ_KEPT
                             or _read_bytes[0] + len(body) > READ_KEPT_BYTES):
                _read_bytes[0] -= len(next(iter(_read)))
                del _read[next(iter(_read))]
            if body not in _read:
                _read_bytes[0] += len(body)
            _read[body] = kept
    return None if kept is None else list(kept)


def listing_links(info: ResourceInfo, body: bytes) -> list[Link]:
    """The entries of a directory listing, as ftp: URLs of that directory.

    Each entry's URL is the listed directory's URL path with the entry's name as one
    more segment, %-escaped as RFC 1738 3.2.2 asks (``/`` and ``;`` in a name are
    data, never separators): the same login, the same CWD steps. ``MLSD`` and ``LIST``
    say what is a directory: those get a ``/`` at the end (a listing again) and the
    kind ``"page"``; files are ``"file"`` links with their size and time (the ``size``
    and ``modify`` facts, or the ``LIST`` line's: a refreshed mirror compares them);
    a symbolic link of ``LIST`` is a ``"file"`` link with its ``target`` (the mirror
    records it, and walks no directory twice through one). ``cdir``/``pdir``, ``.``
    and ``..`` are not entries. An ``NLST`` listing says nothing of the kind, so every
    name is a ``"file"`` (fetching a directory's name still lists it: a RETR refused
    for a name without a typecode is retried as a directory).
    """
    parts = info.url.parts
    if info.kind != "directory" or not isinstance(parts, FTPPath):
        return []
    command = info.extra.get("command")
    entries: list[ListEntry]
    if command == "MLSD":
        entries = parse_mlsd(body)
    elif command == "LIST":
        entries = _read_once(body) or []
    else:
        entries = parse_nlst(body)
    directory = (*parts.cwd, parts.name) if parts.name else parts.cwd
    prefix = "".join(quote(segment, _FSEGMENT) + "/" for segment in directory)
    base = info.url.without_fragment()
    links = []
    for entry in entries:
        path = prefix + quote(entry.name, _FSEGMENT)
        if entry.is_directory:
            links.append(Link(str(base.replace(path=path + "/")), PAGE, display(entry.name)))
            continue
        size = entry.size if entry.size is not None else fact_size(entry)
        modified = entry.modified if entry.modified is not None else fact_time(entry)
        links.append(Link(str(base.replace(path=path)), FILE, display(entry.name),
                          size=size, modified=modified, target=entry.target))
    return checked(links)
