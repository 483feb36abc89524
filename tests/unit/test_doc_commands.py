"""The commands the docs show, with what they print and exit, are what anyurl does.

Three kinds of claims are read from README.md and docs/**/*.md and run:

* a code block line ``$ anyurl ...`` whose command needs no server of its own (no
  ``127.0.0.1`` address, not ``serve``/``demo``/``mirror``): its output is the block's
  lines up to the next ``$`` line, compared exactly;
* an inline error message quoted as `` `'TEXT' is not a URL: ...` (exit N) ``: ``anyurl get
  TEXT`` prints exactly that message (its position included) and exits N;
* an inline `` `anyurl ARGS` says `MESSAGE` ``: the command prints MESSAGE (as wrapped in
  the docs: line breaks are spaces).

A position, an exit code or a message that drifts from the code fails here (issue 33).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```[a-z]*\n(.*?)^```$", re.M | re.S)
NOT_A_URL = re.compile(r"`('(?P<text>[^'`]+)' is not a URL: [^`]*)`\s*\(exit (?P<code>\d+)\)")
SAYS = re.compile(r"`anyurl (?P<args>[^`]+)` says `(?P<message>[^`]+)`")
NEEDS_A_SERVER = re.compile(r"127\.0\.0\.1|^anyurl (serve|demo|mirror)\b")


def _where(path: Path, text: str, offset: int) -> str:
    return f"{path.relative_to(REPO)}:{text.count(chr(10), 0, offset) + 1}"


def console_commands() -> list[tuple[str, str, str]]:
    """``(where, command, output)`` of every ``$ anyurl`` line that needs no server."""
    found = []
    for path in DOCS:
        text = path.read_text()
        for block in BLOCK.finditer(text):
            lines = block.group(1).splitlines()
            for i, line in enumerate(lines):
                if not line.startswith("$ anyurl ") or NEEDS_A_SERVER.search(line[2:]):
                    continue
                output = []
                for rest in lines[i + 1:]:
                    if rest.startswith("$ "):
                        break
                    output.append(rest)
                found.append((_where(path, text, block.start()), line[2:], "\n".join(output)))
    return found


def inline_claims() -> list[tuple[str, list[str], str, int | None]]:
    """``(where, argv, message, exit code or None)`` of the docs' inline claims."""
    found: list[tuple[str, list[str], str, int | None]] = []
    for path in DOCS:
        text = path.read_text()
        for m in NOT_A_URL.finditer(text):
            found.append((_where(path, text, m.start()), ["get", m.group("text")],
                          " ".join(m.group(1).split()), int(m.group("code"))))
        for m in SAYS.finditer(text):
            found.append((_where(path, text, m.start()), shlex.split(m.group("args")),
                          " ".join(m.group("message").split()), None))
    return found


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "NETRC": os.devnull,
           "COLUMNS": "100", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "anyurl", *argv], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=60, stdin=subprocess.DEVNULL)


def test_there_are_claims_to_check() -> None:
    assert console_commands() and inline_claims()


@pytest.mark.parametrize(("where", "command", "output"), console_commands(),
                         ids=[w for w, _, _ in console_commands()])
def test_a_shown_command_prints_what_is_shown(where: str, command: str, output: str,
                                              tmp_path: Path) -> None:
    done = run(shlex.split(command)[1:], tmp_path)
    printed = (done.stdout + done.stderr).rstrip("\n")
    assert printed == output.rstrip("\n"), f"{where}: `{command}` prints\n{printed}"


@pytest.mark.parametrize(("where", "argv", "message", "code"), inline_claims(),
                         ids=[w for w, _, _, _ in inline_claims()])
def test_an_inline_claim_holds(where: str, argv: list[str], message: str, code: int | None,
                               tmp_path: Path) -> None:
    done = run(argv, tmp_path)
    printed = " ".join(done.stderr.split())
    assert message in printed, f"{where}: anyurl {shlex.join(argv)} says {done.stderr!r}"
    if code is not None:
        assert done.returncode == code, f"{where}: exits {done.returncode}, not {code}"
