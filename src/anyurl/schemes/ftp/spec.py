"""The ftp scheme's descriptor (RFC 1738 3.2): port 21, a login, a hierarchical path;
and the same in TLS from the first byte (RFC 4217's implicit FTPS, port 990): ``ftps://``,
read as ftp is, as https is http's."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anyurl.registry.spec import Crawl, CrawlFetch, DemoCase, DemoServer, SchemeSpec
from anyurl.schemes.ftp.flags import FLAGS
from anyurl.schemes.ftp.view import FTPPath, ftp_path
from anyurl.url.model import URL
from anyurl.url.segments import without_dot_segments

if TYPE_CHECKING:
    from anyurl.options import SchemeOptions

__all__ = ["SPEC", "SPECS", "TLS_SPEC"]


def _parts(url: URL) -> FTPPath:
    parts = url.parts
    return parts if isinstance(parts, FTPPath) else ftp_path(url.path)


def _local_name(url: URL) -> str:
    parts = _parts(url)  # ;type= is already gone
    return parts.name or (parts.cwd[-1] if parts.cwd else "")


def _path_key(url: URL) -> str:
    parts = _parts(url)
    return "/" + "/".join([*parts.cwd, parts.name])


def _tree_path(url: URL) -> tuple[list[str], bool]:
    parts = _parts(url)
    return [*parts.cwd, parts.name], parts.name == "" or parts.typecode == "d"


def _canonical(url: URL) -> URL:
    path = url.path or ""
    last = path.rfind("/") + 1
    typecode = path.rfind(";type=")
    return without_dot_segments(url, typecode if typecode >= last else None)


def _fetch_options(given: tuple[SchemeOptions, ...],
                   crawl: CrawlFetch) -> tuple[SchemeOptions, ...]:
    """A mirror's fetches: MLSD listings (exact names, types, sizes and times), and the
    sizes its listings gave standing for ``SIZE`` (one round trip less per file)."""
    import dataclasses

    from anyurl.schemes.base import FetchOptions
    from anyurl.schemes.ftp.options import FTPOptions

    options = FetchOptions(schemes=given)
    ftp = dataclasses.replace(options.get(FTPOptions), listing="mlsd",
                              listed_size=crawl.listed_size)
    return options.with_scheme(ftp).schemes


def _head(given: tuple[SchemeOptions, ...]) -> tuple[SchemeOptions, ...]:
    """The size and time alone (``SIZE``, ``MDTM``), on the control connection the
    transfer then reuses."""
    import dataclasses

    from anyurl.schemes.base import FetchOptions
    from anyurl.schemes.ftp.options import FTPOptions

    options = FetchOptions(schemes=given)
    return options.with_scheme(dataclasses.replace(options.get(FTPOptions), head=True)).schemes


_SERVER = DemoServer("anyurl.schemes.ftp.loopback", ("--root", "{data}"), requires=("pyftpdlib",))

#: A listing command in a recorded dialogue (``> MLSD``, ``> LIST -a``).
_LISTING = re.compile(r"^>\s*(MLSD|LIST|NLST)\b", re.IGNORECASE | re.MULTILINE)


def _stored_kind(url: URL, content_type: str, dialogue: Sequence[str],
                 ) -> tuple[str, dict[str, Any]]:
    """A stored listing, by the listing command its recorded dialogue sent (the last)."""
    found = None
    for line in dialogue:
        m = _LISTING.match(line)
        if m:
            found = m.group(1).upper()
    return ("file", {}) if found is None else ("directory", {"command": found})


SPEC = SchemeSpec(
    names=("ftp",),
    flags=FLAGS,
    handler="anyurl.schemes.ftp.handler:FTPHandler",
    summary="files and directories of an FTP server (RFC 959)",
    example="ftp://ftp.example.org/pub/",
    default_port=21,
    view=lambda url: ftp_path(url.path),
    view_module="anyurl.schemes.ftp.view",
    cli_hints={"Put it in the URL (ftp://user:password@host/) or ~/.netrc, or run anyurl on "
               "a terminal to be asked for it.":
               "Give it with -u USER:PASSWORD or in ~/.netrc, or run anyurl on a terminal to "
               "be asked for it."},
    options_module="anyurl.schemes.ftp.options",
    local_name=_local_name,
    host_prefixes=("ftp.",),
    login=True,
    proxied=True,
    # RFC 959 4.2: 4yz is a "transient negative completion": the same command may work.
    transient_status=lambda code: 400 <= code < 500,
    time_asked_first=True,
    head=_head,
    stored_kind=_stored_kind,
    crawl=Crawl(index_name=".listing", called="an FTP tree", path_key=_path_key,
                canonical=_canonical, tree_path=_tree_path, fetch_options=_fetch_options),
    demo=(
        DemoCase("ftp://127.0.0.1:{port}/pub/readme.txt",
                 "USER anonymous, CWD pub, TYPE I, RETR readme.txt", _SERVER),
        DemoCase("ftp://127.0.0.1:{port}/pub;type=d", "a directory listing (NLST)", _SERVER),
    ),
)
#: ftp in TLS from the first byte (implicit FTPS, port 990): the same handler, tree and
#: mirror; a connection of one never serves the other (the pool's key says which).
TLS_SPEC = dataclasses.replace(SPEC, names=("ftps",), default_port=990, demo=(),
                               plain_names={"ftps": "ftp"},
                               host_prefixes=(), remote_fallback=None,
                               summary="files and directories of an FTP server in TLS "
                               "(RFC 4217)")
SPECS = (SPEC, TLS_SPEC)
