"""The sample data every peer serves, and what tests should expect of it.

One data root is built per run (`build_data_root`) and served by the FTP, HTTP and Gopher peers;
leafnode gets the news articles of `NEWS_ARTICLES`. Every byte is deterministic: a test recomputes
what a file holds with `expected_bytes`/`large_file_chunks` instead of trusting the server.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

DEFAULT_LARGE_SIZE = 16 * 1024 * 1024
LARGE_NAME = "large.dat"
MANY_COUNT = 200

HELLO_TEXT = b"Hello from the anyurl test peers.\nThis file has two lines and no CR.\n"

# Gopher+: pygopherd adds "<name>.abstract" as the +ABSTRACT block and "<name>.ask" as the +ASK
# block of "<name>" (and hides both from menus).
GOPHERPLUS_FILES: dict[str, bytes] = {
    "gopherplus/about.txt": b"A document with a Gopher+ abstract.\n",
    "gopherplus/about.txt.abstract": b"The abstract of about.txt, served as +ABSTRACT.\n",
    "gopherplus/survey.txt": b"Submit the form to read this.\n",
    "gopherplus/survey.txt.ask": (
        b"Ask: What is your name?\n"
        b"Choose: Pick a scheme\tgopher\tftp\tnews\n"
    ),
}


def _pattern_block() -> bytes:
    """1 MiB of sha256-counter output: the unit the large file repeats."""
    out = bytearray()
    counter = 0
    while len(out) < 1024 * 1024:
        out += hashlib.sha256(b"anyurl-large-%d" % counter).digest()
        counter += 1
    return bytes(out)


_BLOCK: bytes | None = None


def large_file_chunks(size: int) -> Iterator[bytes]:
    """The content of the large file of `size` bytes, in chunks of at most 1 MiB."""
    global _BLOCK
    if _BLOCK is None:
        _BLOCK = _pattern_block()
    remaining = size
    while remaining > 0:
        chunk = _BLOCK if remaining >= len(_BLOCK) else _BLOCK[:remaining]
        remaining -= len(chunk)
        yield chunk


def small_files() -> dict[str, bytes]:
    """Every file of the data root but the large one: relative path -> content."""
    files: dict[str, bytes] = {
        "hello.txt": HELLO_TEXT,
        "bin1k.dat": bytes((i * 7 + 3) % 256 for i in range(1024)),
        "pub/readme.txt": b"The pub directory.\n",
        "pub/nested/deeper/file.txt": b"Three levels down.\n",
        "pub/with space.txt": b"A name with a space.\n",
        "pub/semi;colon.txt": b"A name with a semicolon.\n",
        "pub/per%cent.txt": b"A name with a percent sign.\n",
    }
    for i in range(MANY_COUNT):
        files[f"many/file{i:03d}.txt"] = b"small file %03d\n" % i
    files.update(GOPHERPLUS_FILES)
    return files


def large_size_from_env() -> int:
    return int(os.environ.get("ANYURL_PEERS_LARGE_SIZE", DEFAULT_LARGE_SIZE))


def large_sha256(size: int) -> str:
    digest = hashlib.sha256()
    for chunk in large_file_chunks(size):
        digest.update(chunk)
    return digest.hexdigest()


def manifest(large_size: int) -> dict[str, dict[str, object]]:
    """relative path -> {"size", "sha256"} for every file of the data root."""
    result: dict[str, dict[str, object]] = {
        path: {"size": len(content), "sha256": hashlib.sha256(content).hexdigest()}
        for path, content in small_files().items()
    }
    result[LARGE_NAME] = {"size": large_size, "sha256": large_sha256(large_size)}
    return result


def expected_bytes(path: str) -> bytes:
    """The content of a small file of the data root (not the large one)."""
    return small_files()[path]


def build_data_root(root: Path, large_size: int) -> None:
    """Write the sample data under `root`, world-readable (the servers drop to other users)."""
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    for rel, content in small_files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    with open(root / LARGE_NAME, "wb") as f:
        for chunk in large_file_chunks(large_size):
            f.write(chunk)
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)


# The news group's articles (LF line ends on disk, as leafnode stores them). Article 2's body has
# lines starting with "." so that dot-stuffing is exercised.
NEWS_ARTICLES: tuple[tuple[str, bytes], ...] = (
    ("First article", b"The first article of anyurl.test.\n"),
    ("Dots", b"A body with dots:\n.a line starting with a dot\n..two dots\n.\nend\n"),
    ("Third article", b"The third and last article.\n"),
)


def news_message_id(number: int) -> str:
    return f"<article{number}@anyurl.test>"


def news_article(group: str, fqdn: str, number: int) -> bytes:
    """The stored text of article `number` (1-based): headers, a blank line, the body."""
    subject, body = NEWS_ARTICLES[number - 1]
    lines = body.count(b"\n")
    headers = (
        f"Path: {fqdn}!not-for-mail\n"
        f"From: Anyurl Tests <tests@anyurl-tests.internal>\n"
        f"Newsgroups: {group}\n"
        f"Subject: {subject}\n"
        f"Date: Sat, 01 Jan 2000 00:00:{number:02d} +0000\n"
        f"Message-ID: {news_message_id(number)}\n"
        # texpire deletes articles without an Xref line for their group.
        f"Xref: {fqdn} {group}:{number}\n"
        f"Lines: {lines}\n"
    )
    return headers.encode() + b"\n" + body
