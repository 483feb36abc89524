"""NNTP pipelining: many articles of one group, one at a time against pipelined.

Usage::

    python bench/nntp_pipeline.py                      # 500 articles, loopback, no delay
    python bench/nntp_pipeline.py --delay-ms 10        # through a relay: 20 ms round trip
    python bench/nntp_pipeline.py --server 127.0.0.1:1190 --group anyurl.test  # leafnode...

It starts the loopback NNTP server (``python -m anyurl.schemes.news.loopback --articles N``, 1 KiB
articles) in a process of its own unless ``--server`` names one, and with ``--delay-ms D``
a userspace relay (another process; netem is not available here) that holds every chunk
D ms in each direction, so a round trip costs 2 D more. In this process it then fetches
articles 1..N of the group, reading each body, three ways:

* ``per-URL``: ``Resolver.fetch`` of each URL in turn, as ``anyurl get`` of many URLs does
  today: a connection, greeting, CAPABILITIES, GROUP, ARTICLE and QUIT per article
  (``--per-url-count`` of them only: at a 20 ms round trip this costs ~0.1 s each);
* ``one-at-a-time``: ``NewsHandler.open_batch`` on one connection with pipelining off
  (the handler's memory of a server that mis-answers): one round trip per article;
* ``pipelined``: ``open_batch`` as it is: up to ``MAX_DEPTH`` ARTICLE commands in flight.

For each it prints wall time, CPU time of this process (user + system: the client only;
the server and relay run elsewhere) and articles per second, best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

import anyio  # noqa: E402

from anyurl import Resolver  # noqa: E402
from anyurl.config import Config  # noqa: E402
from anyurl.schemes.base import FetchOptions  # noqa: E402
from anyurl.schemes.news.handler import NewsHandler  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(port: int) -> None:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port}")


# -- the measurements -----------------------------------------------------------------------


async def per_url(resolver: Resolver, urls: list[str]) -> int:
    total = 0
    for url in urls:
        total += len(await resolver.fetch(url))
    return total


async def batched(resolver: Resolver, urls: list[str], pipelined: bool) -> int:
    admitted = [resolver.admit(u) for u in urls]
    handler = resolver.handler_for(admitted[0])
    assert isinstance(handler, NewsHandler)
    key = (admitted[0].connect_host, admitted[0].effective_port or 119)
    if not pipelined:
        handler._serial.add(key)  # what a mis-answering server gets
    total = 0
    async for _url, outcome in handler.open_batch(admitted, FetchOptions()):
        if isinstance(outcome, Exception):
            raise outcome
        total += len(await outcome.read())
    return total


def measure(how: str, hostport: str, port: int, urls: list[str], repeat: int,
            backend: str) -> tuple[float, float, int]:
    best: tuple[float, float, int] | None = None
    for _ in range(repeat):
        async def run() -> int:
            async with Resolver(Config(allowed_ports=frozenset({port}))) as r:
                if how == "per-URL":
                    return await per_url(r, urls)
                return await batched(r, urls, how == "pipelined")

        cpu0, wall0 = time.process_time(), time.perf_counter()
        size = anyio.run(run, backend=backend)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        if best is None or wall < best[0]:
            best = (wall, cpu, size)
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--per-url-count", type=int, default=None,
                        help="how many URLs the per-URL row fetches (default: --count, "
                        "or 50 with a delay)")
    parser.add_argument("--delay-ms", type=float, default=0.0,
                        help="delay each direction by this much (round trip: twice)")
    parser.add_argument("--server", help="host:port of a news server (default: loopback)")
    parser.add_argument("--group", default="anyurl.test")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backend", default="asyncio", choices=["asyncio", "trio"])
    args = parser.parse_args()
    children: list[subprocess.Popen[bytes]] = []
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    try:
        if args.server:
            host, _, port_text = args.server.rpartition(":")
            port = int(port_text)
        else:
            host, port = "127.0.0.1", free_port()
            children.append(subprocess.Popen(
                [sys.executable, "-m", "anyurl.schemes.news.loopback", "--port", str(port),
                 "--articles", str(args.count)], env=env))
            wait_for(port)
        if args.delay_ms:
            relay = free_port()
            children.append(subprocess.Popen(  # bench/relay.py, as bench/run.py uses it
                [sys.executable, str(Path(__file__).with_name("relay.py")), str(relay),
                 host, str(port), str(args.delay_ms)], env=env))
            wait_for(relay)
            host, port = "127.0.0.1", relay
        base = f"nntp://{host}:{port}/{args.group}"
        urls = [f"{base}/{n}" for n in range(1, args.count + 1)]
        per_url_count = args.per_url_count or (50 if args.delay_ms else args.count)
        print(f"{args.count} articles of {args.group} from {args.server or 'the loopback server'}"
              f", {2 * args.delay_ms:g} ms added round trip, {args.backend}, best of "
              f"{args.repeat}")
        print(f"{'how':<15} {'URLs':>5} {'wall s':>8} {'CPU s':>7} {'articles/s':>11} "
              f"{'ms/article':>11}")
        for how in ("per-URL", "one-at-a-time", "pipelined"):
            chosen = urls[:per_url_count] if how == "per-URL" else urls
            wall, cpu, size = measure(how, host, port, chosen, args.repeat, args.backend)
            print(f"{how:<15} {len(chosen):>5} {wall:>8.3f} {cpu:>7.3f} "
                  f"{len(chosen) / wall:>11.0f} {1000 * wall / len(chosen):>11.2f}"
                  f"   ({size} bytes)")
    finally:
        for child in children:
            child.terminate()
            child.wait()


if __name__ == "__main__":
    main()
