"""Which batches the downloader lends a host's spare slots to (FetchOptions.connections)."""

from __future__ import annotations

import anyio

from anyurl.downloads.downloader import _spare
from anyurl.schemes.ftp.handler import FTPHandler
from anyurl.schemes.http.handler import HTTPHandler
from anyurl.schemes.news.handler import NewsHandler


def _held(handler: type, per_host: int) -> int:
    """The slots a batch of ``handler`` holds, its own and those lent, all being free."""
    async def main() -> int:
        slot = anyio.Semaphore(per_host)
        async with slot, _spare(slot, handler, per_host) as extra:
            return 1 + extra

    return anyio.run(main)


def test_only_a_handler_that_opens_several_connections_a_batch_borrows() -> None:
    # A pipelining handler's lanes keep one slot each, so two lanes still run at once.
    assert _held(HTTPHandler, 4) == 1
    assert _held(NewsHandler, 4) == 1
    assert _held(FTPHandler, 4) == 4


def test_spare_takes_what_is_free_without_waiting_and_gives_it_back() -> None:
    async def main() -> None:
        slot = anyio.Semaphore(3)
        async with slot:  # the batch's own
            await slot.acquire()  # another lane holds one
            async with _spare(slot, FTPHandler, 3) as extra:
                assert extra == 1  # the one left, not the other lane's
                assert slot.value == 0
            assert slot.value == 1
            slot.release()
        assert slot.value == 3

    anyio.run(main)
