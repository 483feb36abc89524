"""anyurl inside an asyncio application: concurrent fetches, streaming, timeouts.

    python examples/asyncio_app.py

anyurl is written on anyio, so it runs in any asyncio program as it is: no thread,
no separate loop. The app below starts its own little asyncio TCP service (a stand-in
for the rest of an application) and, next to it, fetches URLs with the Resolver.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from pathlib import Path

import anyurl


async def ping_service(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """The rest of the application: answers "pong" to whatever it is sent."""
    await reader.readline()
    writer.write(b"pong\n")
    await writer.drain()
    writer.close()


async def main(directory: Path) -> None:
    (directory / "a.txt").write_text("first file\n")
    (directory / "b.bin").write_bytes(bytes(range(256)) * 4096)
    a, b = (directory / "a.txt").as_uri(), (directory / "b.bin").as_uri()

    server = await asyncio.start_server(ping_service, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]

    async with server, anyurl.Resolver() as resolver:
        # 1. Fetch whole resources while the application does other work.
        async def ping() -> bytes:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"ping\n")
            answer = await reader.readline()
            writer.close()
            return answer

        text, answer = await asyncio.gather(resolver.fetch(a), ping())
        print(f"fetched {text!r} while the service answered {answer!r}")

        # 2. Stream a large resource chunk by chunk (bounded memory).
        digest = hashlib.sha256()
        async with resolver.open(b) as res:
            print(f"{res.info.size} bytes of {res.info.content_type or 'unknown type'}")
            async for chunk in res:
                digest.update(chunk)
        print(f"sha256 {digest.hexdigest()[:16]}...")

        # 3. Many at once, as they finish; a failure is a result, not an exception.
        async for fetched in resolver.fetch_many([a, b, a + ".missing"], limit=2):
            status = f"{len(fetched.data)} bytes" if fetched.data is not None else fetched.error
            print(f"{fetched.url.rsplit('/', 1)[-1]}: {status}")

        # 4. asyncio's own timeouts and cancellation work: the connection is closed and
        #    a download leaves no file under its final name.
        target = directory / "copy.bin"
        try:
            async with asyncio.timeout(10):
                result = await resolver.download(b, target)
            print(f"downloaded {result.bytes} bytes to {target.name}")
        except TimeoutError:
            print("timed out; no file left behind:", not target.exists())


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp)))
