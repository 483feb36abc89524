"""FTP directory listings: which command lists, reading one, and its entries as links.

A directory is listed with ``NLST [name]`` (``MLSD [name]`` first with
``FTPOptions(listing="mlsd")``); a server that does not implement a command (500/502)
gets the next one, ``LIST`` last, and one without MLSD is not asked again on that
connection. A fetched listing becomes ftp: URLs again in :func:`listing_links`, for
``links()`` and the mirror; the parsers themselves are the core's (``parse_nlst``,
``parse_mlsd``, ``parse_list`` of :mod:`anyurl.protocols.ftp`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from anyurl.errors import RemoteFileNotFound
from anyurl.links import FILE, PAGE, Link, checked
from anyurl.protocols.ftp import (
    LISTING_VERBS,
    ASCIIDecoder,
    Command,
    ListEntry,
    Reply,
    fact_size,
    fact_time,
    parse_list,
    parse_mlsd,
    parse_nlst,
)
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.ftp.control import Control, ftp_options, refused
from anyurl.schemes.ftp.data import DataChannel, Transfer
from anyurl.url import URL, FTPPath, quote
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
    """``NLST [name]`` (``MLSD [name]`` first with ``FTPOptions(listing="mlsd")``);
    the next command when the server does not implement one (500/502), LIST last.

    ``opened`` is a data connection already opened for the first command (the step
    before it in the command list); ``open_data`` opens the next ones. An MLSD listing
    is passed on as sent: RFC 3659 7.2 sends it as if in ``TYPE L 8``, so its CR LF are
    the format, not a text conversion; NLST and LIST use an implied ``TYPE A`` (RFC
    1123 4.1.2.7). ``release`` takes the control connection back after the listing.
    """
    reply: Reply | None = None
    verbs = listing_verbs(options, control)
    for verb in verbs:
        channel = opened or await open_data()
        opened = None
        command = Command(verb, name or None)
        try:
            reply = await control.command(command, meanwhile=channel.ready)
            if reply.category == 1:
                data = await channel.connected(connect_timeout)
                break
        except BaseException:
            await channel.aclose()
            raise
        await channel.aclose()
        if reply.code not in (500, 502):
            raise refused(reply, command, url, RemoteFileNotFound)
        if verb == "MLSD":
            control.mlsd = False  # not implemented: NLST, now and on this connection
            control.note("the server has no MLSD: listing with NLST")
    else:
        assert reply is not None
        raise refused(reply, command, url, RemoteFileNotFound)
    if verb == "MLSD":
        control.mlsd = True
    info = ResourceInfo(
        url=url, content_type="text/plain", kind="directory", filename=None,
        extra={"command": verb},
    )
    # NLST and LIST use an implied TYPE AN (RFC 1123 4.1.2.7): convert line ends.
    decoder = None if verb == "MLSD" else ASCIIDecoder()
    transfer = Transfer(release, control, data, decoder, url)
    return transfer.resource(info)


def listing_links(info: ResourceInfo, body: bytes) -> list[Link]:
    """The entries of a directory listing, as ftp: URLs of that directory.

    Each entry's URL is the listed directory's URL path with the entry's name as one
    more segment, %-escaped as RFC 1738 3.2.2 asks (``/`` and ``;`` in a name are
    data, never separators): the same login, the same CWD steps. An ``MLSD`` listing
    (``FTPOptions(listing="mlsd")``) says what is a directory: those get a ``/`` at
    the end (a listing again) and the kind ``"page"``, files ``"file"`` with the
    ``size`` and ``modify`` facts (a refreshed mirror compares them), and its
    ``cdir``/``pdir`` lines are not entries. An ``NLST`` listing says nothing of the
    kind, so every name is a ``"file"`` (fetching a directory's name still lists
    it: a RETR refused for a name without a typecode is retried as a directory). A
    ``LIST`` listing (a server without NLST) is read where it has the Unix form.
    """
    parts = info.url.parts
    if info.kind != "directory" or not isinstance(parts, FTPPath):
        return []
    command = info.extra.get("command")
    entries: list[ListEntry]
    if command == "MLSD":
        entries = parse_mlsd(body)
    elif command == "LIST":
        entries = parse_list(body)
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
        else:
            links.append(Link(str(base.replace(path=path)), FILE, display(entry.name),
                              size=fact_size(entry), modified=fact_time(entry)))
    return checked(links)
