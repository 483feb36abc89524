"""Scheme handlers, one module per scheme, and the built-in registry.

The registry is explicit: ``BUILTIN_HANDLERS`` maps a scheme to the dotted path of its
handler class, imported on first use. Third-party handlers (``x-`` schemes too,
RFC 1738 section 4) register through the ``anyurl.schemes`` entry-point group or
:meth:`anyurl.Resolver.register`.
"""

from __future__ import annotations

__all__ = ["BUILTIN_HANDLERS"]

BUILTIN_HANDLERS: dict[str, str] = {
    "file": "anyurl.schemes.file.handler:FileHandler",
    "ftp": "anyurl.schemes.ftp.handler:FTPHandler",
    "news": "anyurl.schemes.news.handler:NewsHandler",
    "nntp": "anyurl.schemes.news.handler:NewsHandler",
    "gopher": "anyurl.schemes.gopher.handler:GopherHandler",
    "http": "anyurl.schemes.http:HTTPHandler",
    "https": "anyurl.schemes.http:HTTPHandler",
    "gateway": "anyurl.schemes.gateway:GatewayHandler",
    "telnet": "anyurl.schemes.telnet.handler:TelnetHandler",
    "mailto": "anyurl.schemes.mailto.handler:MailtoHandler",
    "prospero": "anyurl.schemes.prospero.handler:ProsperoHandler",
    "wais": "anyurl.schemes.wais.handler:WAISHandler",
}
