"""``anyurl demo``: start loopback servers and fetch one URL of every scheme.

Each scheme's loopback server (its descriptor's ``demo`` cases name it) runs as its own
process on 127.0.0.1 on a free port (``python -m anyurl.schemes.<name>.loopback``, or a
plug-in's own module), serving a small data set made in a
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
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio

from anyurl.cli.common import error_text, escape_controls
from anyurl.config import Config
from anyurl.errors import AnyURLError
from anyurl.registry import specs
from anyurl.registry.spec import DemoCase, DemoServer
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions

__all__ = ["add_parser", "run"]


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


def _server_name(server: DemoServer) -> str:
    """The module's last name; a scheme's ``<package>.loopback`` is named by its package."""
    return server.module.removesuffix(".loopback").rsplit(".", 1)[-1]


def _missing(server: DemoServer) -> str | None:
    for name in (server.module, *server.requires):
        if importlib.util.find_spec(name) is None:
            return f"{name} is not installed (pip install 'anyurl[demo]')"
    return None


def _start(server: DemoServer, data: Path, stack: ExitStack) -> int:
    port = _free_port(server.udp)
    argv = ["-m", server.module, "--host", "127.0.0.1", "--port", str(port),
            *(a.format(data=data, port=port) for a in server.args)]
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


async def _fetch_all(cases: list[tuple[DemoCase, str]], config: Config) -> int:
    status = 0
    async with Resolver(config, warn=lambda message: None) as resolver:
        for case, url in cases:
            print(f"\n{_scheme(url):8} {url}")
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


def _scheme(url: str) -> str:
    return url.partition(":")[0]


def _cases() -> list[DemoCase]:
    """What each scheme's descriptor shows, built-in and plug-in, in the registry's order."""
    return [case for spec in specs() for case in spec.demo]


def run(args: argparse.Namespace) -> int:
    """``anyurl demo``: start the loopback servers, fetch a URL of every scheme, stop them."""
    with ExitStack() as stack:
        data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="anyurl-demo-")))
        for rel, content in SAMPLE.items():
            (data / rel).parent.mkdir(parents=True, exist_ok=True)
            (data / rel).write_bytes(content)
        cases = _cases()
        servers = list(dict.fromkeys(c.server for c in cases if c.server is not None))
        ports: dict[DemoServer, int] = {}
        skipped: dict[DemoServer, str] = {}
        print("anyurl demo: starting loopback servers on 127.0.0.1 ...")
        for server in servers:
            name = _server_name(server)
            reason = _missing(server)
            if reason is None:
                try:
                    ports[server] = _start(server, data, stack)
                    print(f"  {name:9} port {ports[server]}")
                    continue
                except RuntimeError as exc:
                    reason = f"server {server.module} failed: {exc}"
            skipped[server] = reason
            print(f"  {name:9} not started: {reason}")
        settings: dict[str, Any] = {"allowed_ports": frozenset(ports.values()),
                                    "connect_timeout": 10.0, "read_timeout": 10.0}
        runnable: list[tuple[DemoCase, str]] = []
        for case in cases:
            port = ports.get(case.server) if case.server is not None else None
            if case.server is not None and port is None:
                reason = skipped.get(case.server, "no server")
                print(f"\n{_scheme(case.url):8} skipped: {reason}")
                continue
            if case.config is not None and port is not None:
                settings.update(case.config(port))
            runnable.append((case, case.url.format(data=data, port=port)))
        config = Config().replace(**settings)
        status: int = anyio.run(_fetch_all, runnable, config, backend=args.backend)
        done = len(runnable)
        print(f"\nanyurl demo: {done} URLs of {len({_scheme(u) for _, u in runnable})} schemes "
              f"fetched{' with failures' if status else ''}; servers stopped.")
        if skipped:
            print(f"not demonstrated: {', '.join(sorted(map(_server_name, skipped)))}")
        return status
