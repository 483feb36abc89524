"""The URL model of RFC 1738: the value type, the parser, escaping, URLs in free text."""

from anyurl.url.charset import decode, encode_wire, quote
from anyurl.url.model import DEFAULT_PORTS, URL, mask
from anyurl.url.parse import parse, unwrap
from anyurl.url.views import (
    FilePath,
    FTPPath,
    GenericPart,
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
