"""The URL model of RFC 1738: the value type, the parser, escaping, URLs in free text.

The views of the schemes (``FTPPath`` ...) are :mod:`anyurl.url.views`'s names, each
imported from its scheme's package when first asked for (PEP 562).
"""

from typing import Any

from anyurl.url.charset import decode, encode_wire, quote
from anyurl.url.model import DEFAULT_PORTS, URL, mask
from anyurl.url.parse import parse, unwrap
from anyurl.url.views import GenericPart

__all__ = [
    "DEFAULT_PORTS",
    "URL",
    "GenericPart",
    "decode",
    "encode_wire",
    "mask",
    "parse",
    "quote",
    "unwrap",
]


def __getattr__(name: str) -> Any:
    """A scheme's view, from :mod:`anyurl.url.views` (which imports it when first asked)."""
    from anyurl.url import views

    value = getattr(views, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from anyurl.url import views

    return sorted({*globals(), *__all__, *views.__dir__()})
