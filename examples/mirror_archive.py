"""Mirror a small site into a directory and a WARC file, then read the archive back.

    python examples/mirror_archive.py          # a site it serves itself on 127.0.0.1

WARC needs warcio: ``pip install 'anyurl[warc]'``.

The crawl is anyurl.mirror.Mirror (what ``anyurl mirror --warc`` runs): the pages' links
are read by the HTTP handler's HTML parser, the files land in a tree that mirrors the
URLs with a manifest, and every response is recorded with warcio (robots.txt's 404 too:
its request and response are two of the 11 records).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import anyio
from warcio.archiveiterator import ArchiveIterator

from anyurl import Resolver
from anyurl.mirror import Mirror, MirrorOptions
from anyurl.schemes.http.loopback import serve_http


def make_site(root: Path) -> None:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.html").write_text(
        '<html><a href="intro.txt">intro</a> <a href="guide/">guide</a></html>')
    (root / "docs" / "intro.txt").write_text("Read me first.\n")
    (root / "docs" / "guide").mkdir()
    (root / "docs" / "guide" / "index.html").write_text(
        '<html><a href="step1.txt">1</a> <a href="../intro.txt">back</a></html>')
    (root / "docs" / "guide" / "step1.txt").write_text("Step one.\n")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        site, out = Path(tmp) / "site", Path(tmp) / "mirror"
        make_site(site)
        async with anyio.create_task_group() as tg:
            port = await tg.start(serve_http, site)
            options = MirrorOptions(root=out, warc=out / "site.warc.gz", wait=0.0)
            async with Resolver() as resolver:
                summary = await Mirror(resolver, options).run(
                    [f"http://127.0.0.1:{port}/docs/"])
            tg.cancel_scope.cancel()
        print(f"{summary.done} done, {summary.failed} failed, {summary.bytes} bytes")
        for line in (out / "manifest.jsonl").read_text().splitlines():
            entry = json.loads(line)
            print(f"  {entry['file']}  {entry['size']} bytes  sha256 {entry['sha256'][:12]}")
        with open(out / "site.warc.gz", "rb") as f:
            kinds = [record.rec_type for record in ArchiveIterator(f)]
        print(f"WARC records: {', '.join(sorted(set(kinds)))} ({len(kinds)} in all)")


if __name__ == "__main__":
    anyio.run(main)
