"""A word that is neither a command nor a URL is named, with what was probably meant, and
curl's ``--json DATA`` posts JSON as curl does (issue 23, point 3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from anyurl.cli.main import main
from anyurl.cli.suggest import suggest
from tests.cli.test_curl_options import anyurl, both
from tests.integration.test_http import ScriptedServer, fixed

COMMANDS = ("parse", "extract", "get", "mirror", "demo")


def test_suggestions() -> None:
    assert suggest("mirorr", COMMANDS) == "anyurl mirror"
    assert suggest("Pars", COMMANDS) == "anyurl parse"
    assert suggest("plan", COMMANDS, ("--plan", "-v")) == "anyurl get --plan"
    assert suggest("verbos", COMMANDS, ("--verbose",)) == "anyurl get --verbose"
    assert suggest("zebra", COMMANDS, ("--plan",)) is None
    assert suggest("http://mirorr/", COMMANDS) is None  # a URL is never a typo


@pytest.mark.parametrize("argv,expected", [
    (["mirorr", "http://h/"], "'mirorr' is neither a command nor a URL. Did you mean "
                              "'anyurl mirror'?"),
    (["plan", "http://h/"], "'plan' is neither a command nor a URL. Did you mean "
                            "'anyurl get --plan'?"),
])
def test_a_mistyped_command_is_named_before_anything_is_fetched(
        argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"anyurl: {expected}\n"
    assert "position 0" not in err


def test_a_word_given_as_a_url_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", "mirorr"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("anyurl: 'mirorr' is not a URL: missing scheme")
    assert err.rstrip().endswith("Did you mean 'anyurl mirror'?")
    assert main(["get", "ftp://user:secret@h:12x/"]) == 3
    err = capsys.readouterr().err
    assert "'ftp://user:****@h:12x/' is not a URL: port must be decimal" in err
    assert "secret" not in err


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_json_data_posts_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/api"] = fixed(b"{}")
    (tmp_path / "body.json").write_bytes(b'{"from": "a file"}\n')
    for args in (["--json", '{"a": 1}'], ["--json", f"@{tmp_path / 'body.json'}"],
                 ["--json", '[1, 2]', "-H", "Accept: text/plain"]):
        theirs, ours = both(server, *args, server.url("/api"))
        assert ours["line"] == theirs["line"] == "POST /api", args
        assert ours["body"] == theirs["body"], args
        for name in ("content-type", "accept", "content-length"):
            assert ours["headers"].get(name) == theirs["headers"].get(name), (args, name)


def test_json_before_a_url_keeps_anyurls_meaning(server: ScriptedServer,
                                                 tmp_path: Path) -> None:
    server.routes["/f"] = fixed(b"body")
    r = anyurl("--json", "-o", str(tmp_path / "f"), server.url("/f"))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "ok"
    assert server.requests[-1].line.startswith("GET ")


def test_many_bad_urls_build_the_option_list_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A list of 2,000 unparsable URLs named 2,000 times by the same parser, not rebuilt."""
    from anyurl.cli import get_cmd
    from anyurl.errors import URLSyntaxError

    built = []
    real = get_cmd._option_actions
    monkeypatch.setattr(get_cmd, "_option_actions", lambda: built.append(1) or real())
    get_cmd._option_strings.cache_clear()
    for text in ("ftp:///a", "ftp:///b", "plan"):
        error = get_cmd.not_a_url(text, URLSyntaxError("no host", 6, text=text))
        assert "is not a URL" in str(error)
    assert built == [1]


def test_mirror_without_a_url_or_a_crawl_is_a_usage_error_that_makes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # It was exit 23 (a write error) and left an empty crawl state in the working
    # directory, or made -o DIR.
    monkeypatch.chdir(tmp_path)
    assert main(["mirror"]) == 2
    assert main(["mirror", "-o", str(tmp_path / "new")]) == 2
    err = capsys.readouterr().err
    assert "no URL to mirror, and '.' holds no crawl to resume. Give the URLs" in err
    assert list(tmp_path.iterdir()) == []
