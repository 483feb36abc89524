"""The FTP control connection's reply reading (issue 21): whole reads, one parse each."""

from __future__ import annotations

from typing import Any

import pytest

from anyurl.errors import ConnectionLost
from anyurl.protocols.ftp import Command
from anyurl.schemes.ftp.control import Control, key_for
from anyurl.url import parse

URL = parse("ftp://127.0.0.1/pub/file")


class Scripted:
    """A stream that gives one scripted read per receive and records what was sent."""

    def __init__(self, *reads: bytes):
        self.reads = list(reads)
        self.receives = 0
        self.sent: list[bytes] = []

    async def receive(self, max_bytes: int = 65536) -> bytes:
        self.receives += 1
        return self.reads.pop(0) if self.reads else b""

    async def send(self, data: bytes) -> None:
        self.sent.append(data)


def _control(stream: Scripted, monkeypatch: pytest.MonkeyPatch) -> tuple[Control, list[Any]]:
    control = Control(stream, key_for(URL), URL)  # type: ignore[arg-type]
    asked: list[Any] = []
    real = control.core.next_event

    def counting() -> Any:
        event = real()
        asked.append(event)
        return event

    monkeypatch.setattr(control.core, "next_event", counting)
    return control, asked


@pytest.mark.anyio
async def test_one_read_and_one_parse_per_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = Scripted(b"220 hi\r\n", b"229 Entering Extended Passive Mode (|||4242|)\r\n",
                      b"150 here\r\n226 done\r\n")
    control, asked = _control(stream, monkeypatch)
    assert (await control.read_reply()).code == 220
    assert (await control.command(Command("EPSV"))).code == 229
    assert (await control.command(Command("RETR", "file"))).code == 150
    assert (await control.read_reply()).code == 226  # already read with the 150
    assert stream.receives == 3
    assert [type(e).__name__ for e in asked] == ["Reply"] * 4


@pytest.mark.anyio
async def test_a_reply_in_pieces_and_the_end_of_the_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = Scripted(b"220-wel", b"come\r\n220 in two reads\r\n")
    control, _ = _control(stream, monkeypatch)
    reply = await control.read_reply()
    assert reply.lines == ("220-welcome", "220 in two reads")
    with pytest.raises(ConnectionLost, match="closed the control connection"):
        await control.command(Command("NOOP"))
