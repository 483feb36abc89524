"""The Gopher core's errors, by side (:mod:`anyurl.protocols.common`)."""

from __future__ import annotations

from anyurl.protocols.common import (
    CoreProtocolError,
    LocalProtocolError,
    RemoteProtocolError,
)

__all__ = [
    "FormError",
    "GopherCommandError",
    "GopherCoreError",
    "GopherReplyError",
]


class GopherCoreError(CoreProtocolError):
    """Base of this core's errors: catch a side (:class:`GopherReplyError`,
    :class:`GopherCommandError`)."""


class GopherReplyError(GopherCoreError, RemoteProtocolError):
    """The server's bytes break the protocol (the handler maps it to ProtocolError)."""


class GopherCommandError(GopherCoreError, LocalProtocolError, ValueError):
    """A request we must not send (a TAB, CR or LF in a selector) or a reader misused."""


class FormError(ValueError):
    """The answers given do not fill in the +ASK form (missing, or not a valid choice).

    Not a protocol error of either side: the caller's answers are wrong, which the
    handler reports (naming the form's prompts) before the form is sent.
    """
