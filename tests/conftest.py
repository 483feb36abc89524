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


# A skip is a decision in the code, not an accident of the machine: with
# ANYURL_NO_SKIPS=1 (set by .ci/run) a run that skipped anything fails, naming each skip,
# so a missing tool (curl, wget, a peer) cannot pass as a green build.
_SKIPPED: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        _SKIPPED.append(f"{report.nodeid}: {reason}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _SKIPPED and os.environ.get("ANYURL_NO_SKIPS") == "1" and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _SKIPPED and os.environ.get("ANYURL_NO_SKIPS") == "1":
        terminalreporter.section("skipped tests fail this run (ANYURL_NO_SKIPS=1)")
        for line in _SKIPPED:
            terminalreporter.line(line)
