"""Every message the command line prints is in its own words (issue 23, point 2).

The library's hints speak to programs (``HTTPOptions(keep_error_body=True)``,
``resume=True``); the command line says ``--keep-error-body`` and ``-C``. The first test
walks every hint and every error message written in the source, prints each as the
command line would (:func:`anyurl.cli.common.error_text`) and finds no library words;
the others run ``anyurl get`` against a scripted server side by side with curl.
"""

from __future__ import annotations

import ast
import inspect
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import anyurl.errors as errors
from anyurl.cli.common import error_text
from anyurl.cli.hints import CLI_FOR_HINT, CLI_HINTS, library_words, scheme_hints
from anyurl.errors import AnyURLError, OptionError
from tests.cli.devices import null_device
from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import Reply, ScriptedServer, fixed

SRC = Path(__file__).resolve().parents[2] / "src" / "anyurl"
ERROR_CLASSES = {name: getattr(errors, name) for name in errors.__all__}


def _text(node: ast.AST) -> str | None:
    """A literal string, an f-string (its fields as ``X``) or a sum of them; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "X" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else left + right
    return None


def _remedy(node: ast.AST | None, cls: type | None) -> tuple[str, ...] | None:
    if node is None:  # the class's default remedy, if it has one (PartialTransfer)
        if cls is None:
            return None
        default = inspect.signature(cls).parameters.get("remedy")
        return default.default if default is not None else None
    if isinstance(node, ast.Tuple):
        return tuple(_text(e) or "X" for e in node.elts)
    return None


def written_errors() -> Iterator[tuple[str, AnyURLError]]:
    """Each error the source builds with a literal message or hint, as the CLI sees it."""
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "hint" for t in node.targets):
                # ``hint = (A if status == 401 else B)``, passed on as ``hint=hint``
                values = ([node.value.body, node.value.orelse]
                          if isinstance(node.value, ast.IfExp) else [node.value])
                for value in values:
                    text = _text(value)
                    if text is not None:
                        yield (f"{path.relative_to(SRC)}:{node.lineno}",
                               AnyURLError("M", hint=text))
                continue
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            cls = ERROR_CLASSES.get(name)
            keywords = {k.arg: k.value for k in node.keywords}
            hint = _text(keywords["hint"]) if "hint" in keywords else None
            message = _text(node.args[0]) if cls is not None and node.args else None
            if hint is None and message is None:
                continue
            if cls is not None and issubclass(cls, OptionError):
                # an option of the API given the wrong type: the command line builds its
                # options itself (argparse refuses a bad value first)
                message = None
            where = f"{path.relative_to(SRC)}:{node.lineno}"
            yield where, AnyURLError(message or "M", hint=hint,
                                     remedy=_remedy(keywords.get("remedy"), cls))


def test_no_error_the_cli_prints_speaks_the_librarys_words() -> None:
    seen = list(written_errors())
    assert len(seen) > 100  # the walk found the errors (not an empty pass)
    offenders = [(where, error_text(exc)) for where, exc in seen
                 if library_words(error_text(exc))]
    assert offenders == []


def test_the_walk_would_catch_the_librarys_words() -> None:
    """The check can fail: the library's own hints hold library words."""
    raw = [exc.hint for _, exc in written_errors() if exc.hint and library_words(exc.hint)]
    assert any("keep_error_body=True" in h for h in raw)
    assert any("resume=True" in h for h in raw)


def test_every_translation_is_of_a_hint_the_source_gives() -> None:
    hints = {exc.hint for _, exc in written_errors()}
    assert set(CLI_FOR_HINT) <= hints
    # a scheme's own words: for a hint its handler gives, or for a remedy key
    assert {key for key in scheme_hints() if " " in key} <= hints
    for text in [*CLI_FOR_HINT.values(), *CLI_HINTS.values(), *scheme_hints().values()]:
        assert library_words(text) == [], text


# -- against a server, side by side with curl -------------------------------------------------


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


def test_retry_on_a_500_in_cli_words(server: ScriptedServer) -> None:
    server.routes["/e"] = lambda rq: Reply(500, "Internal Server Error", body=b"oops")
    r = anyurl("--retry", "1", "--retry-delay", "0", server.url("/e"))
    assert r.returncode == 22
    err = r.stderr.decode()
    assert "retry 1 of 1" in err and "--keep-error-body saves what the server sent" in err
    assert library_words(err) == [], err
    assert "HTTPOptions" not in err and "=True" not in err


def test_a_short_body_in_cli_words(server: ScriptedServer) -> None:
    server.routes["/short"] = lambda rq: Reply(
        raw=b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 600, close=True)
    r = anyurl("-o", null_device(), server.url("/short"))
    err = r.stderr.decode()
    assert r.returncode == 18 and "600 of 1000" in err
    assert "-C" in err and "resume=True" not in err and library_words(err) == []


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_a_401_suggests_u_as_curl_users_give_it(server: ScriptedServer) -> None:
    server.routes["/login"] = lambda rq: Reply(401, "Unauthorized",
                                               headers=[("WWW-Authenticate", 'Basic realm="x"')])
    server.routes["/ok"] = fixed(b"ok")
    r = anyurl(server.url("/login"))
    assert b"-u USER[:PASSWORD]" in r.stderr, r.stderr
    assert b"http://user:password@host/" not in r.stderr
    assert curl("-sSf", server.url("/login")).returncode == 22


def test_json_lines_carry_the_cli_words(server: ScriptedServer, tmp_path: Path) -> None:
    import json

    server.routes["/e"] = lambda rq: Reply(503, "Service Unavailable")
    r = anyurl("--json", "-o", str(tmp_path / "x"), server.url("/e"))
    line = json.loads(r.stdout)
    assert "--keep-error-body" in line["error"] and library_words(line["error"]) == []
