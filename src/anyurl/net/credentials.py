"""Credentials a URL does not carry: the user's netrc file, as ftp and news clients read it."""

from __future__ import annotations

import functools
import netrc
import os
from collections.abc import Callable
from dataclasses import dataclass

from anyurl.config import Config

__all__ = ["NetrcEntry", "netrc_entry"]


@dataclass(frozen=True)
class NetrcEntry:
    """One ``machine`` of a netrc file; ``login`` is never empty."""

    login: str
    account: str | None
    password: str | None


def netrc_entry(config: Config, host: str, warn: Callable[[str], None], *,
                user: str | None = None) -> NetrcEntry | None:
    """The entry for ``host`` (``Config.netrc_path``, ``$NETRC`` or ``~/.netrc``), or None.

    ``user`` is the user the URL names, if any. The ``default`` entry applies only to a
    URL that names that same user: it never turns a URL without a user (an anonymous one,
    RFC 1738 3.2.1) into a personal login, which would send the user's password in clear
    to whatever server a URL names. A ``machine`` entry of the host itself applies when
    its login matches the URL's user, or the URL names none.

    A file that cannot be parsed is ignored with a warning rather than failing the
    transfer, as ftp(1) and curl do; ``Config.use_netrc = False`` turns lookups off.
    """
    if not config.use_netrc:
        return None
    path = config.netrc_path or os.environ.get("NETRC") or os.path.expanduser("~/.netrc")
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not os.path.isfile(path):
        return None
    try:
        hosts = _parsed(path, st.st_mtime_ns, st.st_size)
    except (netrc.NetrcParseError, OSError) as exc:
        warn(f"ignoring {path}: {exc}")
        return None
    entry = hosts.get(host)
    if entry is None and user is not None:
        entry = hosts.get("default")
    if entry is None or not entry[0]:
        return None
    login, account, password = entry
    if user is not None and login != user:
        return None
    return NetrcEntry(login, account or None, password or None)


@functools.lru_cache(maxsize=8)
def _parsed(path: str, mtime_ns: int, size: int) -> dict[str, tuple[str, str, str]]:
    """The machines of a netrc file, parsed once per version of it (not once per URL:
    a run of 2,000 FTP URLs read it 2,000 times)."""
    return dict(netrc.netrc(path).hosts)
