"""Run one of the anyio loopback servers in a thread of its own, for synchronous tests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from anyio.from_thread import start_blocking_portal

__all__ = ["serving_in_thread"]


@contextmanager
def serving_in_thread(
    serve: Callable[..., Awaitable[Any]], *args: Any, backend: str = "asyncio"
) -> Iterator[int]:
    """Start ``serve(*args, task_status=...)`` on an event loop in a new thread.

    Yields the port ``serve`` reported through ``task_status.started``; leaving the
    block cancels the server and joins its thread. The server runs on ``backend``
    whatever the caller's own event loop is (or without one), so a test on trio can
    use it as well as a synchronous test.
    """
    with start_blocking_portal(backend) as portal:
        future, port = portal.start_task(serve, *args)
        try:
            yield int(port)
        finally:
            future.cancel()
