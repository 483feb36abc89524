"""The floor for many small FTP files: asyncio and raw sockets, no anyurl (issue 21).

Usage::

    python bench/ftp_floor.py                 # 2,000 x 1 KiB from the vsftpd peer
    python bench/ftp_floor.py --small 500 --repeat 5

A throwaway measurement, not a client: it starts the vsftpd peer of ``bench/run.py``,
logs in once, and fetches each file with the dialogue ``anyurl get`` uses on a
positioned control connection (EPSV -> 229, connect the data port, RETR -> 150, read
the data to EOF, 226; with ``--size``, SIZE -> 213 first, as anyurl and curl ask),
with ``loop.sock_*`` calls on non-blocking sockets and nothing else: no anyio, no
cancel scopes, no timeouts, no error mapping. Its CPU seconds per file
(``time.process_time`` of this process, servers excluded) are what any asyncio client
of this dialogue pays in Python; what anyurl spends beyond them is ours to win.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

from run import add_small_files  # bench/run.py

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


class Control:
    """A control connection read in whole chunks, split into reply lines."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sock: socket.socket):
        self.loop = loop
        self.sock = sock
        self.buffer = b""

    async def reply(self) -> tuple[int, bytes]:
        """The next reply (multi-line replies end with ``NNN `` as RFC 959 says)."""
        while True:
            end = self.buffer.find(b"\r\n")
            while end >= 0:
                line, self.buffer = self.buffer[:end], self.buffer[end + 2:]
                if len(line) >= 4 and line[:3].isdigit() and line[3:4] == b" ":
                    return int(line[:3]), line
                end = self.buffer.find(b"\r\n")
            data = await self.loop.sock_recv(self.sock, 65536)
            if not data:
                raise ConnectionError("control connection closed")
            self.buffer += data

    async def command(self, line: str) -> tuple[int, bytes]:
        await self.loop.sock_sendall(self.sock, line.encode() + b"\r\n")
        return await self.reply()


async def connect(loop: asyncio.AbstractEventLoop, host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    await loop.sock_connect(sock, (host, port))
    return sock


async def fetch_all(host: str, port: int, names: list[str], size: bool = False) -> int:
    """Log in once, fetch every name (asking its SIZE first with ``size``, as anyurl
    and curl do); the bytes received in all."""
    loop = asyncio.get_running_loop()
    control = Control(loop, await connect(loop, host, port))
    assert (await control.reply())[0] == 220
    code, _ = await control.command("USER anonymous")
    if code == 331:
        code, _ = await control.command("PASS floor@")
    assert code == 230, code
    assert (await control.command("TYPE I"))[0] == 200
    total = 0
    for name in names:
        if size:
            code, line = await control.command(f"SIZE {name}")
            assert code == 213, line
        code, line = await control.command("EPSV")
        assert code == 229, line
        data_port = int(line[line.index(b"(|||") + 4:line.rindex(b"|)")])
        data = await connect(loop, host, data_port)
        code, line = await control.command(f"RETR {name}")
        assert code in (125, 150), line
        while chunk := await loop.sock_recv(data, 122880):
            total += len(chunk)
        data.close()
        code, line = await control.reply()
        assert code == 226, line
    await control.command("QUIT")
    control.sock.close()
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--size", action="store_true",
                    help="ask SIZE before each file, as anyurl and curl do (a 4th round trip)")
    args = ap.parse_args()
    from tests.peers import launcher

    root = Path(tempfile.mkdtemp(prefix="anyurl-floor-"))
    os.chmod(root, 0o755)
    try:
        state = launcher.start(["vsftpd"], root / "peers", large_size=1 << 20,
                               log=lambda *_: None)
        add_small_files(Path(state["data_root"]), args.small, 0)
        peer = state["peers"]["vsftpd"]
        names = [f"bench/small/f{i:05d}" for i in range(args.small)]
        walls, cpus = [], []
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            total = asyncio.run(fetch_all(peer["host"], int(peer["port"]), names, args.size))
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            assert total == 1024 * len(names), total
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(f"python {sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}, "
              f"{time.strftime('%Y-%m-%d %H:%M')}: {args.small} x 1 KiB ftp from vsftpd, "
              f"asyncio + raw sockets{', SIZE first' if args.size else ''}, median of "
              f"{args.repeat}")
        print(f"wall {wall:.3f} s, CPU {cpu:.3f} s: {cpu / len(names) * 1e6:.0f} us of CPU "
              f"per file (runs: {', '.join(f'{c:.3f}' for c in cpus)} s CPU)")
    finally:
        launcher.stop(root / "peers", log=lambda *_: None)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
