"""Per-request choices as an httpx user writes them: ``fetch(url, headers=..., auth=...)``.

:class:`RequestDefaults` is what a :class:`~anyurl.resolver.Resolver` holds for every
request (the ``Client`` of httpx: ``Resolver(headers=..., auth=..., verify=...)``);
:func:`apply` merges a call's keywords over them into the URL and the
:class:`~anyurl.schemes.base.FetchOptions` the handlers understand, so that the keywords
are one more way to say what ``FetchOptions`` and ``HTTPOptions`` already say:

* ``method``, ``headers``, ``data``, ``verify`` -> :class:`~anyurl.options.HTTPOptions`
  (``data``: bytes as they are, text in UTF-8, a mapping form-urlencoded);
* ``auth=(user, password)`` -> the URL's login, for the schemes whose URLs carry one
  (ftp, http, https, nntp, telnet), as ``-u`` does on the command line;
* ``timeout`` -> the request's limits: an :class:`~anyurl.timeouts.Timeout` (connect,
  read, write, pool, total), or a number: the total deadline in seconds, the body
  included (a :class:`~anyurl.errors.TransferTimeout`, which is also a ``TimeoutError``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from anyurl.errors import OptionError
from anyurl.registry import spec_for
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http.options import HTTPOptions
from anyurl.timeouts import TimeoutTypes
from anyurl.url import URL

__all__ = ["Headers", "RequestDefaults", "apply", "headers_of", "takes_login", "with_login"]


def takes_login(url: URL) -> bool:
    """Whether ``url`` carries the login that ``auth`` (``-u``) sets (RFC 1738 3.1's
    ``user:password@``): its scheme's descriptor says ``login`` and it names a host."""
    spec = spec_for(url.scheme)
    return spec is not None and spec.login and url.host is not None

Headers = Mapping[str, str | None] | Iterable[tuple[str, str | None]]
Data = bytes | str | Mapping[str, str]
Verify = bool | str


def headers_of(headers: Headers | None) -> tuple[tuple[str, str | None], ...]:
    """Headers as ``HTTPOptions.headers`` holds them: (name, value or None), in order."""
    if headers is None:
        return ()
    items = headers.items() if isinstance(headers, Mapping) else headers
    return tuple((str(k), None if v is None else str(v)) for k, v in items)


@dataclass(frozen=True)
class RequestDefaults:
    """What every request of a resolver carries unless the call says otherwise."""

    headers: tuple[tuple[str, str | None], ...] = ()
    auth: tuple[str, str | None] | None = None
    #: False: no certificate verification; a path: trust that CA file (httpx's meaning).
    verify: Verify = True
    timeout: TimeoutTypes = None

    @property
    def empty(self) -> bool:
        """Nothing to apply: the call's options pass through untouched."""
        return self == _NONE


_NONE = RequestDefaults()


def apply(
    url: URL,
    options: FetchOptions | None,
    defaults: RequestDefaults,
    *,
    method: str | None = None,
    headers: Headers | None = None,
    data: Data | None = None,
    auth: tuple[str, str | None] | None = None,
    verify: Verify | None = None,
) -> tuple[URL, FetchOptions | None]:
    """``url`` and ``options`` with the defaults and the call's keywords applied.

    The call's headers follow the defaults' (so one of the same name wins, as
    ``HTTPOptions.headers`` are applied in order); ``auth`` and ``verify`` replace the
    defaults'. Nothing given and no defaults: ``url`` and ``options`` as they were.
    """
    given = (method, headers, data, auth, verify)
    if defaults.empty and all(v is None for v in given):
        return url, options
    url = with_login(url, auth if auth is not None else defaults.auth)
    base = options or FetchOptions()
    http = base.get(HTTPOptions)
    changes: dict[str, object] = {}
    extra = defaults.headers + headers_of(headers)
    if extra:
        changes["headers"] = http.headers + extra
    if method is not None:
        changes["method"] = method.upper()
    if data is not None:
        changes["body"] = _body(data)
    trust = verify if verify is not None else defaults.verify
    if trust is not True:
        if trust is False:
            changes["verify"] = False
        elif isinstance(trust, str):
            changes["cafile"] = trust
        else:
            raise OptionError(f"verify={trust!r}: give True, False or a CA file's path")
    if not changes:
        return url, options
    return url, base.with_scheme(dataclasses.replace(http, **changes))  # type: ignore[arg-type]


def with_login(url: URL, login: tuple[str, str | None] | None) -> URL:
    """``url`` with ``login`` (user, password) in place of its own, for the schemes
    whose URLs carry one (``auth=``, ``-u``); other URLs as they are."""
    if login is None or not takes_login(url):
        return url
    user, password = login
    if not user:
        raise OptionError("a login needs a user name: (user, password)")
    return url.replace(user=user, password=password)


def _body(data: Data) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, Mapping):
        return urlencode(list(data.items())).encode("ascii")
    raise OptionError(f"data={type(data).__name__}: give bytes, text or a mapping")
