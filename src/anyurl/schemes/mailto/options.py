"""The options of mailto: URLs (:class:`MailtoOptions`), imported when first asked for
(:mod:`anyurl.options`, PEP 562).
"""

from __future__ import annotations

from dataclasses import dataclass

from anyurl.options import SchemeOptions

__all__ = ["MailtoOptions"]


@dataclass(frozen=True)
class MailtoOptions(SchemeOptions):
    """mailto: URLs (RFC 1738 3.5): the message to submit."""

    subject: str | None = None
    #: The body; None with ``body_from_stdin`` unset is an error (no default body).
    body: bytes | None = None
    body_from_stdin: bool = False
    #: ``host[:port]`` of the SMTP relay; None: ``Config.smtp_relay``, else localhost:25.
    relay: str | None = None
    #: Envelope sender and From:; None: ``Config.mail_from``, else ``anonymous_email``.
    mail_from: str | None = None
    #: The name given in EHLO/HELO; None: this machine's name.
    helo: str | None = None
