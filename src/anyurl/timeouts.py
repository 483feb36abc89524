"""Timeouts in httpx's shape: ``connect``, ``read``, ``write``, ``pool``, and a ``total`` deadline.

:class:`Timeout` is what ``Config(timeout=...)``, ``Resolver(timeout=...)`` and each request
(``Resolver.open``/``fetch``, ``anyurl.get``/``open``) take. The four per-operation limits
bound one wait each (a connection being made, the next bytes to arrive, a send that
blocks, a pooled connection); ``total`` is a deadline over the whole request, the body
streamed to its end included, as curl's ``--max-time``.

A plain number is a ``total`` deadline, as a number has always been for ``fetch`` (and
now for ``open`` too, whose body it also bounds): ``timeout=10`` gives the request 10
seconds in all. This differs from httpx, where a number is every per-operation limit;
``Timeout(10.0)`` is httpx's meaning.

While a request runs through the resolver (its opening, and each step of reading its
body), :func:`current` gives its :class:`Timeout`; :mod:`anyurl.net.transport` reads it, so
the request's limits apply on whatever connection serves it, a pooled one included.
"""

from __future__ import annotations

import enum
from contextvars import ContextVar
from dataclasses import dataclass

from anyurl.errors import OptionError, TransferTimeout
from anyurl.url import URL, mask

__all__ = ["Timeout", "TimeoutTypes", "current", "timeout_of", "total_expired", "using"]

#: Defaults: a connection may take 30 s; a read or a blocked send 60 s; no total.
DEFAULT_CONNECT = 30.0
DEFAULT_READ = 60.0

class _Unset(enum.Enum):
    """A limit not given (None is a value: no limit)."""

    UNSET = "unset"


_UNSET = _Unset.UNSET


@dataclass(frozen=True, init=False)
class Timeout:
    """Seconds per operation (None: no limit), and a ``total`` deadline.

    ``Timeout(5.0)`` sets ``connect``, ``read``, ``write`` and ``pool`` to 5 seconds
    (httpx's meaning), ``Timeout(5.0, connect=1.0)`` all but ``connect``;
    ``Timeout(None)`` removes the four limits. A field not given takes anyurl's
    default (connect 30, read 60, write 60, pool and total none). ``total`` is never
    set by the first argument: ``Timeout(5.0, total=60.0)``.

    * ``connect``: making a connection (TCP and the TLS handshake);
    * ``read``: waiting for the next bytes of a reply or body;
    * ``write``: a send that blocks, such as a request body to a server that stopped
      reading (the send waits only when the socket's buffer is full);
    * ``pool``: waiting for a pooled connection. No pool of anyurl makes a caller wait
      (HTTP and FTP open another connection when no idle one is free), so it bounds
      nothing; it is accepted so that code written for httpx runs unchanged;
    * ``total``: the whole request, from the first connection to the body's last byte,
      redirects included (curl's ``--max-time``, ``Config.max_time``).

    Every one of them running out raises :class:`~anyurl.errors.TransferTimeout` (curl's
    28, also a ``TimeoutError``) whose message names the URL and the limit.
    """

    connect: float | None
    read: float | None
    write: float | None
    pool: float | None
    total: float | None

    def __init__(
        self,
        timeout: float | _Unset | None = _UNSET,
        *,
        connect: float | _Unset | None = _UNSET,
        read: float | _Unset | None = _UNSET,
        write: float | _Unset | None = _UNSET,
        pool: float | _Unset | None = _UNSET,
        total: float | None = None,
    ):
        if isinstance(timeout, Timeout):
            raise OptionError("Timeout(Timeout(...)): give the Timeout itself")
        default = {"connect": DEFAULT_CONNECT, "read": DEFAULT_READ, "write": DEFAULT_READ,
                   "pool": None}
        given: dict[str, float | _Unset | None] = {
            "connect": connect, "read": read, "write": write, "pool": pool, "total": total}
        for name, value in given.items():
            if value is _UNSET:
                value = default[name] if timeout is _UNSET else timeout
            object.__setattr__(self, name, _seconds(name, value))

    def replace(self, **changes: float | None) -> Timeout:
        """A copy with the given limits changed (``t.replace(total=30)``)."""
        values: dict[str, float | None] = {
            "connect": self.connect, "read": self.read, "write": self.write,
            "pool": self.pool, "total": self.total}
        for name in changes:
            if name not in values:
                raise OptionError(f"Timeout has no {name!r}: connect, read, write, pool, "
                                  "total")
        values.update(changes)
        return Timeout(connect=values["connect"], read=values["read"],
                       write=values["write"], pool=values["pool"], total=values["total"])


#: What a ``timeout=`` argument may be: a :class:`Timeout`, seconds of a total
#: deadline, or None (the resolver's or the config's).
TimeoutTypes = Timeout | float | None


def _seconds(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OptionError(f"Timeout {name}={value!r}: give seconds (a number) or None")
    if value < 0:
        raise OptionError(f"Timeout {name}={value!r}: give seconds, 0 or more, or None")
    return float(value)


def timeout_of(given: TimeoutTypes, base: Timeout) -> Timeout:
    """``given`` applied over ``base``: a :class:`Timeout` replaces it, a number is the
    total deadline (the per-operation limits stay ``base``'s), None keeps ``base``."""
    if given is None:
        return base
    if isinstance(given, Timeout):
        return given
    return base.replace(total=_seconds("total", given))


_CURRENT: ContextVar[Timeout | None] = ContextVar("anyurl_timeout", default=None)


def current() -> Timeout | None:
    """The :class:`Timeout` of the request running here, or None outside a request
    (the transport then uses what its caller passed)."""
    return _CURRENT.get()


class using:
    """``with using(timeout):`` makes ``timeout`` :func:`current` inside the block."""

    def __init__(self, timeout: Timeout | None):
        self.timeout = timeout
        self._token: object = None

    def __enter__(self) -> None:
        self._token = _CURRENT.set(self.timeout)

    def __exit__(self, *exc_info: object) -> None:
        _CURRENT.reset(self._token)  # type: ignore[arg-type]


def total_expired(url: URL | str, seconds: float | None) -> TransferTimeout:
    """The error for a request that ran past its total deadline, naming the URL."""
    return TransferTimeout(
        f"{mask(url)} took longer than its total timeout of {seconds or 0:g} seconds "
        "(Timeout.total)",
        url=mask(url), hint="Raise Timeout.total (Config.max_time) if it needs longer.",
        remedy=("max_time",))
