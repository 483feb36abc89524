"""The mailto scheme (RFC 1738 section 3.5): send a message to the mailbox the URL names.

"Unlike many URLs, the mailto scheme does not represent a data object to be accessed
directly": there is nothing to retrieve. What a retrieval client like Lynx does with
one is let the user write a message and send it, and that is what
:class:`MailtoHandler` does, without an editor: the body is ``MailtoOptions.body``
(bytes) or, for the command line, standard input when ``MailtoOptions.body_from_stdin``
is set; the subject is ``MailtoOptions.subject``. There is no default body: opening a
``mailto:`` URL without one is an error rather than an empty message sent by accident.

The message goes over SMTP (:mod:`anyurl.protocols.smtp`) to a relay: ``MailtoOptions.relay``,
else ``Config.smtp_relay`` (``host:port``, ``[v6]:port``), else ``localhost:25``. The
relay comes from configuration, never from the URL, so the port policy of section 6
(which refuses port 25 for every *other* scheme, because a crafted gopher: or ftp: URL
could talk to a mail server) does not apply to it. The sender is
``MailtoOptions.mail_from``, ``Config.mail_from``, ``Config.anonymous_email``, or
``$EMAIL`` (none: an error). The message carries From, To, Subject (RFC 2047-encoded
when not ASCII), Date, Message-ID and a MIME text/plain body (UTF-8; quoted-printable
when not ASCII, so the message is 7-bit clean for any relay).

The later ``mailto:addr?subject=...&body=...`` form (RFC 6068) is understood when the
``?`` follows the address's ``@``; other header fields are ignored with a warning.

The :class:`~anyurl.resource.Resource` returned is a short report (kind ``"report"``):
the relay's final reply to the message, one line. ``info.extra`` holds the relay, the
recipient, the reply code and the Message-ID. Failures: a refused step is
:class:`~anyurl.errors.ServerError` (22) quoting the server's reply, the connection
closing early :class:`~anyurl.errors.ConnectionLost` (56), a reply that is not SMTP
:class:`~anyurl.errors.ProtocolError` (8); an address with a line break, a control
character or an angle bracket is :class:`~anyurl.errors.URLError` (3) before connecting.
"""

from __future__ import annotations

import email.policy
import os
import re
import socket
import sys
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

import anyio

from anyurl.errors import AnyURLError, ConnectionLost, ProtocolError, ServerError, URLError
from anyurl.numbers import ascii_int
from anyurl.protocols.common import LocalProtocolError, RemoteProtocolError
from anyurl.protocols.smtp import (
    NEED_DATA,
    ConnectionClosed,
    Delivered,
    Envelope,
    Failed,
    Finished,
    Reply,
    ReplyReceived,
    Step,
    Submission,
    Transmit,
    check_address,
)
from anyurl.resource import Resource, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.schemes.mailto.options import MailtoOptions
from anyurl.schemes.mailto.view import MailtoPart
from anyurl.url import URL, decode

__all__ = ["DEFAULT_RELAY", "MailtoHandler", "compose"]

DEFAULT_RELAY = ("localhost", 25)

_DOMAIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\Z")


@dataclass(frozen=True)
class _Request:
    recipient: str
    subject: str | None
    body: bytes | None  # None: read from stdin when sending
    sender: str
    relay: tuple[str, int]
    helo: str


def _parse_relay(text: str) -> tuple[str, int]:
    text = text.strip()
    m = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\](?::([0-9]+))?|([^:\[\]]+)(?::([0-9]+))?", text)
    port = ascii_int(m.group(2) or m.group(4) or "25", max_digits=5) if m else None
    if m is None or port is None or not 0 < port < 65536:
        raise AnyURLError(
            f"cannot read the SMTP relay {text!r}",
            hint="Write it host:port, e.g. smtp_relay = \"localhost:25\".",
        )
    return m.group(1) or m.group(3), port


def _helo_name() -> str:
    """Our host name if it is a plausible domain (no DNS lookup), else ``localhost``."""
    name = socket.gethostname()
    return name if _DOMAIN.match(name) else "localhost"


def _split_hfields(url: URL) -> tuple[str, dict[str, str]]:
    """The decoded address and the RFC 6068 header fields (lower-cased names)."""
    raw = url.opaque or ""
    at = raw.find("@")
    question = raw.find("?", at + 1) if at >= 0 else -1
    if question < 0:
        part = url.parts
        assert isinstance(part, MailtoPart)
        return part.address, {}
    fields: dict[str, str] = {}
    for item in raw[question + 1 :].split("&"):
        if not item:
            continue
        name, _, value = item.partition("=")
        fields[decode(name).lower()] = decode(value)
    return decode(raw[:question]), fields


def compose(
    *, sender: str, recipient: str, subject: str | None, body: bytes, domain: str
) -> tuple[bytes, str]:
    """The message as CRLF bytes (7-bit) and its Message-ID."""
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = sender
    msg["To"] = recipient
    if subject:
        msg["Subject"] = subject
    msg["Date"] = formatdate(localtime=True)
    message_id = make_msgid(domain=domain)  # domain given: no getfqdn() DNS lookup
    msg["Message-ID"] = message_id
    msg["X-Mailer"] = "anyurl"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        msg.set_content(body, maintype="application", subtype="octet-stream",
                        filename="body.bin")
    else:
        cte = None if text.isascii() else "quoted-printable"
        msg.set_content(text, charset="utf-8", cte=cte)
    return msg.as_bytes(), message_id


class MailtoHandler(SchemeHandler):
    """``mailto:`` URLs: compose and submit one message over SMTP."""

    schemes = ("mailto",)
    options_type = MailtoOptions

    def _request(self, url: URL, options: FetchOptions) -> _Request:
        given = options.get(MailtoOptions)
        recipient, fields = _split_hfields(url)
        if not recipient:
            raise URLError(f"{url.masked()} names no mailbox", url=url)
        try:
            check_address(recipient, "recipient")
        except LocalProtocolError as exc:
            raise URLError(f"{exc} ({url.masked()})", url=url) from None
        ignored = sorted(set(fields) - {"subject", "body"})
        if ignored:
            self.warn(f"{url.masked()}: ignoring the header field(s) {', '.join(ignored)}")
        subject = given.subject if given.subject is not None else fields.get("subject")
        if subject is not None:
            subject = str(subject)
            if any(c in subject for c in "\r\n\x00"):
                raise URLError(f"refusing a subject with a line break for {url.masked()}",
                               url=url)
        body: bytes | None
        if given.body is not None:
            body = given.body
        elif given.body_from_stdin:
            body = None
        elif "body" in fields:
            body = fields["body"].encode("utf-8", "surrogateescape")
        else:
            raise AnyURLError(
                f"{url.masked()} names a mailbox; there is nothing to fetch, and no message "
                "was given to send",
                url=url,
                hint="Give the message body: MailtoOptions(body=...).",
                remedy=("mail_body",),
            )
        sender = (given.mail_from or self.config.mail_from or self.config.anonymous_email
                  or os.environ.get("EMAIL", "").strip())
        if not sender:
            raise AnyURLError(
                f"no sender address for {url.masked()}",
                hint="Set mail_from (or anonymous_email) in the config, or $EMAIL.",
                remedy=("mail_from",))
        try:
            check_address(sender, "sender")
        except LocalProtocolError as exc:
            raise AnyURLError(str(exc), hint="Fix mail_from in the configuration.") from None
        relay_text = given.relay or self.config.smtp_relay
        relay = _parse_relay(str(relay_text)) if relay_text else DEFAULT_RELAY
        helo = given.helo or _helo_name()
        return _Request(recipient, subject, body, sender, relay, helo)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        req = self._request(url, options)
        body = req.body if req.body is not None else b""
        message, _ = compose(sender=req.sender, recipient=req.recipient, subject=req.subject,
                             body=body, domain=req.helo)
        submission = Submission(Envelope(req.helo, req.sender, (req.recipient,), message))
        lines = submission.plan()
        if req.body is None:
            lines = ["<message: headers and standard input>" if line.startswith("<message")
                     else line for line in lines]
        host, port = req.relay
        return [f"connect to the SMTP relay {host} port {port}", *lines]

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        req = self._request(url, options)
        body: bytes = (
            req.body if req.body is not None
            else await anyio.to_thread.run_sync(sys.stdin.buffer.read)
        )
        message, message_id = compose(sender=req.sender, recipient=req.recipient,
                                      subject=req.subject, body=body, domain=req.helo)
        try:
            envelope = Envelope(req.helo, req.sender, (req.recipient,), message)
        except LocalProtocolError as exc:
            raise URLError(f"{exc} ({url.masked()})", url=url) from None
        submission = Submission(envelope)
        trace = options.trace
        host, port = req.relay
        where = f"the SMTP relay {host}:{port}"
        delivered: Reply | None = None
        failed: Failed | None = None
        async with await self.dialer.connect_tcp(
            host, port, url=url, connect_timeout=self.config.connect_timeout,
            read_timeout=self.config.read_timeout, what=where,
        ) as stream:
            while not submission.done:
                data = await stream.receive()
                try:
                    submission.receive_data(data)
                except RemoteProtocolError as exc:
                    raise ProtocolError(
                        f"{where} sent something that is not SMTP while sending "
                        f"{url.masked()}: {exc}",
                        url=url,
                    ) from None
                while (event := submission.next_event()) is not NEED_DATA:
                    if isinstance(event, Transmit):
                        if trace:
                            trace(f"> {event.shown}")
                        await stream.send(event.data)
                    elif isinstance(event, ReplyReceived):
                        if trace:
                            for line in event.reply.lines:
                                trace(f"< {line}")
                    elif isinstance(event, Delivered):
                        delivered = event.reply
                    elif isinstance(event, Failed):
                        failed = failed or event
                    elif isinstance(event, ConnectionClosed):
                        if delivered is None and failed is None:
                            during = submission.closed_during
                            raise ConnectionLost(
                                f"{where} closed the connection during "
                                f"{during.value if during else 'the dialogue'} "
                                f"for {url.masked()}",
                                url=url,
                            )
                    elif isinstance(event, Finished):
                        pass
        if failed is not None:
            raise _failure(failed, where, url)
        if delivered is None:  # pragma: no cover - the dialogue ends in one or the other
            raise ProtocolError(f"{where} ended the dialogue without a verdict", url=url)
        report = (" / ".join(delivered.lines) + "\n").encode("utf-8")
        info = ResourceInfo(
            url=url, size=len(report), content_type="text/plain", kind="report",
            extra={"relay": f"{host}:{port}", "recipient": req.recipient,
                   "reply_code": delivered.code, "message_id": message_id},
        )
        return Resource(info, iterate_bytes(report))


def _failure(failed: Failed, where: str, url: URL) -> AnyURLError:
    reply = failed.reply
    what = {
        Step.GREETING: "refused the connection",
        Step.EHLO: "refused EHLO",
        Step.HELO: "refused HELO",
        Step.MAIL: "refused the sender",
        Step.RCPT: "refused the recipient",
        Step.DATA: "refused DATA",
        Step.MESSAGE: "refused the message",
    }.get(failed.step, f"failed at {failed.step.value}")
    hint = "This is a temporary failure; try again later." if reply.category == 4 else None
    if failed.step is Step.RCPT and reply.category == 5:
        hint = "Check the address, or whether this relay accepts mail for that domain."
    return ServerError(
        f"{where} {what} for {url.masked()}: {str(reply)!r}",
        status=reply.code,
        url=url,
        hint=hint,
    )
