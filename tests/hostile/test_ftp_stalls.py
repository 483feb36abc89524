"""An FTP server that stops answering between the replies of one file, on both backends.

The control connection's replies are awaited by the reader of schemes/ftp/reader.py
(on asyncio one registration and one timer per connection, not a deadline per
receive): the read timeout must still end a wait for RETR's 150, or for the 226 after
the data, with exit 28, one line naming the URL, and no file left behind.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType

import pytest

from tests.cli.test_get_cli import _env

BACKENDS = ["asyncio", "trio"]


class StallingServer:
    """A loopback FTP server that logs anyone in and serves any name as ``body``
    (SIZE says ``size``, else the body's length), except that it never sends the reply
    ``stall`` names ("150" or "226"). With ``hold_quit``, QUIT is answered only once that
    event is set; ``quit_seen`` is set when QUIT arrives."""

    def __init__(self, stall: str, body: bytes = b"data", size: int | None = None,
                 hold_quit: threading.Event | None = None):
        self.stall = stall
        self.hold_quit = hold_quit
        self.quit_seen = threading.Event()
        self.body = body
        self.size = len(body) if size is None else size
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.threads: list[threading.Thread] = []

    def __enter__(self) -> StallingServer:
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self.threads.append(thread)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept (Linux)
        except OSError:
            pass
        self.listener.close()
        for thread in self.threads:
            thread.join(10)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        data_listener: socket.socket | None = None
        try:
            conn.sendall(b"220 a server that stalls\r\n")
            for line in conn.makefile("rb"):
                verb = line.split(b" ", 1)[0].strip().upper()
                if verb == b"USER":
                    conn.sendall(b"230 in\r\n")
                elif verb == b"PWD":
                    conn.sendall(b'257 "/"\r\n')
                elif verb in (b"TYPE", b"CWD"):
                    conn.sendall(b"200 ok\r\n")
                elif verb == b"SIZE":
                    conn.sendall(f"213 {self.size}\r\n".encode())
                elif verb == b"EPSV":
                    data_listener = socket.create_server(("127.0.0.1", 0))
                    port = data_listener.getsockname()[1]
                    conn.sendall(f"229 Extended Passive Mode (|||{port}|)\r\n".encode())
                elif verb == b"RETR" and data_listener is not None:
                    if self.stall == "150":
                        continue  # RETR is never answered
                    conn.sendall(b"150 here it comes\r\n")
                    data, _ = data_listener.accept()
                    data.sendall(self.body)
                    data.close()
                    if self.stall != "226":
                        conn.sendall(b"226 done\r\n")
                elif verb == b"QUIT":
                    self.quit_seen.set()
                    if self.hold_quit is not None:
                        self.hold_quit.wait(30)  # a hang guard: the test sets it
                    conn.sendall(b"221 bye\r\n")
                    return
                else:
                    conn.sendall(b"500 what\r\n")
        except OSError:
            pass
        finally:
            if data_listener is not None:
                data_listener.close()
            conn.close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("stall", ["150", "226"])
def test_a_stall_between_the_replies_of_a_file_is_28(tmp_path: Path, backend: str,
                                                      stall: str) -> None:
    target = tmp_path / "out.bin"
    with StallingServer(stall) as server:
        url = f"ftp://127.0.0.1:{server.port}/dir/file"
        r = subprocess.run(
            [sys.executable, "-m", "anyurl", "get", "--backend", backend,
             "--read-timeout", "0.5", "--max-time", "60", "-o", str(target), url],
            capture_output=True, stdin=subprocess.DEVNULL, env=_env(), timeout=120)
    err = r.stderr.decode(errors="replace")
    assert r.returncode == 28, err
    assert "Traceback" not in err
    assert "ftp control connection" in err and "0.5 seconds (the read timeout)" in err
    assert url in err
    assert not target.exists()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_server_answering_is_a_file(tmp_path: Path, backend: str) -> None:
    """The control for the tests above: with every reply sent, the file arrives."""
    target = tmp_path / "out.bin"
    with StallingServer("none") as server:
        r = subprocess.run(
            [sys.executable, "-m", "anyurl", "get", "--backend", backend,
             "--read-timeout", "0.5", "--max-time", "60", "-o", str(target),
             f"ftp://127.0.0.1:{server.port}/dir/file"],
            capture_output=True, stdin=subprocess.DEVNULL, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert target.read_bytes() == b"data"
