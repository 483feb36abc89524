"""How many URLs each ``open_batch`` call of a handler class is handed (issue 21's tests)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable
from typing import Any

import pytest

from anyurl.schemes.base import FetchOptions, SchemeHandler
from anyurl.url import URL


def count_batches(monkeypatch: pytest.MonkeyPatch, handler: type[SchemeHandler]) -> list[int]:
    """Wrap ``handler.open_batch`` for the test; the list returned gets the size of each
    batch as it is opened."""
    sizes: list[int] = []
    original = handler.open_batch

    def counted(self: SchemeHandler, urls: Iterable[URL], options: FetchOptions,
                ) -> AsyncGenerator[tuple[URL, Any], None]:
        urls = list(urls)
        sizes.append(len(urls))
        return original(self, urls, options)

    monkeypatch.setattr(handler, "open_batch", counted)
    return sizes
