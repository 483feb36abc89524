"""anyurl.schemes.telnet.loopback: the loopback telnet server, through anyurl.Resolver on both
backends.

The server is what a user's own tests would start: in their task group
(``TelnetServer.serve``) or in a thread (``running_telnet_server``).
"""

from __future__ import annotations

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
from anyurl.errors import LoginDenied
from anyurl.options import TelnetOptions
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.telnet.loopback import (
    TelnetServer,
    TelnetServerConfig,
    open_telnet_server,
    running_telnet_server,
)

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

#: Quiet seconds that end a session here (the handler's default is 2).
IDLE = 0.5


def telnet_options(trace: Any = None, **values: Any) -> FetchOptions:
    """Typed telnet options."""
    values.setdefault("idle", IDLE)
    typed = TelnetOptions(**{k: tuple(v) if k == "commands" else v for k, v in values.items()})
    return FetchOptions(trace=trace, schemes=(typed,))


async def session(port: int, url: str, **values: Any) -> tuple[str, list[str]]:
    trace: list[str] = []
    config = Config(connect_timeout=5, read_timeout=10, allowed_ports=frozenset({port}))
    async with Resolver(config, warn=lambda _: None) as resolver:
        body = await resolver.fetch(url, telnet_options(trace.append, **values))
    return body.decode("utf-8"), trace


@pytest.fixture
async def server(request: pytest.FixtureRequest) -> AsyncIterator[TelnetServer]:
    default = TelnetServerConfig(user="alice", password="s3cret")
    config = getattr(request, "param", default)
    async with open_telnet_server(config) as telnet:
        yield telnet


async def test_telnet_login_and_commands(server: TelnetServer) -> None:
    port = server.port
    text, trace = await session(port, f"telnet://alice:s3cret@127.0.0.1:{port}/",
                                commands=["echo hello $USER on $TERM", "whoami"])
    assert text.startswith("anyurl loopback telnet server\n")
    assert "login: alice\n" in text
    assert "Password: \n" in text  # not echoed
    assert "\nhello alice on DUMB\n" in text  # the command ran, the variables expanded
    assert "\nalice\n" in text
    assert "s3cret" not in text and all("s3cret" not in line for line in trace)
    assert server.received == ["alice", "****", "echo hello $USER on $TERM", "whoami"]
    # RFC 854 negotiation, both sides: we offered ECHO and SGA and asked TTYPE.
    assert "> WILL ECHO" in server.negotiation and "< DO ECHO" in server.negotiation
    assert "< WILL TTYPE" in server.negotiation and "> SB TTYPE SEND" in server.negotiation
    assert server.terminal_types == ["DUMB"]
    assert "< IAC WILL ECHO" in trace and "> IAC DO ECHO" in trace


async def test_telnet_exit_closes_the_session(server: TelnetServer) -> None:
    port = server.port
    text, _ = await session(port, f"telnet://alice:s3cret@127.0.0.1:{port}/",
                            commands=["nosuch", "exit"])
    assert "nosuch: command not found\n" in text
    assert text.rstrip().endswith("Goodbye.")


async def test_telnet_wrong_password_is_login_denied(server: TelnetServer) -> None:
    port = server.port
    with pytest.raises(LoginDenied) as info:
        await session(port, f"telnet://alice:wrong@127.0.0.1:{port}/")
    assert "Login incorrect" in str(info.value)
    assert "wrong" not in str(info.value)
    assert server.received == ["alice", "****"]


@pytest.mark.parametrize("server", [TelnetServerConfig(user="guest")], indirect=True,
                         ids=["guest"])
async def test_telnet_login_without_password(server: TelnetServer) -> None:
    port = server.port
    text, _ = await session(port, f"telnet://guest@127.0.0.1:{port}/", commands=["env"])
    assert "Password" not in text
    assert "Welcome, guest." in text
    assert "USER=guest\nTERM=DUMB\n" in text


@pytest.mark.parametrize("server", [TelnetServerConfig(ask_terminal_type=False, prompt="> ")],
                         indirect=True, ids=["no-login"])
async def test_telnet_without_login_or_terminal_type(server: TelnetServer) -> None:
    port = server.port
    text, _ = await session(port, f"telnet://127.0.0.1:{port}/", commands=["echo $TERM"])
    assert "login:" not in text
    assert "\nunknown\n" in text
    assert server.terminal_types == []
    assert "> DO TTYPE" not in server.negotiation


async def test_telnet_server_in_a_task_group() -> None:
    server = TelnetServer()
    async with anyio.create_task_group() as tg:
        port = await tg.start(server.serve)
        text, _ = await session(port, f"telnet://127.0.0.1:{port}/", commands=["help"])
        tg.cancel_scope.cancel()
    assert "commands: echo env whoami help exit" in text
    assert port == server.port


async def test_telnet_server_in_a_thread() -> None:
    with running_telnet_server(TelnetServerConfig(user="bob", password="pw")) as server:
        text, _ = await session(server.port, f"telnet://bob:pw@127.0.0.1:{server.port}/",
                                commands=["whoami"])
    assert "\nbob\n" in text
    assert server.connections == 1


def test_telnet_server_refuses_unknown_options_once() -> None:
    """A raw client: DO/WILL for options the server does not do are refused, not looped."""
    IAC, DO, WILL, WONT, DONT, NAWS, LINEMODE = 255, 253, 251, 252, 254, 31, 34
    with running_telnet_server() as server, \
            socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        # The requests, then a line: its answer comes after the server has read them all.
        sock.sendall(bytes((IAC, DO, LINEMODE, IAC, WILL, NAWS, IAC, DO, LINEMODE)))
        sock.sendall(b"echo done\r\n")
        got = b""
        deadline = time.monotonic() + 5
        while b"done\r\n$ " not in got and time.monotonic() < deadline:
            got += sock.recv(4096)
    assert got.count(bytes((IAC, WONT, LINEMODE))) == 2  # each request answered ...
    assert got.count(bytes((IAC, DONT, NAWS))) == 1
    assert "< DO LINEMODE" in server.negotiation and "> WONT LINEMODE" in server.negotiation


def test_telnet_server_runs_as_a_module() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "anyurl.schemes.telnet.loopback", "--port",
                             str(port), "--user", "u"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    got = b""
                    while b"login: " not in got:
                        got += sock.recv(4096)
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(timeout=5)
    assert b"anyurl loopback telnet server" in got


async def test_typed_login_is_reported_and_can_be_turned_off() -> None:
    """RFC 1738 3.8: the user and password are advice; anyurl says what it typed
    (password masked) and types nothing with TelnetOptions(login=False)."""
    from anyurl.schemes.telnet.loopback import running_telnet_server

    warnings: list[str] = []
    with running_telnet_server(TelnetServerConfig(user="joe", password="s3cret")) as server:
        url = f"telnet://joe:s3cret@127.0.0.1:{server.port}/"
        config = Config(connect_timeout=5, read_timeout=10,
                        allowed_ports=frozenset({server.port}))
        async with Resolver(config, warn=warnings.append) as resolver:
            await resolver.fetch(url, telnet_options())
            assert any("typed the user 'joe'" in w for w in warnings)
            assert any("typed the password (****)" in w for w in warnings)
            assert not any("s3cret" in w for w in warnings)
            warnings.clear()
            quiet = await resolver.fetch(url, telnet_options(login=False))
    assert not any("typed" in w for w in warnings)
    assert b"login:" in quiet and b"Welcome" not in quiet
