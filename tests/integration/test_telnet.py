"""telnet: against the real inetutils telnetd (under socat) and telnetlib3's server, both backends.

The telnetd peer runs /bin/login, so these tests log in as the local test user exactly as
RFC 1738 section 3.8's advice would have a person do it, type a shell command and check its
*output* (not just the echo of the command line).
"""

from __future__ import annotations

from typing import Any

import pytest

from anyurl.config import Config
from anyurl.errors import LoginDenied, URLError
from anyurl.options import TelnetOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.telnet.handler import TelnetHandler
from anyurl.url import parse
from tests.peers.table import LOCAL_PASSWORD, LOCAL_USER

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

#: Quiet seconds that end a session in these tests (the handler's default is 2).
IDLE = 1.0


async def session(
    url: str, *, commands: tuple[str, ...] = (), **extra: Any
) -> tuple[bytes, list[str], list[str]]:
    """The transcript, the trace lines and the warnings of one session."""
    trace: list[str] = []
    warnings: list[str] = []
    options = FetchOptions(
        trace=trace.append,
        schemes=(TelnetOptions(**{"idle": IDLE, "commands": tuple(commands), **extra}),),
    )
    config = Config(connect_timeout=10, read_timeout=20)
    async with Resolver(config, warn=warnings.append) as r, r.open(url, options) as res:
        assert res.info.kind == "transcript"
        transcript = await res.read()
    return transcript, trace, warnings


def telnetd_url(peers: Any, user: str = LOCAL_USER, password: str | None = LOCAL_PASSWORD) -> str:
    peer = peers["telnetd"]
    login = user if password is None else f"{user}:{password}"
    return f"telnet://{login}@{peer.host}:{peer.port}/"


async def test_telnetd_login_and_command(peers: Any) -> None:
    transcript, trace, warnings = await session(
        telnetd_url(peers), commands=("echo anyurl-$((6*7))",)
    )
    text = transcript.decode("utf-8", "replace")
    assert "login: " in text
    assert "Password:" in text
    assert "\nanyurl-42\n" in text  # the command ran in a shell: $((6*7)) was expanded
    assert "\r" not in text  # CR LF became \n
    assert LOCAL_PASSWORD not in text
    # The dialogue: the user typed, the password masked, the command.
    typed = [line for line in trace if line.startswith("> ") and "IAC" not in line]
    assert typed == [f"> {LOCAL_USER}", "> ****", "> echo anyurl-$((6*7))"]
    assert all(LOCAL_PASSWORD not in line for line in trace + warnings)
    # inetutils telnetd asks for our terminal type and gets it; it offers ECHO and SGA.
    assert "> IAC SB TTYPE IS DUMB IAC SE" in trace
    assert "< IAC WILL ECHO" in trace and "> IAC DO ECHO" in trace
    assert "> IAC WONT LINEMODE" in trace
    assert any("advice" in w for w in warnings)
    assert any("carries a password (not shown)" in w for w in warnings)


async def test_telnetd_wrong_password(peers: Any) -> None:
    with pytest.raises(LoginDenied) as info:
        await session(telnetd_url(peers, password="not-the-password"))
    assert info.value.exit_code == 67
    assert "Login incorrect" in str(info.value)
    assert "not-the-password" not in str(info.value)


async def test_telnetd_without_user_shows_the_login_prompt(peers: Any) -> None:
    peer = peers["telnetd"]
    transcript, trace, warnings = await session(f"telnet://{peer.host}:{peer.port}")
    assert transcript.rstrip().endswith(b"login:")
    assert not [line for line in trace if line.startswith("> ") and "IAC" not in line]
    assert any("asks for a login" in w for w in warnings)


async def test_telnetd_password_asked_but_not_given(peers: Any) -> None:
    with pytest.raises(LoginDenied, match="asks for a password"):
        await session(telnetd_url(peers, password=None))


async def test_telnetd_password_from_callback(peers: Any) -> None:
    asked: list[str] = []

    async def callback(url: Any) -> str:
        asked.append(url.user)
        return LOCAL_PASSWORD

    trace: list[str] = []
    options = FetchOptions(
        trace=trace.append, password_callback=callback,
        schemes=(TelnetOptions(idle=IDLE, commands=("echo cb-$((1+1))",)),),
    )
    async with Resolver(Config(read_timeout=20), warn=lambda _: None) as r:
        transcript = await r.fetch(telnetd_url(peers, password=None), options)
    assert asked == [LOCAL_USER]
    assert b"\ncb-2\n" in transcript
    assert all(LOCAL_PASSWORD not in line for line in trace)


async def test_telnetlib3_shell(peers: Any) -> None:
    peer = peers["telnetlib3"]
    transcript, trace, _ = await session(
        f"telnet://{peer.host}:{peer.port}/", commands=("writer", "quit")
    )
    text = transcript.decode()
    assert text.startswith("Ready.\ntel:sh> ")
    # The server's own view of the negotiation: it echoes and suppresses GA, we sent TTYPE.
    assert "server-will:ECHO,SGA" in text
    assert "client-will:TTYPE" in text
    assert text.endswith("Goodbye.\n")  # "quit": the server closed the session
    assert trace[-1] == "* the server closed the connection"


async def test_telnetlib3_until_quiet(peers: Any) -> None:
    peer = peers["telnetlib3"]
    transcript, trace, _ = await session(f"telnet://{peer.host}:{peer.port}")
    assert transcript == b"Ready.\ntel:sh> "
    assert trace[-1] == "* the server is quiet; ending the session"


async def test_telnetlib3_without_terminal_type(peers: Any) -> None:
    peer = peers["telnetlib3"]
    transcript, trace, _ = await session(
        f"telnet://{peer.host}:{peer.port}", commands=("writer",), terminal_type=None
    )
    assert "> IAC WONT TTYPE" in trace
    assert b"client-will:TTYPE" not in transcript


# -- refusals before connecting (no server needed, nothing listens on port 2) ---------------


async def test_line_break_in_user_refused() -> None:
    with pytest.raises(URLError, match="line break"):
        await session("telnet://evil%0D%0Aecho%20pwned@127.0.0.1:2/")


async def test_line_break_in_command_refused() -> None:
    with pytest.raises(URLError, match="line break"):
        await session("telnet://127.0.0.1:2/", commands=("ls\nrm -rf x",))


def test_plan() -> None:
    handler = TelnetHandler(Config())
    url = parse("telnet://joe:secret@host.example/")
    lines = handler.plan(url, FetchOptions(schemes=(TelnetOptions(commands=("uptime",)),)))
    assert lines[0] == "connect to host.example port 23"
    assert "on a 'login:' prompt: joe" in lines
    assert "on a 'Password:' prompt: ****" in lines
    assert "when the server is quiet: uptime" in lines
    assert lines[-1] == "read until the server closes or is quiet for 2 s"
    assert not any("secret" in line for line in lines)


async def test_password_echo_is_masked() -> None:
    """A careless server that echoes the password: the transcript shows ****, not it."""
    import contextlib

    import anyio
    import anyio.abc

    async def careless(client: anyio.abc.SocketStream) -> None:
        async with client:
            await client.send(b"login: ")
            line = b""
            while not line.endswith(b"\r\n"):
                line += await client.receive()
            await client.send(b"Password: ")
            secret = b""
            while not secret.endswith(b"\r\n"):
                secret += await client.receive()
            await client.send(secret + b"welcome\r\n$ ")
            with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError):
                await client.receive()  # until the client closes

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, careless)
        transcript, trace, _ = await session(f"telnet://joe:s3cret-pw@127.0.0.1:{port}/")
        tg.cancel_scope.cancel()
    assert transcript == b"login: Password: ****\nwelcome\n$ "
    assert b"s3cret" not in transcript
    assert "> ****" in trace


async def test_commands_are_typed_when_no_login_is_asked() -> None:
    """A URL with a user, a server that asks for none (RFC 1738 3.8: the user is
    advice): the commands are still typed once the server goes quiet."""
    from anyurl.schemes.telnet.loopback import TelnetServerConfig, running_telnet_server

    with running_telnet_server(TelnetServerConfig(user=None)) as server:
        transcript, trace, _ = await session(
            f"telnet://joe@127.0.0.1:{server.port}/", commands=("echo typed-anyway",))
    assert b"typed-anyway" in transcript
    assert any("no login prompt came" in line for line in trace)
