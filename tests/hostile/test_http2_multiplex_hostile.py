"""HTTP/2 multiplexed batches against servers that send more than anyone reads (issue 21).

One server sends a long body on every stream at once, as fast as the flow-control
windows let it; another ignores the windows and sends past them. Memory must stay
bounded by the windows (:data:`~anyurl.schemes.http.multiplex.SMALL_WINDOW` per stream
not being read), never by the bodies: the tests read the multiplexer's own count of the
bytes it holds. On asyncio and trio.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import pytest
from hyperframe.frame import DataFrame

from anyurl.config import Config
from anyurl.errors import AnyURLError, ProtocolError
from anyurl.net.transport import DEFAULT_RECEIVE_SIZE
from anyurl.options import HTTPOptions
from anyurl.resolver import Resolver
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.http import HTTPHandler, http2, multiplex
from anyurl.url import URL, parse

pytestmark = [pytest.mark.anyio]

H2 = FetchOptions(schemes=(HTTPOptions(http2=True, http2_prior_knowledge=True),))
STREAMS = 24
BODY = 2 << 20  # per stream: 48 MiB in all, 16 times what the windows admit at once
PAST = 8  # frames of 16 KiB sent on each stream by the server that ignores the windows


def _flooding(sock: socket.socket, sent: list[int], *, obey_windows: bool) -> None:
    """Answer every request with ``BODY`` bytes, pushing on all streams at once."""
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    left: dict[int, int] = {}
    with sock:
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            try:
                events = conn.receive_data(data)
            except h2.exceptions.ProtocolError:
                return
            for event in events:
                if isinstance(event, h2.events.RequestReceived):
                    try:
                        conn.send_headers(event.stream_id, [(":status", "200")])
                    except h2.exceptions.ProtocolError:
                        continue  # reset by the client meanwhile
                    left[event.stream_id] = BODY
                elif isinstance(event, h2.events.StreamReset):
                    left.pop(event.stream_id, None)
            out = conn.data_to_send()
            if not obey_windows:
                # DATA frames past every window, written by hand (h2 would refuse).
                for sid in list(left):
                    for k in range(PAST):
                        frame = DataFrame(sid, flags=["END_STREAM"] if k == PAST - 1 else [])
                        frame.data = b"x" * 16384
                        out += frame.serialize()
                    sent[0] += PAST * 16384
                    del left[sid]
            for sid in list(left):
                try:
                    room = min(conn.local_flow_control_window(sid), left[sid])
                except h2.exceptions.ProtocolError:
                    del left[sid]
                    continue
                while room > 0:
                    n = min(room, conn.max_outbound_frame_size)
                    conn.send_data(sid, b"x" * n, end_stream=left[sid] == n)
                    left[sid] -= n
                    room -= n
                    sent[0] += n
                if not left[sid]:
                    del left[sid]
            out += conn.data_to_send()
            try:
                sock.sendall(out)
            except OSError:
                return


@pytest.fixture(params=[True, False], ids=["windows-kept", "windows-ignored"])
def flood(request: pytest.FixtureRequest) -> Iterator[tuple[int, bool, list[int]]]:
    obey = bool(request.param)
    sent = [0]
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with listener:
            while True:
                try:
                    sock, _ = listener.accept()
                except OSError:
                    return
                threading.Thread(target=_flooding, args=(sock, sent),
                                 kwargs={"obey_windows": obey}, daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1]), obey, sent
    listener.shutdown(socket.SHUT_RDWR)
    listener.close()
    thread.join(timeout=5)


async def test_bodies_on_every_stream_stay_within_the_windows(
        flood: tuple[int, bool, list[int]], monkeypatch: pytest.MonkeyPatch) -> None:
    port, obey, sent = flood
    made: list[multiplex.Multiplexer] = []
    real_init = multiplex.Multiplexer.__init__

    def init(self: multiplex.Multiplexer, conn: object) -> None:
        real_init(self, conn)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(multiplex.Multiplexer, "__init__", init)
    handler = Resolver(Config()).handler_for(URL("http", host="127.0.0.1"))
    assert isinstance(handler, HTTPHandler)
    urls = [parse(f"http://127.0.0.1:{port}/big{i}") for i in range(STREAMS)]
    sizes: list[int | AnyURLError] = []
    try:
        async for _url, outcome in handler.open_batch(urls, H2):
            if not isinstance(outcome, Resource):
                sizes.append(outcome)
                continue
            size = 0
            try:
                async with outcome:
                    async for chunk in outcome:
                        size += len(chunk)
            except AnyURLError as exc:
                sizes.append(exc)
                continue
            sizes.append(size)
    finally:
        await handler.aclose()
    # The windows of the streams not being read, and one frame (or one read) of the
    # stream being read.
    bound = (STREAMS * multiplex.SMALL_WINDOW
             + max(http2.MAX_FRAME_SIZE, DEFAULT_RECEIVE_SIZE))
    assert made
    assert max(m.peak_buffered for m in made) <= bound
    if obey:
        assert sizes == [BODY] * STREAMS
        assert made[0].peak_streams == STREAMS
        assert sent[0] == STREAMS * BODY > 10 * bound  # the server pushed far more
    else:
        # h2 refuses DATA past a window: a protocol error, and no bytes held for it. (A
        # stream already being read has the large window: its 128 KiB may fit.)
        errors = [s for s in sizes if isinstance(s, ProtocolError)]
        assert len(errors) + sizes.count(PAST * 16384) == STREAMS
        assert errors
        assert all("Flow control window shrunk below 0" in str(e) for e in errors)
        assert all(any(str(u) in str(e) for u in urls) for e in errors)
