"""Whatever escapes a command, the user sees one line and an exit code, never a traceback."""

from __future__ import annotations

import argparse

import pytest

from anyurl.cli import get_cmd, main
from anyurl.errors import ConnectionLost


def _raising(exc: BaseException):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        raise exc

    return run


@pytest.mark.parametrize(
    ("exc", "code", "words"),
    [
        pytest.param(RuntimeError("boom"), 1, "internal error: RuntimeError: boom",
                     id="a-bug"),
        pytest.param(ExceptionGroup("g", [ValueError("v")]), 1, "ValueError: v",
                     id="group-of-foreign"),
        pytest.param(BaseExceptionGroup("g", [ConnectionLost("lost the line")]), 56,
                     "lost the line", id="group-holding-ours"),
        pytest.param(KeyboardInterrupt(), 42, "interrupted", id="ctrl-c"),
    ],
)
def test_one_line_and_a_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    exc: BaseException, code: int, words: str,
) -> None:
    monkeypatch.delenv("ANYURL_DEBUG", raising=False)
    monkeypatch.setattr(get_cmd, "run", _raising(exc))
    assert main.main(["get", "file:///x"]) == code
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_anyurl_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANYURL_DEBUG", "1")
    monkeypatch.setattr(get_cmd, "run", _raising(RuntimeError("boom")))
    with pytest.raises(RuntimeError):
        main.main(["get", "file:///x"])
