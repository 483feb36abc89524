"""Credentials a URL does not carry: the user's netrc file, as ftp and news clients read it."""

from __future__ import annotations

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


def netrc_entry(config: Config, host: str, warn: Callable[[str], None]) -> NetrcEntry | None:
    """The entry for ``host`` (``Config.netrc_path``, ``$NETRC`` or ``~/.netrc``), or None.

    A file that cannot be parsed is ignored with a warning rather than failing the
    transfer, as ftp(1) and curl do; ``Config.use_netrc = False`` turns lookups off.
    """
    if not config.use_netrc:
        return None
    path = config.netrc_path or os.environ.get("NETRC") or os.path.expanduser("~/.netrc")
    if not os.path.isfile(path):
        return None
    try:
        entry = netrc.netrc(path).authenticators(host)
    except (netrc.NetrcParseError, OSError) as exc:
        warn(f"ignoring {path}: {exc}")
        return None
    if entry is None or not entry[0]:
        return None
    login, account, password = entry
    return NetrcEntry(login, account or None, password or None)
