"""anyurl: fetch any RFC 1738 URL by speaking its scheme's own protocol.

The async API is :class:`Resolver`; :func:`get`, :func:`open` and :func:`download` are
its synchronous facade. :func:`parse` gives the :class:`URL` model of RFC 1738.
"""

from __future__ import annotations

# The package logger's NullHandler (a library is silent unless its application configures
# logging) is installed by anyurl.config, which the resolver, the one module that logs,
# imports: importing logging here would cost ``anyurl --version`` about 25 ms.

#: typing.TYPE_CHECKING without importing typing (which ``anyurl --version`` has no use
#: for); mypy reads a module's own ``TYPE_CHECKING`` so.
TYPE_CHECKING = False
import sys as _sys  # noqa: E402 (built in: already loaded)

if TYPE_CHECKING:
    from typing import Any

    from anyurl.config import Config, load_config
    from anyurl.downloads.downloader import (
        Downloader,
        DownloadEvents,
        DownloadPolicy,
        Job,
        TransferResult,
    )
    from anyurl.errors import (
        AnyURLError,
        ConnectFailed,
        HostNotResolved,
        LoginDenied,
        PartialTransfer,
        RemoteFileNotFound,
        TransferTimeout,
        UnsupportedScheme,
        URLSyntaxError,
    )
    from anyurl.links import Link
    from anyurl.options import SchemeOptions
    from anyurl.resolver import FetchResult, Resolver
    from anyurl.resource import Resource, ResourceInfo
    from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler
    from anyurl.schemes.ftp.options import FTPOptions
    from anyurl.schemes.gopher.options import GopherOptions
    from anyurl.schemes.http.options import HTTPOptions
    from anyurl.schemes.mailto.options import MailtoOptions
    from anyurl.schemes.news.options import NewsOptions
    from anyurl.schemes.prospero.options import ProsperoOptions
    from anyurl.schemes.telnet.options import TelnetOptions
    from anyurl.schemes.wais.options import WAISOptions
    from anyurl.sync import download, fetch, fetch_many, get, open
    from anyurl.timeouts import Timeout
    from anyurl.url import URL, mask
    from anyurl.url.parse import parse
    from anyurl.url.text import find_urls

__version__ = "0.1.0"

#: Where each public name lives. They are imported when first used (PEP 562): the
#: command line's start-up pays only for the modules a command needs (``--version``
#: none of them), and ``import anyurl`` stays cheap.
_NAMES: dict[str, str] = {
    "Config": "anyurl.config",
    "load_config": "anyurl.config",
    "Downloader": "anyurl.downloads.downloader",
    "DownloadEvents": "anyurl.downloads.downloader",
    "DownloadPolicy": "anyurl.downloads.downloader",
    "Job": "anyurl.downloads.downloader",
    "TransferResult": "anyurl.downloads.downloader",
    "AnyURLError": "anyurl.errors",
    "ConnectFailed": "anyurl.errors",
    "HostNotResolved": "anyurl.errors",
    "LoginDenied": "anyurl.errors",
    "PartialTransfer": "anyurl.errors",
    "RemoteFileNotFound": "anyurl.errors",
    "TransferTimeout": "anyurl.errors",
    "UnsupportedScheme": "anyurl.errors",
    "URLSyntaxError": "anyurl.errors",
    "Link": "anyurl.links",
    "FTPOptions": "anyurl.schemes.ftp.options",
    "GopherOptions": "anyurl.schemes.gopher.options",
    "HTTPOptions": "anyurl.schemes.http.options",
    "MailtoOptions": "anyurl.schemes.mailto.options",
    "NewsOptions": "anyurl.schemes.news.options",
    "ProsperoOptions": "anyurl.schemes.prospero.options",
    "SchemeOptions": "anyurl.options",
    "TelnetOptions": "anyurl.schemes.telnet.options",
    "WAISOptions": "anyurl.schemes.wais.options",
    "FetchResult": "anyurl.resolver",
    "Resolver": "anyurl.resolver",
    "Resource": "anyurl.resource",
    "ResourceInfo": "anyurl.resource",
    "FetchOptions": "anyurl.schemes.base",
    "Gate": "anyurl.schemes.base",
    "SchemeHandler": "anyurl.schemes.base",
    "download": "anyurl.sync",
    "fetch": "anyurl.sync",
    "fetch_many": "anyurl.sync",
    "get": "anyurl.sync",
    "open": "anyurl.sync",
    "Timeout": "anyurl.timeouts",
    "URL": "anyurl.url",
    "mask": "anyurl.url",
    "parse": "anyurl.url",
    "find_urls": "anyurl.url.text"
}

__all__ = [
    "URL",
    "AnyURLError",
    "Config",
    "ConnectFailed",
    "DownloadEvents",
    "DownloadPolicy",
    "Downloader",
    "FTPOptions",
    "FetchOptions",
    "FetchResult",
    "Gate",
    "GopherOptions",
    "HTTPOptions",
    "HostNotResolved",
    "Job",
    "Link",
    "LoginDenied",
    "MailtoOptions",
    "NewsOptions",
    "PartialTransfer",
    "ProsperoOptions",
    "RemoteFileNotFound",
    "Resolver",
    "Resource",
    "ResourceInfo",
    "SchemeHandler",
    "SchemeOptions",
    "TelnetOptions",
    "Timeout",
    "TransferResult",
    "TransferTimeout",
    "URLSyntaxError",
    "UnsupportedScheme",
    "WAISOptions",
    "__version__",
    "download",
    "fetch",
    "fetch_many",
    "find_urls",
    "get",
    "load_config",
    "mask",
    "open",
    "parse",
]


#: Modules that moved into a scheme's package, by their old names: ``import OLD`` still
#: works and gives the module under its new name, the very object.
_MOVED = {"anyurl.cookies": "anyurl.schemes.http.cookies"}


class _Moved:
    """The finder and loader of :data:`_MOVED`'s old names (on ``sys.meta_path``); it
    imports nothing until an old name is asked for."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> Any:
        """A spec of this loader for an old name, else None (the other finders')."""
        if name not in _MOVED:
            return None
        from importlib.machinery import ModuleSpec

        loader: Any = _Moved  # the class is the loader: its methods are static
        return ModuleSpec(name, loader)

    @staticmethod
    def create_module(spec: Any) -> Any:
        """The module under its new name, imported now."""
        from importlib import import_module

        return import_module(_MOVED[spec.name])

    @staticmethod
    def exec_module(module: Any) -> None:
        """Nothing: the module ran under its new name."""


_sys.meta_path.append(_Moved)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'anyurl' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
