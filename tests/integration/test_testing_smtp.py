"""anyurl.schemes.mailto.loopback: the loopback SMTP server, through anyurl.Resolver on both
backends.

mailto: URLs sent to the server a user's own tests would start: in their task group
(``SMTPServer.serve``) or in a thread (``running_smtp_server``).
"""

from __future__ import annotations

import smtplib
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from anyurl import Resolver
from anyurl.config import Config
from anyurl.errors import ServerError
from anyurl.options import MailtoOptions
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.mailto.loopback import (
    SMTPServer,
    SMTPServerConfig,
    open_smtp_server,
    running_smtp_server,
)

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

SENDER = "tester@anyurl.example"


def mailto_options(trace: Any = None, **values: Any) -> FetchOptions:
    """Typed mailto options."""
    return FetchOptions(trace=trace, schemes=(MailtoOptions(**values),))


async def send(port: int, url: str, **values: Any) -> tuple[bytes, list[str]]:
    trace: list[str] = []
    config = Config(smtp_relay=f"127.0.0.1:{port}", mail_from=SENDER, connect_timeout=5,
                    read_timeout=10, allowed_ports=frozenset({port}))
    async with Resolver(config, warn=lambda _: None) as resolver:
        report = await resolver.fetch(url, mailto_options(trace.append, **values))
    return report, trace


@pytest.fixture
async def server(request: pytest.FixtureRequest) -> AsyncIterator[SMTPServer]:
    async with open_smtp_server(getattr(request, "param", None)) as smtp:
        yield smtp


async def test_mailto_message_arrives(server: SMTPServer) -> None:
    body = b"first line\n.hidden line\n.\nlast line\n"
    report, trace = await send(server.port, "mailto:postmaster@anyurl.example",
                               subject="loopback", body=body)
    assert report.startswith(b"250 OK: queued as 1")
    [received] = server.messages
    assert received.sender == SENDER
    assert received.recipients == ("postmaster@anyurl.example",)
    msg = received.message()
    assert msg["Subject"] == "loopback"
    assert msg["To"] == "postmaster@anyurl.example"
    # Dot-stuffed by anyurl, un-stuffed by the server: every line arrived, the lone dot too.
    assert msg.get_content().splitlines() == ["first line", ".hidden line", ".", "last line"]
    verbs = [line.split()[0].split(":")[0] for line in server.received]
    assert verbs == ["EHLO", "MAIL", "RCPT", "DATA", "QUIT"]
    assert any(line.startswith("< 250-8BITMIME") for line in trace)


@pytest.mark.parametrize("server", [SMTPServerConfig(refuse=("nobody@anyurl.example",))],
                         indirect=True, ids=["refusing"])
async def test_mailto_refused_recipient(server: SMTPServer) -> None:
    with pytest.raises(ServerError, match="refused the recipient") as info:
        await send(server.port, "mailto:nobody@anyurl.example", body=b"x\n")
    assert info.value.status == 550
    assert server.messages == []


@pytest.mark.parametrize("server", [SMTPServerConfig(ehlo=False)], indirect=True,
                         ids=["rfc821"])
async def test_mailto_falls_back_to_helo(server: SMTPServer) -> None:
    await send(server.port, "mailto:u@anyurl.example", body=b"old server\n")
    assert [line.split()[0] for line in server.received][:2] == ["EHLO", "HELO"]
    assert server.messages[0].message().get_content() == "old server\n"


@pytest.mark.parametrize("server", [SMTPServerConfig(greeting=554)], indirect=True,
                         ids=["refusing-session"])
async def test_mailto_refused_session(server: SMTPServer) -> None:
    with pytest.raises(ServerError, match="refused the connection"):
        await send(server.port, "mailto:u@anyurl.example", body=b"x\n")
    assert server.messages == []


async def test_mailto_server_in_a_task_group() -> None:
    server = SMTPServer()
    async with anyio.create_task_group() as tg:
        port = await tg.start(server.serve)
        await send(port, "mailto:tg@anyurl.example", body=b"in a task group\n")
        tg.cancel_scope.cancel()
    assert server.messages[0].recipients == ("tg@anyurl.example",)


async def test_mailto_server_in_a_thread() -> None:
    with running_smtp_server() as server:
        await send(server.port, "mailto:a@anyurl.example", body=b"threaded\n")
    assert server.messages[0].recipients == ("a@anyurl.example",)


def test_smtp_server_speaks_to_smtplib() -> None:
    """A second client (the standard library's) agrees with the server."""
    with running_smtp_server(SMTPServerConfig(max_size=2000)) as server, \
            smtplib.SMTP("127.0.0.1", server.port, timeout=5) as client:
        assert client.ehlo()[0] == 250
        assert client.has_extn("8bitmime") and client.has_extn("size")
        assert client.noop()[0] == 250
        assert client.verify("x")[0] == 252
        client.sendmail("a@x.example", ["b@x.example", "c@x.example"], b"Subject: s\r\n\r\nhi\r\n")
        with pytest.raises(smtplib.SMTPDataError) as info:
            client.sendmail("a@x.example", ["b@x.example"], b"Subject: big\r\n\r\n" + b"y" * 3000)
        assert info.value.smtp_code == 552
        assert client.docmd("DATA")[0] == 503  # no MAIL, no RCPT
    [message] = server.messages
    assert message.recipients == ("b@x.example", "c@x.example")
    assert message.data == b"Subject: s\r\n\r\nhi\r\n"


def test_smtp_server_runs_as_a_module() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "anyurl.schemes.mailto.loopback", "--port",
                             str(port)],
                            stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client = smtplib.SMTP("127.0.0.1", port, timeout=5)
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        with client:
            client.sendmail("a@x.example", ["b@x.example"], b"Subject: s\r\n\r\nhi\r\n")
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("message from <a@x.example> to b@x.example")
    finally:
        proc.terminate()
        proc.wait(timeout=5)
