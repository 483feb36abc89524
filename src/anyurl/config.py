"""Settings of a resolver: identity, timeouts, gateways, ports; from TOML or defaults.

The file is ``--config FILE`` when given, else ``$XDG_CONFIG_HOME/anyurl/config.toml`` when
``XDG_CONFIG_HOME`` is set (to an absolute path, as the XDG Base Directory specification
requires), else ``~/.config/anyurl/config.toml`` (:func:`default_config_path`)::

    anonymous_email = "me@example.org"
    connect_timeout = 20
    read_timeout = 60
    max_time = 600          # the total deadline of one transfer (Timeout.total)
    parallel = 4
    retry = 3
    stall_timeout = 30
    nntp_server = "news.example.org"
    smtp_relay = "localhost:25"
    mail_from = "me@example.org"
    allowed_ports = [6000]

    [gateways]
    wais = "http://gateway.example.org:8001/"
"""

from __future__ import annotations

import dataclasses
import logging
import os
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

from anyurl.errors import OptionError
from anyurl.scheme_policy import SchemePolicy
from anyurl.timeouts import Timeout, TimeoutTypes

# A library is silent unless its application configures logging: without a handler of
# ours, logging's last resort would print the resolver's warnings ("carries a password",
# telnet's "typed the user") on stderr. The command line installs its own handler. It is
# installed here, not in the package's __init__: the resolver (the one module that logs,
# to "anyurl" and its children) reads a Config, while ``anyurl --version``, which imports
# the package, has no use for logging (tests/unit/test_startup.py).
logging.getLogger("anyurl").addHandler(logging.NullHandler())

__all__ = ["DEFAULT_CONFIG_PATH", "Config", "default_config_path", "load_config"]

DEFAULT_CONFIG_PATH = Path("~/.config/anyurl/config.toml")


def default_config_path() -> Path:
    """The config file read when none is given: under ``$XDG_CONFIG_HOME`` when that is set
    to an absolute path (a relative one is ignored, as the XDG specification says), else
    :data:`DEFAULT_CONFIG_PATH`, which is that specification's default location."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "anyurl" / "config.toml"
    return DEFAULT_CONFIG_PATH.expanduser()


@dataclass
class Config:
    """Everything a resolver and its handlers may be told; every field has a default.

    The timeouts are :class:`~anyurl.timeouts.Timeout`'s five limits, kept as fields
    (``connect_timeout``, ``read_timeout``, ``write_timeout``, ``pool_timeout``,
    ``max_time`` for its ``total``) so that a config file and the command line set them
    one by one; ``Config(timeout=Timeout(5.0, total=60))`` sets all five at once (a
    number: ``max_time`` only), and :meth:`timeouts` gives them back as a ``Timeout``.
    """

    #: Password for anonymous FTP (RFC 1738 3.2.1: the user's e-mail address); None:
    #: ``$EMAIL`` when set, else ``anonymous@`` (no address of the user is made up).
    anonymous_email: str | None = None
    #: Longest wait for a connection (TCP and TLS), or None (``Timeout.connect``).
    connect_timeout: float | None = 30.0
    #: Longest wait for the next byte (a stalled transfer fails with exit 28), or None
    #: (``Timeout.read``).
    read_timeout: float | None = 60.0
    #: Longest a send may block (a server that stopped reading), or None
    #: (``Timeout.write``).
    write_timeout: float | None = 60.0
    #: Longest wait for a pooled connection (``Timeout.pool``): no pool of anyurl makes
    #: a caller wait, so it bounds nothing; kept for httpx's shape.
    pool_timeout: float | None = None
    #: Whole-transfer deadline in seconds, the body included, or None (``Timeout.total``,
    #: curl's ``--max-time``).
    max_time: float | None = None
    parallel: int = 4
    per_host: int = 2
    #: Connect over IPv4 (4) or IPv6 (6) only (``-4``/``-6``); None: whatever resolves.
    ip_version: int | None = None
    nntp_server: str | None = None
    smtp_relay: str | None = None
    #: Sender of mailto: messages (envelope and From:); None: ``anonymous_email``.
    mail_from: str | None = None
    #: Ports allowed although they belong to another protocol (section 6).
    allowed_ports: frozenset[int] = frozenset()
    #: The schemes this run may open, checked at the gate for every URL (typed,
    #: redirected, followed, a mirror's link): curl's ``--proto``. In a config file, a
    #: string of curl's syntax (``protocols = "-file,-telnet"``).
    protocols: SchemePolicy = field(default_factory=SchemePolicy)
    #: scheme -> HTTP gateway URL for indirect access (section 4).
    gateways: dict[str, str] = field(default_factory=dict)
    #: Read the gateways of the environment too (``<scheme>_proxy``, ``all_proxy``,
    #: ``no_proxy``; :func:`anyurl.net.routing.gateways_from_environ`), below ``gateways``
    #: (httpx's ``trust_env``). False: only ``gateways``.
    trust_env: bool = True
    ftp_passive: bool = True
    use_netrc: bool = True
    netrc_path: str | None = None
    max_redirects: int = 20
    #: Seconds an idle FTP control connection is kept for the next URL (3.2.5).
    idle_timeout: float = 15.0
    #: Retry file://otherhost/ as ftp://otherhost/ (the historical fallback).
    file_ftp_fallback: bool = False
    #: Downloader (``anyurl get``): retries of a transfer that failed transiently.
    retry: int = 0
    #: Seconds before the first retry; each further wait doubles, up to retry_max_delay.
    retry_delay: float = 1.0
    retry_max_delay: float = 60.0
    #: Spread of each wait: ``"equal"`` (half of it, plus a random part of the rest),
    #: ``"full"`` (a random part of it) or ``"none"`` (as curl). A server's
    #: ``Retry-After`` on a 429 or 503 is honoured, up to ``retry_max_delay``.
    retry_jitter: str = "equal"
    #: Retry after any error, not only transient ones (curl's ``--retry-all-errors``).
    retry_all_errors: bool = False
    #: Fail a transfer (exit 28, retried) when no byte arrives for this many seconds.
    stall_timeout: float | None = None
    #: Cap of each transfer's rate in bytes per second, or None.
    limit_rate: float | None = None
    #: The most bytes one resource may deliver (after decoding), or None: ``fetch()``
    #: and downloads fail with FileSizeExceeded (63) beyond it.
    max_filesize: int | None = None
    #: All the timeouts at once (not kept as a field: it sets the five above).
    timeout: InitVar[TimeoutTypes] = None

    def __post_init__(self, timeout: TimeoutTypes) -> None:
        if timeout is None:
            return
        if not isinstance(timeout, Timeout):
            timeout = self.timeouts().replace(total=timeout)
        self.connect_timeout = timeout.connect
        self.read_timeout = timeout.read
        self.write_timeout = timeout.write
        self.pool_timeout = timeout.pool
        self.max_time = timeout.total

    def timeouts(self) -> Timeout:
        """The five timeout fields as a :class:`~anyurl.timeouts.Timeout`."""
        return Timeout(connect=self.connect_timeout, read=self.read_timeout,
                       write=self.write_timeout, pool=self.pool_timeout,
                       total=self.max_time)

    def anonymous_password(self) -> str:
        """What anonymous FTP sends as its password: the configured address, ``$EMAIL``,
        else ``anonymous@`` (RFC 1738 3.2.1 asks for the user's address; anyurl never
        invents one)."""
        email = self.anonymous_email or os.environ.get("EMAIL", "").strip()
        return email if email and "\r" not in email and "\n" not in email else "anonymous@"

    def replace(self, **changes: Any) -> Config:
        """A copy with the given fields changed (``Config().replace(retry=3)``)."""
        return dataclasses.replace(self, **changes)


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read a config file; the default path (:func:`default_config_path`) is optional, an
    explicit one must exist.

    A file that is not TOML, or that names a setting :class:`Config` does not have,
    raises :class:`~anyurl.errors.OptionError` (exit 2) naming the file and the key
    (and the setting probably meant): a typo never passes as a default silently.
    """
    explicit = path is not None
    p = Path(path) if path is not None else default_config_path()
    if not p.exists():
        if explicit:
            raise FileNotFoundError(f"config file {str(p)!r} does not exist")
        return Config()
    with p.open("rb") as f:
        import tomllib  # only when there is a file to read

        try:
            data = tomllib.load(f)
        except tomllib.TOMLDecodeError as exc:
            raise OptionError(f"config file {str(p)!r} is not TOML: {exc}",
                              hint="Write one 'name = value' a line, as in docs/cli.md."
                              ) from None
    known = {f.name for f in dataclasses.fields(Config)} | {"timeout"}
    unknown = sorted(set(data) - known)
    if unknown:
        import difflib

        key = unknown[0]
        meant = difflib.get_close_matches(key, sorted(known), n=1)
        others = f" (and {', '.join(repr(k) for k in unknown[1:])})" if unknown[1:] else ""
        raise OptionError(
            f"config file {str(p)!r} has an unknown setting {key!r}{others}",
            hint=f"Did you mean {meant[0]!r}?" if meant else
            "The settings are Config's fields (docs/api.md).")
    return Config(**_checked(p, data))


# -- the file's values, checked against Config's fields -------------------------------------
#
# A value of the wrong type used to be taken as it was: ``retry = "3"`` failed deep in
# the downloader as an internal error, ``ftp_passive = "no"`` was true (a non-empty
# string). Each value is checked when the file is read, against the type its field is
# annotated with, so the run stops before any transfer (exit 2) naming the file, the key
# and what it expects. Sizes and rates take the command line's spellings (``2M``,
# ``500K``), read by the one reader both use (anyurl.numbers).


class _Refused(ValueError):
    """A value a setting cannot take (the message says what it expects)."""


def _string(value: object) -> object:
    if not isinstance(value, str):
        raise _Refused("a string")
    return value


def _number(value: object, what: str, *, least: float = 0, integral: bool = False) -> float:
    kinds = (int,) if integral else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not least <= value < 1e300:
        raise _Refused(what)
    return value


def _seconds(value: object) -> float:
    return _number(value, "a number of seconds, 0 or more")


def _count(value: object) -> object:
    return _number(value, "a whole number, 0 or more", integral=True)


def _positive(value: object) -> object:
    return _number(value, "a whole number, 1 or more", least=1, integral=True)


def _boolean(value: object) -> object:
    if not isinstance(value, bool):
        raise _Refused("true or false (without quotes)")
    return value


def _ports(value: object) -> object:
    what = "a list of ports (whole numbers 1-65535), such as [6000]"
    if not isinstance(value, list):
        raise _Refused(what)
    ports = frozenset(int(_number(port, what, least=1, integral=True)) for port in value)
    if any(port > 65535 for port in ports):
        raise _Refused(what)
    return ports


def _table(value: object) -> object:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _Refused(_table_example())
    return value


def _refusal_example() -> str:
    """A ``--proto`` value that refuses what a document may not lead to: ``file`` and a
    network scheme that acts rather than fetches (the registry's ``followable``)."""
    from anyurl.registry import specs

    acts = next((spec.name for spec in specs()
                 if not spec.followable and spec.default_port is not None), None)
    return "-file" if acts is None else f"-file,-{acts}"


def _table_example() -> str:
    """What a table is, shown as a gateway: a scheme that one serves (the registry's)
    and a gateway URL (of :data:`~anyurl.net.routing.GATEWAY_URL_SCHEMES`)."""
    from anyurl.net.routing import GATEWAY_URL_SCHEMES, gateway_schemes

    name = next((name for name in gateway_schemes() if name not in GATEWAY_URL_SCHEMES),
                "SCHEME")
    return (f'a table of strings, such as [gateways] {name} = '
            f'"{GATEWAY_URL_SCHEMES[0]}://gw.example:8001/"')


def _size(value: object) -> object:
    from anyurl.numbers import byte_size

    size = byte_size(value) if isinstance(value, str) else None
    if size is None:
        return int(_number(value, "a size in bytes, or such as 500K or 2M", integral=True))
    return size


def _rate(value: object) -> object:
    from anyurl.numbers import byte_rate

    rate = byte_rate(value) if isinstance(value, str) else None
    if rate is None:
        what = "bytes a second above 0, or a rate such as 500K or 2M"
        return float(_number(value, what, least=1e-300))
    return rate


def _protocols(value: object) -> object:
    if not isinstance(value, str):
        raise _Refused(f'a string of curl\'s --proto syntax, such as "{_refusal_example()}"')
    try:
        return SchemePolicy.parse(value)
    except OptionError as exc:
        raise _Refused(f"a string of curl's --proto syntax ({exc.message})") from None


def _jitter(value: object) -> object:
    if value not in ("equal", "full", "none"):
        raise _Refused('"equal", "full" or "none"')
    return value


def _ip_version(value: object) -> object:
    if isinstance(value, bool) or value not in (4, 6):
        raise _Refused("4 or 6")
    return value


def _timeout(value: object) -> object:
    if not isinstance(value, dict):
        return _seconds(value)
    try:
        return Timeout(**{k: _seconds(v) for k, v in value.items()})
    except TypeError as exc:
        raise _Refused(f"a [timeout] table of connect, read, write, pool and total ({exc})"
                       ) from None


#: How a file's value is read, by the type Config's field is annotated with.
_BY_TYPE: dict[str, Any] = {
    "str": _string, "str | None": _string,
    "float": _seconds, "float | None": _seconds,
    "int": _count, "int | None": _count,
    "bool": _boolean,
    "frozenset[int]": _ports,
    "dict[str, str]": _table,
}
#: Settings whose values are narrower than their type, or spelled otherwise.
_BY_NAME: dict[str, Any] = {
    "parallel": _positive, "per_host": _positive, "retry_jitter": _jitter,
    "ip_version": _ip_version, "limit_rate": _rate, "max_filesize": _size,
    "timeout": _timeout, "protocols": _protocols,
}


def _reader(name: str, annotation: object) -> Any:
    return _BY_NAME.get(name) or _BY_TYPE[str(annotation)]


def _checked(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with each value read as its Config field wants it; OptionError (exit 2)
    naming the file, the key and what it expects for the first value that is not."""
    types = {f.name: f.type for f in dataclasses.fields(Config)}
    types["timeout"] = "timeout"
    out: dict[str, Any] = {}
    for key, value in data.items():
        try:
            out[key] = _reader(key, types[key])(value)
        except _Refused as exc:
            shown = value if not isinstance(value, dict | list) else type(value).__name__
            raise OptionError(
                f"config file {str(path)!r}: {key} = {shown!r} is not {exc}",
                hint="The settings and their types are Config's (docs/api.md).") from None
    return out
