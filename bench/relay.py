"""A userspace relay that delays each direction by a fixed time (netem is not available
on these machines): the latency rows of ``bench/run.py`` (issue 21).

Usage::

    python bench/relay.py LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS [COUNT_FILE]

Every connection to 127.0.0.1:LISTEN_PORT is relayed to TARGET_HOST:TARGET_PORT, each
chunk held DELAY_MS in each direction (a round trip of twice that), in order. With
COUNT_FILE the number of connections accepted so far is written there after each one,
so a benchmark can say how many connections a client used.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                delay: float) -> None:
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def pump() -> None:
        while True:
            due, data = await queue.get()
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    task = asyncio.create_task(pump())
    while True:
        data = await reader.read(65536)
        queue.put_nowait((time.monotonic() + delay, data))
        if not data:
            break
    await task


async def relay(listen: int, host: str, port: int, delay_ms: float,
                count_file: Path | None = None) -> None:
    """Serve the relay until killed."""
    delay = delay_ms / 1000
    accepted = 0

    async def handle(cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        if count_file is not None:
            count_file.write_text(str(accepted))
        sr, sw = await asyncio.open_connection(host, port)
        try:
            await asyncio.gather(_pipe(cr, sw, delay), _pipe(sr, cw, delay))
        except (ConnectionError, OSError):
            pass
        finally:
            cw.close()
            sw.close()

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    listen, host, port, delay = sys.argv[1:5]
    count = Path(sys.argv[5]) if len(sys.argv) > 5 else None
    asyncio.run(relay(int(listen), host, int(port), float(delay), count))
