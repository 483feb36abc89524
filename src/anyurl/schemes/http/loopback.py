"""A loopback HTTP/1.1 file server on anyio and h11: GET/HEAD, single Range, keep-alive.

Small on purpose: enough for ``anyurl demo`` and for users' tests that need an HTTP
peer without nginx. The integration tests use nginx (tests/peers).
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Sequence
from email.utils import formatdate
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote

import anyio
import anyio.abc
import h11

from anyurl.numbers import ascii_int
from anyurl.testing._server import command_line, open_task, serve_tcp, serve_until_interrupted

__all__ = ["serve_http"]

CHUNK = 256 * 1024


def _resolve(root: Path, target: str) -> Path | None:
    path = unquote(target.split("?", 1)[0])
    candidate = (root / path.lstrip("/")).resolve()
    if candidate != root and root not in candidate.parents:
        return None
    return candidate


Event = h11.Response | h11.Data | h11.EndOfMessage


async def _send(conn: h11.Connection, stream: anyio.abc.ByteStream, event: Event) -> None:
    if isinstance(event, h11.Response) and not event.reason:
        event = h11.Response(status_code=event.status_code, headers=event.headers,
                             reason=HTTPStatus(event.status_code).phrase.encode())
    data = conn.send(event)
    if data:
        await stream.send(data)


async def _respond(conn: h11.Connection, stream: anyio.abc.ByteStream, root: Path,
                   request: h11.Request) -> None:
    target = request.target.decode("latin-1")
    path = _resolve(root, target)
    if path is not None and path.is_dir():
        index = path / "index.html"
        if index.is_file():
            path = index
        else:
            names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
            body = "".join(f"{n}\n" for n in names).encode()
            await _send(conn, stream, h11.Response(status_code=200, headers=[
                ("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]))
            if request.method != b"HEAD":
                await _send(conn, stream, h11.Data(data=body))
            await _send(conn, stream, h11.EndOfMessage())
            return
    if path is None or not path.is_file():
        body = b"not found\n"
        await _send(conn, stream, h11.Response(status_code=404, headers=[
            ("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]))
        await _send(conn, stream, h11.Data(data=body))
        await _send(conn, stream, h11.EndOfMessage())
        return
    size = path.stat().st_size
    start, end, status = 0, size, 200
    headers = [("Accept-Ranges", "bytes"),
               ("Content-Type", mimetypes.guess_type(path.name)[0] or "application/octet-stream"),
               ("Last-Modified", formatdate(path.stat().st_mtime, usegmt=True))]
    for name, value in request.headers:
        if name == b"range" and value.startswith(b"bytes="):
            first, _, last = value[6:].decode("latin-1").partition("-")
            asked, up_to = ascii_int(first, max_digits=19), ascii_int(last, max_digits=19)
            if asked is not None:
                start = asked
                end = min(size, up_to + 1) if up_to is not None else size
                if start >= size:
                    await _send(conn, stream, h11.Response(status_code=416, headers=[
                        ("Content-Range", f"bytes */{size}"), ("Content-Length", "0")]))
                    await _send(conn, stream, h11.EndOfMessage())
                    return
                status = 206
                headers.append(("Content-Range", f"bytes {start}-{end - 1}/{size}"))
    headers.append(("Content-Length", str(end - start)))
    await _send(conn, stream, h11.Response(status_code=status, headers=headers))
    if request.method != b"HEAD":
        async with await anyio.open_file(path, "rb") as f:
            await f.seek(start)
            left = end - start
            while left > 0:
                chunk = await f.read(min(CHUNK, left))
                if not chunk:
                    break
                left -= len(chunk)
                await _send(conn, stream, h11.Data(data=chunk))
    await _send(conn, stream, h11.EndOfMessage())


async def _handle(stream: anyio.abc.ByteStream, root: Path) -> None:
    conn = h11.Connection(h11.SERVER)
    async with stream:
        while True:
            try:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    try:
                        data = await stream.receive(65536)
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        return
                    conn.receive_data(data)
                    continue
                if isinstance(event, h11.Request):
                    await _respond(conn, stream, root, event)
                elif isinstance(event, h11.ConnectionClosed):
                    return
                elif isinstance(event, h11.EndOfMessage):
                    if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                        return
                    conn.start_next_cycle()
            except (h11.RemoteProtocolError, h11.LocalProtocolError, anyio.BrokenResourceError):
                return


async def serve_http(
    root: str | os.PathLike[str],
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``root`` until cancelled; ``task_status.started`` receives the port."""
    root_path = Path(root).resolve()
    await serve_tcp(lambda stream: _handle(stream, root_path), host, port,
                    task_status=task_status)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.http.loopback``: serve ``--root`` until interrupted."""
    parser = command_line("http", __doc__, 8080)
    parser.add_argument("--root", default=".")
    args = parser.parse_args(argv)
    return serve_until_interrupted(lambda: open_task(serve_http, args.root, args.host, args.port),
                                   backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
