"""anyurl: fetch any RFC 1738 URL by speaking its scheme's own protocol.

The async API is :class:`Resolver`; :func:`get`, :func:`open` and :func:`download` are
its synchronous facade. :func:`parse` gives the :class:`URL` model of RFC 1738.
"""

from anyurl.config import Config, load_config
from anyurl.downloader import Downloader, DownloadEvents, DownloadPolicy, Job, TransferResult
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
from anyurl.options import (
    FTPOptions,
    GopherOptions,
    HTTPOptions,
    MailtoOptions,
    NewsOptions,
    ProsperoOptions,
    SchemeOptions,
    TelnetOptions,
    WAISOptions,
)
from anyurl.resolver import FetchResult, Resolver
from anyurl.resource import Resource, ResourceInfo
from anyurl.schemes.base import FetchOptions, Gate, SchemeHandler
from anyurl.sync import download, fetch, fetch_many, get, open
from anyurl.url import URL, mask, parse
from anyurl.url.text import find_urls

__version__ = "0.1.0"

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
