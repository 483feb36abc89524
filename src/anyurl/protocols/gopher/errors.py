"""The Gopher core's errors, by side (:mod:`anyurl.protocols.common`)."""

from __future__ import annotations

from anyurl.protocols.common import (
    LocalProtocolError,
    RemoteProtocolError,
)

__all__ = [
    "FormError",
    "GopherProtocolError",
    "GopherRequestError",
]


class GopherProtocolError(RemoteProtocolError):
    """The server's bytes break the protocol (the handler maps it to ProtocolError)."""


class GopherRequestError(LocalProtocolError, ValueError):
    """A request we must not send (a TAB, CR or LF in a selector) or a reader misused."""


class FormError(ValueError):
    """The answers given do not fill in the +ASK form (missing, or not a valid choice)."""
