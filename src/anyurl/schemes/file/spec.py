"""The file scheme's descriptor (RFC 1738 3.10): this machine's files, no network."""

from __future__ import annotations

from anyurl.registry.spec import Crawl, DemoCase, SchemeSpec
from anyurl.schemes.file.view import FilePath
from anyurl.url.charset import decode
from anyurl.url.model import URL
from anyurl.url.segments import without_dot_segments

__all__ = ["SPEC", "is_local_host"]


def is_local_host(host: str | None) -> bool:
    """Whether a file: URL's host names this machine (none, empty or ``localhost``)."""
    return host in (None, "", "localhost") or (host or "").lower() == "localhost"


def _local_path(url: URL) -> str:
    parts = url.parts
    return parts.path if isinstance(parts, FilePath) else "/" + decode(url.path or "")


def _ftp_instead(url: URL) -> URL | None:
    """``file://otherhost/path`` as the ftp URL it historically meant (RFC 1738 3.10
    leaves another host's files undefined; early browsers asked its FTP server)."""
    return None if is_local_host(url.host) else url.replace(scheme="ftp")


SPEC = SchemeSpec(
    names=("file",),
    handler="anyurl.schemes.file.handler:FileHandler",
    summary="files and directories of this machine",
    example="file:///etc/motd",
    view=lambda url: FilePath("/" + decode(url.path or "")),
    view_module="anyurl.schemes.file.view",
    cli_hints={"file_ftp_fallback": "Use file:///path for a local file, or an ftp:// URL for "
                                    "that host (--file-ftp-fallback retries it as ftp)."},
    local_name=lambda url: _local_path(url).rstrip("/").rsplit("/", 1)[-1],
    # Only a local document may name a file: URL (a remote page must not make a mirror
    # read this machine's files): the handlers decide, not a found link.
    followable=False,
    crawl=Crawl(index_name=".listing", path_key=_local_path,
                tree_path=lambda url: (_local_path(url).split("/"),
                                       _local_path(url).endswith("/")),
                canonical=lambda url: without_dot_segments(url)),
    remote_fallback=_ftp_instead,
    remote_fallback_setting="file_ftp_fallback",
    demo=(DemoCase("file://{data}/hello.txt", "a local file"),),
)
