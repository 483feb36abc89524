"""The listing a mirror asks of a server without ``MLSD`` (issue 30): ``LIST -a``, plain
``LIST`` where ``-a`` is refused, ``NLST`` where the ``LIST`` format is not one anyurl reads.

pyftpdlib, told to be such servers: without ``MLSD``/``MLST``, and (1) refusing an
``ls`` option as a file that does not exist, as some servers do with ``-a``, or (2)
writing its ``LIST`` in EPLF (``+i...,m...,r,s5,\\tname``), a format anyurl does not read.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.integration.test_mirror_refresh import run_mirror

pytestmark = [pytest.mark.integration]

pyftpdlib = pytest.importorskip("pyftpdlib")

from pyftpdlib.authorizers import DummyAuthorizer  # noqa: E402
from pyftpdlib.filesystems import AbstractedFS  # noqa: E402
from pyftpdlib.handlers import FTPHandler  # noqa: E402
from pyftpdlib.servers import FTPServer  # noqa: E402

OLD = 1_577_923_200  # 2020-01-02 00:00 UTC


class _NoMLSD(FTPHandler):  # type: ignore[misc]
    proto_cmds: ClassVar[dict[str, Any]] = {
        k: v for k, v in FTPHandler.proto_cmds.items() if k not in ("MLSD", "MLST")}


class _RefusesListA(_NoMLSD):
    def pre_process_command(self, line: str, cmd: str, arg: str) -> Any:
        if cmd == "LIST" and arg.startswith("-"):
            self.respond(f"550 {arg}: No such file or directory.")
            return None
        return super().pre_process_command(line, cmd, arg)


class _EPLF(AbstractedFS):  # type: ignore[misc]
    def format_list(self, basedir: str, listing: list[str],
                    ignore_err: bool = True) -> Iterator[bytes]:
        for name in listing:
            stat = os.lstat(os.path.join(basedir, name))
            kind = "/" if os.path.isdir(os.path.join(basedir, name)) else "r"
            yield f"+i{stat.st_ino},m{int(stat.st_mtime)},{kind},s{stat.st_size},\t{name}\r\n" \
                .encode()


class _WritesEPLF(_NoMLSD):
    abstracted_fs = _EPLF


@contextmanager
def _serving(root: Path, handler: type[FTPHandler]) -> Iterator[str]:
    logging.getLogger("pyftpdlib").setLevel(logging.WARNING)
    authorizer = DummyAuthorizer()
    authorizer.add_anonymous(os.fspath(root))
    kind = type("Handler", (handler,), {"authorizer": authorizer})
    server = FTPServer(("127.0.0.1", 0), kind)
    thread = threading.Thread(target=server.serve_forever, kwargs={"handle_exit": False},
                              daemon=True)
    thread.start()
    try:
        yield f"ftp://127.0.0.1:{server.address[1]}/"
    finally:
        server.close_all()
        thread.join(timeout=5)


def _tree(root: Path) -> None:
    for name, blob in {"a.txt": b"a\n", "sub/b.txt": b"bb\n"}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob)
        os.utime(path, (OLD, OLD))


def _lines(stderr: str, verb: str) -> list[str]:
    return re.findall(rf"^> ({verb}.*)$", stderr, re.MULTILINE)


def test_list_a_refused_is_asked_as_list(tmp_path: Path) -> None:
    _tree(tmp_path / "srv")
    with _serving(tmp_path / "srv", _RefusesListA) as url:
        done = run_mirror("-v", "--per-host", "1", "-o", str(tmp_path / "out"), url)
    assert done.returncode == 0, done.stderr[-3000:]
    # -a once, refused; then plain LIST on that connection, for both directories
    assert _lines(done.stderr, "LIST") == ["LIST -a", "LIST", "LIST"]
    assert _lines(done.stderr, "SIZE") == [] and _lines(done.stderr, "NLST") == []
    saved = next((tmp_path / "out" / "ftp").iterdir())
    assert (saved / "sub" / "b.txt").read_bytes() == b"bb\n"
    assert (saved / "a.txt").stat().st_mtime == OLD  # the LIST line's time


def test_a_list_format_not_read_is_listed_again_with_nlst(tmp_path: Path) -> None:
    _tree(tmp_path / "srv")
    with _serving(tmp_path / "srv", _WritesEPLF) as url:
        done = run_mirror("-v", "-o", str(tmp_path / "out"), url)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "cannot read this LIST format: listing with NLST" in done.stderr
    listed = _lines(done.stderr, "(?:LIST|NLST)")
    assert listed.count("LIST -a") == 2 and listed.count("NLST") == 2  # no plain LIST
    assert "LIST" not in listed
    saved = next((tmp_path / "out" / "ftp").iterdir())
    # NLST names only: the directory is found by fetching its name (a RETR refused)
    assert (saved / "a.txt").read_bytes() == b"a\n"
    assert (saved / "sub" / "b.txt").read_bytes() == b"bb\n"
