"""A loopback HTTP server that switches to HTTP/2 when asked (``Upgrade: h2c``, RFC 7540 3.2).

A request over HTTP/1.1 with ``Upgrade: h2c`` and ``HTTP2-Settings`` is answered ``101
Switching Protocols``; the connection speaks HTTP/2 from then on (h2 on the server side),
the response to that request on stream 1 and later requests on streams of their own.
A request without the upgrade is answered over HTTP/1.1. It serves a fixed set of
bodies by path (GET and HEAD; anything else 404), which is what a test of a client's
upgrade needs: nginx does not switch (its h2c is prior knowledge only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import anyio
import anyio.abc
import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h11

from anyurl.testing._server import command_line, open_task, serve_tcp, serve_until_interrupted

__all__ = ["H2cServer", "serve_h2c"]


class H2cServer:
    """Bodies by path, over HTTP/1.1 or, when a request asks, HTTP/2."""

    def __init__(self, files: Mapping[str, bytes]):
        self.files = dict(files)
        #: Connections switched to HTTP/2, and requests answered over HTTP/2 (tests).
        self.upgrades = 0
        self.h2_requests = 0

    def _answer(self, path: bytes, method: bytes) -> tuple[int, bytes, int]:
        """Status, body and content-length of a request (a HEAD's body is empty)."""
        body = self.files.get(path.decode("latin-1").split("?", 1)[0])
        if body is None:
            body, status = b"not found\n", 404
        else:
            status = 200
        return status, b"" if method == b"HEAD" else body, len(body)

    async def handle(self, stream: anyio.abc.ByteStream) -> None:
        """Serve one connection until the client closes it (or breaks a protocol)."""
        async with stream:
            try:
                await self._http11(stream)
            except (anyio.EndOfStream, anyio.BrokenResourceError, h11.ProtocolError,
                    h2.exceptions.ProtocolError):
                return

    async def _http11(self, stream: anyio.abc.ByteStream) -> None:
        conn = h11.Connection(h11.SERVER)
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await stream.receive(65536))
                continue
            if isinstance(event, h11.ConnectionClosed):
                return
            if not isinstance(event, h11.Request):
                if isinstance(event, h11.EndOfMessage):
                    conn.start_next_cycle()
                continue
            headers = {k.lower(): v for k, v in event.headers}
            settings = headers.get(b"http2-settings")
            if headers.get(b"upgrade", b"").lower() == b"h2c" and settings is not None:
                while not isinstance(conn.next_event(), h11.EndOfMessage):
                    pass  # a request without a body: its end is already read
                await stream.send(conn.send(h11.InformationalResponse(
                    status_code=101, headers=[("Connection", "Upgrade"), ("Upgrade", "h2c")]))
                    or b"")
                await self._http2(stream, settings, event, conn.trailing_data[0])
                return
            status, body, length = self._answer(event.target, event.method)
            events: list[h11.Event] = [h11.Response(
                status_code=status, headers=[("Content-Length", str(length))])]
            if body:
                events.append(h11.Data(data=body))
            events.append(h11.EndOfMessage())
            await stream.send(b"".join(conn.send(e) or b"" for e in events))

    async def _http2(self, stream: anyio.abc.ByteStream, settings: bytes,
                     request: h11.Request, trailing: bytes) -> None:
        self.upgrades += 1
        conn = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=False, header_encoding=None))
        padded = settings + b"=" * (-len(settings) % 4)
        conn.initiate_upgrade_connection(padded)  # h2 wants the padding RFC 7540 drops
        outgoing: dict[int, bytes] = {}
        self._respond(conn, outgoing, 1, request.target, request.method)
        data = trailing
        while True:
            for event in conn.receive_data(data) if data else ():
                if isinstance(event, h2.events.RequestReceived):
                    fields = dict(event.headers or [])
                    self._respond(conn, outgoing, event.stream_id,
                                  bytes(fields[b":path"]), bytes(fields[b":method"]))
                elif isinstance(event, h2.events.StreamReset):
                    outgoing.pop(event.stream_id, None)
                elif isinstance(event, h2.events.ConnectionTerminated):
                    return
            _send_what_fits(conn, outgoing)
            if out := conn.data_to_send():
                await stream.send(out)
            data = await stream.receive(65536)

    def _respond(self, conn: h2.connection.H2Connection, outgoing: dict[int, bytes],
                 stream_id: int, path: bytes, method: bytes) -> None:
        self.h2_requests += 1
        status, body, length = self._answer(path, method)
        conn.send_headers(stream_id, [(":status", str(status)),
                                      ("content-length", str(length))],
                          end_stream=not body)
        if body:
            outgoing[stream_id] = body


def _send_what_fits(conn: h2.connection.H2Connection, outgoing: dict[int, bytes]) -> None:
    """DATA of each open response as far as the flow-control windows let it go."""
    for stream_id, rest in list(outgoing.items()):
        while rest:
            room = min(conn.local_flow_control_window(stream_id), conn.max_outbound_frame_size)
            if room <= 0:
                break
            conn.send_data(stream_id, rest[:room], end_stream=len(rest) <= room)
            rest = rest[room:]
        if rest:
            outgoing[stream_id] = rest
        else:
            del outgoing[stream_id]


async def serve_h2c(
    files: Mapping[str, bytes],
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    task_status: anyio.abc.TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
    server: H2cServer | None = None,
) -> None:
    """Serve ``files`` (path: body) until cancelled; ``task_status.started`` receives the
    port. ``server``: the one to serve with (to read its counters), else a new one."""
    serving = server or H2cServer(files)
    await serve_tcp(serving.handle, host, port, task_status=task_status)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.http.h2c``: serve ``/hello.txt`` until interrupted."""
    parser = command_line("anyurl.schemes.http.h2c", __doc__, 8082)
    args = parser.parse_args(argv)
    files = {"/hello.txt": b"hello over h2c\n"}
    return serve_until_interrupted(lambda: open_task(serve_h2c, files, args.host, args.port),
                                   backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
