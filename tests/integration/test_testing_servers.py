"""anyurl.testing's command lines and run forms, shared through anyurl.testing._server.

Every loopback server runs as ``python -m anyurl.schemes.<scheme>.loopback --host H --port
N``, ``python -m anyurl.schemes.<scheme>.<module> ...`` or ``python -m
anyurl.testing.<module> ...`` (how ``anyurl demo``, tests/peers and docker start them): it
answers on the port it was given, every one on anyio takes ``--backend``, and Ctrl-C
ends it with status 0 and no traceback. The session servers (NNTP, SMTP, telnet) each
run in a task group or a thread of their own in the same way.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from anyurl.schemes.news.loopback import NNTPServer

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Module:
    """A module's extra arguments, what a client sends first and what it reads back."""

    name: str
    args: tuple[str, ...] = ()
    send: bytes = b""
    expect: bytes = b""
    #: The line the module prints once it listens (None: it prints nothing).
    ready: str | None = None
    #: A UDP server (the port to find free is a UDP one).
    udp: bool = False

    @property
    def module(self) -> str:
        """The module ``python -m`` runs: a scheme's loopback server, or a testing one."""
        return self.name if "." in self.name else f"anyurl.testing.{self.name}"

    @property
    def id(self) -> str:
        """The test's id: the scheme, or the testing module's name."""
        return self.name.removesuffix(".loopback").rsplit(".", 1)[-1]


def _loopback(scheme: str) -> str:
    return f"anyurl.schemes.{scheme}.loopback"


ANYIO = [
    Module(_loopback("http"), ("--root", "{root}"), b"HEAD / HTTP/1.0\r\n\r\n", b"HTTP/1.1 200 "),
    Module(_loopback("news"), (), b"", b"200 anyurl loopback NNTP server ready"),
    Module(_loopback("mailto"), (), b"", b"220 anyurl.test "),
    Module(_loopback("telnet"), ("--user", "u"), b"", bytes((255, 251, 1))),  # IAC WILL ECHO
    Module(_loopback("gopher"), (), b"/hello.txt\r\n", b"Hello from the anyurl Gopher+",
           "gopherplus listening on 127.0.0.1:{port}"),
    Module(_loopback("wais"), (), b"", b"", "wais listening on 127.0.0.1:{port} (database demo)"),
    Module(_loopback("prospero"), (), b"", b"", "prospero listening on udp 127.0.0.1:{port}",
           udp=True),
]
THREADS = [
    Module(_loopback("ftp"), ("--root", "{root}"), b"", b"220 anyurl demo FTP"),
    Module("anyurl.schemes.http.gateway", (), b"GET wais://h/db HTTP/1.1\r\nHost: h\r\n\r\n",
           b"HTTP/1.1 200 "),
    Module("hostile", ("http-lying-length",), b"GET / HTTP/1.1\r\n\r\n", b"HTTP/1.1 200 OK",
           "http-lying-length: http://127.0.0.1:{port}/file"),
]


def _free_port(udp: bool) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM if udp else socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answer(port: int, send: bytes, expect: bytes) -> bytes:
    """What the server on ``port`` answers to ``send``, once it accepts connections."""
    deadline = time.monotonic() + 20
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            break
        except ConnectionRefusedError:
            assert time.monotonic() < deadline, f"nothing listens on {port}"
            time.sleep(0.05)
    with sock:
        sock.sendall(send)
        got = b""
        while len(got) < len(expect) and (more := sock.recv(4096)):
            got += more
    return got


def _run(module: Module, extra: tuple[str, ...], tmp_path: Path) -> None:
    """Start the module, check that it serves, interrupt it, check that it ends quietly."""
    port = _free_port(module.udp)
    args = [a.format(root=tmp_path) for a in module.args]
    proc = subprocess.Popen(
        [sys.executable, "-m", module.module, "--host", "127.0.0.1",
         "--port", str(port), *args, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        if module.ready is not None:
            assert proc.stdout.readline().rstrip("\n") == module.ready.format(port=port)
        if module.expect:  # (a connection that comes as the server stops makes asyncio
            # 3.11 log an InvalidStateError from _sock_accept: wait for an answer first)
            assert _answer(port, module.send, module.expect).startswith(module.expect)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err
    assert proc.returncode == 0, err


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("module", ANYIO, ids=lambda m: m.id)
def test_anyio_module_serves_on_either_backend_and_ends_quietly(
    module: Module, backend: str, tmp_path: Path
) -> None:
    _run(module, ("--backend", backend), tmp_path)


@pytest.mark.parametrize("module", THREADS, ids=lambda m: m.id)
def test_thread_module_serves_and_ends_quietly(module: Module, tmp_path: Path) -> None:
    _run(module, (), tmp_path)


async def _greeting(port: int) -> bytes:
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        return await stream.receive()


@pytest.mark.anyio
async def test_nntp_server_opens_in_the_callers_event_loop() -> None:
    async with NNTPServer().open() as server:
        assert (await _greeting(server.port)).startswith(b"200 ")
        assert (await _greeting(server.port)).startswith(b"200 ")
    assert server.connections == 2


@pytest.mark.anyio
async def test_nntp_server_runs_in_a_thread() -> None:
    with NNTPServer().running() as server:
        assert (await _greeting(server.port)).startswith(b"200 ")
    assert server.connections == 1
