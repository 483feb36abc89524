"""Idle FTP control connections kept per login for the next URL (RFC 1738 3.2.5).

A control connection whose transfer completed cleanly is kept per (host, port, user,
password) for ``Config.idle_timeout`` seconds. Before it serves the next URL it is
returned to the login directory with ``CWD <dir PWD reported after login>`` (skipped
when the previous URL made no CWD, and joined with the next URL's segments in one CWD
where PWD gave a Unix path: :meth:`~.control.Control.position`); a connection
whose PWD reply could not be parsed is never kept, and one that turns out dead (EOF,
421, a refused CWD) is replaced by a fresh login by the handler. Expired connections are
closed when the pool is next touched or when the handler closes.
"""

from __future__ import annotations

import time

from anyurl.config import Config
from anyurl.protocols.ftp import State
from anyurl.schemes.base import Trace
from anyurl.schemes.ftp.control import Control, PoolKey
from anyurl.url import URL

__all__ = ["ControlPool"]


class ControlPool:
    """The idle control connections of one handler, by login."""

    def __init__(self, config: Config):
        self.config = config
        #: Idle connections per key, the longest idle first.
        self.idle: dict[PoolKey, list[Control]] = {}

    async def take(self, key: PoolKey, url: URL, trace: Trace | None) -> Control | None:
        """A connection for ``url`` still within its idle time, or None; the expired
        ones of ``key`` are closed on the way."""
        idle = self.idle.get(key, [])
        now = time.monotonic()
        chosen: Control | None = None
        for control in list(idle):
            if chosen is None and now - control.idle_since <= self.config.idle_timeout:
                chosen = control
                idle.remove(control)
        for control in list(idle):  # whatever is left has expired
            if now - control.idle_since > self.config.idle_timeout:
                idle.remove(control)
                await control.goodbye()
        if chosen is not None:
            chosen.trace = trace
            chosen.url = url
            chosen.replies_this_use = 0
            if trace is not None:  # the note's text only when it is shown
                chosen.note(
                    f"reusing the control connection to {key[0]}:{key[1]} "
                    f"(idle {now - chosen.idle_since:.1f} s)"
                )
        return chosen

    async def release(self, control: Control) -> None:
        """Keep ``control`` for the next URL if it knows its login directory and is
        idle (and the config keeps connections at all); else QUIT."""
        reusable = (
            control.home is not None
            and control.core.state is State.IDLE
            and self.config.idle_timeout > 0
        )
        if not reusable:
            await control.goodbye()
            return
        control.idle_since = time.monotonic()
        control.trace = None
        self.idle.setdefault(control.key, []).append(control)

    async def aclose(self) -> None:
        idle, self.idle = self.idle, {}
        for controls in idle.values():
            for control in controls:
                await control.goodbye()
