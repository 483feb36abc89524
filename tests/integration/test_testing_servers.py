"""anyurl.testing's telnet and SMTP servers, driven through the resolver on both backends,
as a user's own tests would drive them."""

from __future__ import annotations

import pytest

from anyurl import Config, FetchOptions, MailtoOptions, Resolver, TelnetOptions
from anyurl.errors import LoginDenied
from anyurl.testing.smtp import SMTPServer
from anyurl.testing.telnet import TelnetServer

pytestmark = pytest.mark.anyio


async def test_telnet_login_and_commands() -> None:
    with TelnetServer(user="joe", password="secret") as server:
        options = FetchOptions(schemes=(TelnetOptions(commands=("echo hello there", "whoami"),
                                                      idle=0.5),))
        async with Resolver(Config(read_timeout=10), warn=lambda _: None) as r:
            transcript = await r.fetch(server.url("joe", "secret"), options)
    assert server.logins == ["joe"]
    assert server.commands == ["echo hello there", "whoami"]
    assert b"hello there\n" in transcript and b"\njoe\n" in transcript
    assert b"secret" not in transcript  # the password is not echoed


async def test_telnet_wrong_password_is_login_denied() -> None:
    with TelnetServer(user="joe", password="secret") as server:
        async with Resolver(Config(read_timeout=10), warn=lambda _: None) as r:
            with pytest.raises(LoginDenied):
                await r.fetch(server.url("joe", "wrong"),
                              FetchOptions(schemes=(TelnetOptions(idle=0.5),)))


async def test_mailto_through_the_smtp_server() -> None:
    with SMTPServer() as server:
        config = Config(smtp_relay=server.relay, mail_from="me@example.org")
        options = FetchOptions(schemes=(MailtoOptions(subject="hi", body=b"one\n.two\n"),))
        async with Resolver(config, warn=lambda _: None) as r:
            await r.fetch("mailto:bob@example.org", options)
    [message] = server.messages
    assert (message.sender, message.recipients) == ("me@example.org", ["bob@example.org"])
    assert b"Subject: hi" in message.data
    assert b"\r\n.two\r\n" in message.data  # dot-stuffed on the wire, unstuffed here
