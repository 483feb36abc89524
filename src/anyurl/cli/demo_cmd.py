"""``anyurl demo``: start loopback servers and fetch one URL of every scheme.

Each server of :mod:`anyurl.testing` runs as its own process on 127.0.0.1 on a free
port (``python -m anyurl.testing.<protocol>``), serving a small data set made in a
temporary directory; the demo then resolves one URL per scheme through the same
:class:`~anyurl.Resolver` that ``anyurl get`` uses and prints what came back. Every
process it started is stopped at the end, whatever happened.
"""

from __future__ import annotations

import argparse
import importlib.util
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from anyurl.cli.common import error_text, escape_controls
from anyurl.config import Config
from anyurl.errors import AnyURLError
from anyurl.options import MailtoOptions, SchemeOptions, TelnetOptions
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions

__all__ = ["add_parser", "run"]


@dataclass
class Server:
    """A loopback server process; ``argv`` may use ``{port}`` and ``{data}``."""

    argv: tuple[str, ...]
    udp: bool = False
    requires: tuple[str, ...] = ()


def _module(module: str, *args: str, udp: bool = False, requires: tuple[str, ...] = ()) -> Server:
    return Server(("-m", module, "--host", "127.0.0.1", "--port", "{port}", *args), udp,
                  (module, *requires))


@dataclass
class Case:
    """One demonstrated URL: its scheme, the server it needs, what to ask for."""

    scheme: str
    url: str
    server: str | None = None
    what: str = ""
    options: tuple[SchemeOptions, ...] = ()
    config: Callable[[dict[str, int]], dict[str, Any]] | None = None


SERVERS: dict[str, Server] = {
    "http": _module("anyurl.testing.http", "--root", "{data}"),
    "ftp": _module("anyurl.testing.ftp", "--root", "{data}", requires=("pyftpdlib",)),
    "gopher": _module("anyurl.testing.gopherplus", "--root", "{data}"),
    "nntp": _module("anyurl.testing.nntp"),
    "wais": _module("anyurl.testing.wais"),
    "prospero": _module("anyurl.testing.prospero", udp=True),
    "telnet": _module("anyurl.testing.telnet", "--user", "demo"),
    "smtp": _module("anyurl.testing.smtp"),
}

CASES: list[Case] = [
    Case("file", "file://{data}/hello.txt", what="a local file"),
    Case("http", "http://127.0.0.1:{http}/hello.txt", "http", "GET over h11"),
    Case("ftp", "ftp://127.0.0.1:{ftp}/pub/readme.txt", "ftp",
         "USER anonymous, CWD pub, TYPE I, RETR readme.txt"),
    Case("ftp", "ftp://127.0.0.1:{ftp}/pub;type=d", "ftp", "a directory listing (NLST)"),
    Case("gopher", "gopher://127.0.0.1:{gopher}/", "gopher", "the root menu, as text"),
    Case("gopher", "gopher://127.0.0.1:{gopher}/7/search%09hello", "gopher",
         "a type-7 search for 'hello'"),
    Case("gopher", "gopher://127.0.0.1:{gopher}/0/hello.txt%09%09!", "gopher",
         "Gopher+ attributes of an item (!)"),
    Case("news", "news:article2@anyurl.test", "nntp", "ARTICLE <article2@anyurl.test>",
         config=lambda ports: {"nntp_server": f"127.0.0.1:{ports['nntp']}"}),
    Case("nntp", "nntp://127.0.0.1:{nntp}/anyurl.test/2", "nntp",
         "GROUP anyurl.test, ARTICLE 2 (a dot-stuffed body)"),
    Case("wais", "wais://127.0.0.1:{wais}/demo?gopher", "wais",
         "a Z39.50 search of the 'demo' database"),
    Case("prospero", "prospero://127.0.0.1:{prospero}//pub/README", "prospero",
         "GET-OBJECT-INFO over ARDP/UDP: access methods as URLs"),
    Case("telnet", "telnet://demo@127.0.0.1:{telnet}/", "telnet",
         "login as demo (RFC 1738's advice), type a command, the transcript until quiet",
         (TelnetOptions(idle=1.0, commands=("echo hello from anyurl",)),)),
    Case("mailto", "mailto:demo@example.org", "smtp", "a message submitted over SMTP",
         (MailtoOptions(subject="anyurl demo", body=b"Sent by anyurl demo.\n"),),
         config=lambda ports: {"smtp_relay": f"127.0.0.1:{ports['smtp']}",
                               "mail_from": "demo@anyurl.test"}),
]

SAMPLE = {
    "hello.txt": b"Hello from anyurl: this line came through the scheme's own protocol.\n",
    "pub/readme.txt": b"The pub directory of the anyurl demo.\nSecond line.\n",
    "pub/with space.txt": b"A file whose name has a space.\n",
}


def add_parser(sub: Any) -> None:
    """Add ``anyurl demo`` to the subcommands."""
    p = sub.add_parser(
        "demo",
        help="start loopback servers and fetch one URL of every scheme",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    p.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio",
                   help="the async library to run on")
    p.set_defaults(func=run)


def _free_port(udp: bool) -> int:
    kind = socket.SOCK_DGRAM if udp else socket.SOCK_STREAM
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"not listening on port {port} after {timeout:g} seconds")


def _missing(server: Server) -> str | None:
    for name in server.requires:
        if importlib.util.find_spec(name) is None:
            return f"{name} is not installed (pip install 'anyurl[demo]')"
    return None


def _start(name: str, server: Server, data: Path, stack: ExitStack) -> int:
    port = _free_port(server.udp)
    argv = [a.format(data=data, port=port) for a in server.argv]
    proc = subprocess.Popen(
        [sys.executable, *argv],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )

    def stop() -> None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    stack.callback(stop)
    if server.udp:
        time.sleep(0.3)
        if proc.poll() is not None:
            raise RuntimeError(f"exited with status {proc.returncode}")
    else:
        _wait_listening(port, proc)
    return port


def _summary(body: bytes, width: int = 72) -> list[str]:
    text = body.decode("utf-8", "replace").replace("\r\n", "\n")
    lines = [ln for ln in text.split("\n") if ln.strip()][:3]
    return [ln if len(ln) <= width else ln[: width - 3] + "..." for ln in lines]


async def _fetch_all(cases: list[tuple[Case, str]], config: Config) -> int:
    status = 0
    async with Resolver(config, warn=lambda message: None) as resolver:
        for case, url in cases:
            print(f"\n{case.scheme:8} {url}")
            if case.what:
                print(f"{'':8} ({case.what})")
            opts = FetchOptions(schemes=case.options)
            started = time.monotonic()
            try:
                body = await resolver.fetch(url, opts)
            except AnyURLError as exc:
                print(escape_controls(
                    f"{'':8} FAILED (exit {exc.exit_code}): {error_text(exc)}"))
                status = status or exc.exit_code
                continue
            ms = (time.monotonic() - started) * 1000
            print(f"{'':8} {len(body)} bytes in {ms:.0f} ms:")
            for line in _summary(body):
                print(f"{'':10}| {line}")
    return status


def run(args: argparse.Namespace) -> int:
    """``anyurl demo``: start the loopback servers, fetch a URL of every scheme, stop them."""
    with ExitStack() as stack:
        data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="anyurl-demo-")))
        for rel, content in SAMPLE.items():
            (data / rel).parent.mkdir(parents=True, exist_ok=True)
            (data / rel).write_bytes(content)
        ports: dict[str, int] = {}
        skipped: dict[str, str] = {}
        print("anyurl demo: starting loopback servers on 127.0.0.1 ...")
        for name, server in SERVERS.items():
            reason = _missing(server)
            if reason is None:
                try:
                    ports[name] = _start(name, server, data, stack)
                    print(f"  {name:9} port {ports[name]}")
                    continue
                except RuntimeError as exc:
                    reason = f"server {' '.join(server.argv[:2])} failed: {exc}"
            skipped[name] = reason
            print(f"  {name:9} not started: {reason}")
        settings: dict[str, Any] = {"allowed_ports": frozenset(ports.values()),
                                    "connect_timeout": 10.0, "read_timeout": 10.0}
        runnable: list[tuple[Case, str]] = []
        for case in CASES:
            if case.server is not None and case.server not in ports:
                print(f"\n{case.scheme:8} skipped: {skipped.get(case.server, 'no server')}")
                continue
            if case.config is not None:
                settings.update(case.config(ports))
            runnable.append((case, case.url.format(data=data, **ports)))
        config = Config().replace(**settings)
        status: int = anyio.run(_fetch_all, runnable, config, backend=args.backend)
        done = len(runnable)
        print(f"\nanyurl demo: {done} URLs of {len({c.scheme for c, _ in runnable})} schemes "
              f"fetched{' with failures' if status else ''}; servers stopped.")
        if skipped:
            print(f"not demonstrated: {', '.join(sorted(skipped))}")
        return status
