"""Shared fixtures: every async test runs on both anyio backends (asyncio and trio)."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# Property tests explore new examples on every run by default; CI (HYPOTHESIS_PROFILE=ci,
# set by .ci/run) runs a fixed, reproducible set so that a red build is about the change.
settings.register_profile("ci", derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(
    params=[
        pytest.param("asyncio", id="asyncio"),
        pytest.param("trio", id="trio"),
    ]
)
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
