"""anyurl inside a trio application: a nursery of fetches and trio's own deadlines.

    python examples/trio_app.py

The same Resolver runs under trio unchanged (anyurl is written on anyio).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import trio

import anyurl
from anyurl.downloads.downloader import Downloader, DownloadPolicy, Job


async def main(directory: Path) -> None:
    urls = []
    for i in range(5):
        path = directory / f"file{i}.txt"
        path.write_text(f"file number {i}\n" * (i + 1))
        urls.append(path.as_uri())

    async with anyurl.Resolver() as resolver:
        # 1. A nursery of fetches; each result lands in a dict.
        sizes: dict[str, int] = {}

        async def fetch(url: str) -> None:
            sizes[url] = len(await resolver.fetch(url))

        async with trio.open_nursery() as nursery:
            for url in urls:
                nursery.start_soon(fetch, url)
        print("sizes:", sorted(sizes.values()))

        # 2. trio's deadlines bound a transfer; cancelling closes the connection.
        with trio.move_on_after(10) as scope:
            async with resolver.open(urls[-1]) as res:
                first = await res.read()
        print("cancelled" if scope.cancelled_caught else f"read {len(first)} bytes")

        # 3. The downloader: parallel, retried, into files via FILE.part.
        out = directory / "out"
        out.mkdir()
        downloader = Downloader(resolver, DownloadPolicy(parallel=3, retry=2))
        results = await downloader.run(
            [Job(url, out / url.rsplit("/", 1)[-1]) for url in urls])
        print("downloaded:", sorted(p.name for p in out.iterdir()),
              "all ok" if all(r.ok for r in results) else "with failures")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(main, Path(tmp))
