"""The URL model of RFC 1738: the value type, the parser, escaping, URLs in free text.

The views of the schemes (``FTPPath`` ...) are imported from :mod:`anyurl.url.views`
when first asked for, as that module imports each scheme's view (PEP 562).
"""

from typing import TYPE_CHECKING, Any

from anyurl.url.charset import decode, encode_wire, quote
from anyurl.url.model import DEFAULT_PORTS, URL, mask
from anyurl.url.parse import parse, unwrap
from anyurl.url.views import GenericPart

if TYPE_CHECKING:
    from anyurl.url.views import (
        FilePath,
        FTPPath,
        GopherPath,
        HTTPPath,
        MailtoPart,
        NewsPart,
        NNTPPath,
        ProsperoPath,
        TelnetPart,
        WAISPath,
    )

__all__ = [
    "DEFAULT_PORTS",
    "URL",
    "FTPPath",
    "FilePath",
    "GenericPart",
    "GopherPath",
    "HTTPPath",
    "MailtoPart",
    "NNTPPath",
    "NewsPart",
    "ProsperoPath",
    "TelnetPart",
    "WAISPath",
    "decode",
    "encode_wire",
    "mask",
    "parse",
    "quote",
    "unwrap",
]


def __getattr__(name: str) -> Any:
    """A scheme's view, from :mod:`anyurl.url.views` (which imports it when first asked)."""
    if name in __all__ and name[0].isupper():
        from anyurl.url import views

        value = getattr(views, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
