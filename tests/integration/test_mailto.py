"""mailto: against the real aiosmtpd peer (messages land in its maildir), on both backends.

A refusing server (RCPT answered 550) is aiosmtpd again, run in this process with a handler
that says no, since the peer accepts everything.
"""

from __future__ import annotations

import email
import email.policy
import io
import mailbox
import socket
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest

from anyurl.config import Config
from anyurl.errors import AnyURLError, ServerError, URLError
from anyurl.options import MailtoOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.mailto.handler import MailtoHandler
from anyurl.url import parse

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

SENDER = "tester@anyurl.example"
BODY = b"first line\n.hidden line\n.\nlast line\n"


def config_for(peer: Any) -> Config:
    return Config(smtp_relay=peer.hostport, mail_from=SENDER, connect_timeout=10,
                  read_timeout=20)


async def send(config: Config, url: str, **extra: Any) -> tuple[bytes, dict[str, Any],
                                                                  list[str], list[str]]:
    trace: list[str] = []
    warnings: list[str] = []
    options = FetchOptions(trace=trace.append, schemes=(MailtoOptions(**extra),))
    async with Resolver(config, warn=warnings.append) as r, r.open(url, options) as res:
        assert res.info.kind == "report"
        report = await res.read()
        info_extra = dict(res.info.extra)
    return report, info_extra, trace, warnings


def stored(peer: Any, message_id: str) -> EmailMessage:
    """The message with ``message_id`` from the peer's maildir."""
    box = mailbox.Maildir(str(peer.extra["maildir"]), factory=None, create=False)
    for key in box.iterkeys():
        msg = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
        if msg["Message-ID"] == message_id:
            assert isinstance(msg, EmailMessage)
            return msg
    raise AssertionError(f"{message_id} not in {peer.extra['maildir']}")


async def test_message_arrives(peers: Any) -> None:
    peer = peers["aiosmtpd"]
    report, extra, trace, _ = await send(
        config_for(peer), "mailto:postmaster@anyurl.example", body=BODY,
        subject="RFC 1738 section 3.5 — über test",
    )
    assert report.startswith(b"250 ")
    assert extra["recipient"] == "postmaster@anyurl.example"
    assert extra["reply_code"] == 250
    msg = stored(peer, extra["message_id"])
    assert msg["X-RcptTo"] == "postmaster@anyurl.example"
    assert msg["X-MailFrom"] == SENDER
    assert msg["From"] == SENDER
    assert msg["Subject"] == "RFC 1738 section 3.5 — über test"
    # Dot-stuffed on the wire, un-stuffed by the server: every line arrived, the lone dot too.
    assert msg.get_content().splitlines() == ["first line", ".hidden line", ".", "last line"]
    sent = [line for line in trace if line.startswith("> ")]
    assert sent[0].startswith("> EHLO ")
    assert sent[1:4] == [f"> MAIL FROM:<{SENDER}>", "> RCPT TO:<postmaster@anyurl.example>",
                         "> DATA"]
    assert sent[4].startswith("> <message: ")
    assert sent[-1] == "> QUIT"
    assert any(line.startswith("< 250-") for line in trace)  # the multi-line EHLO reply
    assert trace[-1].startswith("< 221")


async def test_non_ascii_body(peers: Any) -> None:
    peer = peers["aiosmtpd"]
    body = "grüße\n.punkt\n".encode()
    _, extra, _, _ = await send(config_for(peer), "mailto:u@anyurl.example", body=body)
    msg = stored(peer, extra["message_id"])
    assert msg["Content-Transfer-Encoding"] == "quoted-printable"
    assert msg.get_content() == "grüße\n.punkt\n"


async def test_body_from_stdin(peers: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    peer = peers["aiosmtpd"]
    fake = io.TextIOWrapper(io.BytesIO(b"from stdin\n"))
    monkeypatch.setattr(sys, "stdin", fake)
    _, extra, _, _ = await send(config_for(peer), "mailto:s@anyurl.example",
                                body_from_stdin=True)
    assert stored(peer, extra["message_id"]).get_content() == "from stdin\n"


async def test_rfc6068_fields(peers: Any) -> None:
    peer = peers["aiosmtpd"]
    _, extra, _, warnings = await send(
        config_for(peer), "mailto:q@anyurl.example?subject=hello%20there&body=hi&cc=x@y"
    )
    msg = stored(peer, extra["message_id"])
    assert msg["X-RcptTo"] == "q@anyurl.example"
    assert msg["Subject"] == "hello there"
    assert msg.get_content() == "hi\n"
    assert any("ignoring the header field(s) cc" in w for w in warnings)


# -- refusals -----------------------------------------------------------------------------------


async def test_line_break_in_address_refused() -> None:
    config = Config(smtp_relay="127.0.0.1:2")  # refused before connecting: nothing listens
    with pytest.raises(URLError, match="recipient"):
        await send(config, "mailto:a@b.example%0D%0ARCPT%20TO:%3Cvictim@c.example%3E", body=b"x")


async def test_no_body_is_an_error() -> None:
    with pytest.raises(AnyURLError, match="nothing to fetch"):
        await send(Config(smtp_relay="127.0.0.1:2"), "mailto:a@b.example")


@pytest.fixture(scope="module")
def refusing_server() -> Iterator[tuple[str, int]]:
    from aiosmtpd.controller import Controller

    class Refuse:
        async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                              rcpt_options: list[str]) -> str:
            return "550 5.1.1 <" + address + ">: no such user here"

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(Refuse(), hostname="127.0.0.1", port=port,
                            server_hostname="refusing.test", ready_timeout=30)
    controller.start()
    try:
        yield ("127.0.0.1", port)
    finally:
        controller.stop()


async def test_recipient_refused(refusing_server: tuple[str, int]) -> None:
    host, port = refusing_server
    trace: list[str] = []
    config = Config(smtp_relay=f"{host}:{port}", mail_from=SENDER)
    with pytest.raises(ServerError) as info:
        async with Resolver(config) as r:
            await r.fetch("mailto:nobody@anyurl.example",
                          FetchOptions(trace=trace.append, schemes=(MailtoOptions(body=b"x"),)))
    assert info.value.status == 550
    assert info.value.exit_code == 22
    assert "refused the recipient" in str(info.value)
    assert "no such user here" in str(info.value)
    assert trace[-2:] == ["> QUIT", "< 221 Bye"]  # a refusal still ends politely


def test_plan() -> None:
    handler = MailtoHandler(Config(smtp_relay="relay.example:2525", mail_from=SENDER))
    lines = handler.plan(parse("mailto:bob@example.org"),
                         FetchOptions(schemes=(MailtoOptions(body=b"hi\n",
                                                             helo="client.example"),)))
    assert lines[0] == "connect to the SMTP relay relay.example port 2525"
    assert lines[1:4] == ["EHLO client.example", f"MAIL FROM:<{SENDER}>",
                          "RCPT TO:<bob@example.org>"]
    assert lines[4] == "DATA" and lines[5].startswith("<message: ") and lines[-1] == "QUIT"


def test_no_sender_is_an_error_not_a_made_up_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EMAIL", raising=False)
    with pytest.raises(AnyURLError, match="no sender"):
        MailtoHandler(Config()).plan(parse("mailto:bob@example.org"),
                                     FetchOptions(schemes=(MailtoOptions(body=b"x"),)))


def test_plan_default_relay() -> None:
    lines = MailtoHandler(Config(mail_from=SENDER)).plan(parse("mailto:bob@example.org"),
                                         FetchOptions(schemes=(MailtoOptions(body_from_stdin=True),)))
    assert lines[0] == "connect to the SMTP relay localhost port 25"
    assert "<message: headers and standard input>" in lines
