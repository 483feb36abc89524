"""`anyurl parse` is a contract other tools call: exact fields, exit codes, stdout/stderr."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FIELDS = ["url", "scheme", "user", "password", "host", "port", "path", "fragment", "parts"]


def anyurl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "anyurl", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_parse_json_prints_one_object_with_every_field() -> None:
    r = anyurl("parse", "--json", "FTP://myname:pw@host.dom:2121/%2Fetc/motd;type=A#x")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert list(data) == FIELDS
    assert data == {
        "url": "ftp://myname:****@host.dom:2121/%2Fetc/motd;type=A#x",
        "scheme": "ftp",
        "user": "myname",
        "password": "****",
        "host": "host.dom",
        "port": 2121,
        "path": "%2Fetc/motd;type=A",
        "fragment": "x",
        "parts": {"cwd": ["/etc"], "name": "motd", "typecode": "a"},
    }


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param("<URL:http://h/a b~>", {"url": "http://h/ab%7E", "port": 80},
                     id="wrapper-whitespace-removed"),
        pytest.param("http://h/a b", {"url": "http://h/a%20b", "path": "a%20b"},
                     id="bare-space-escaped"),
        pytest.param("gopher://h", {"path": None, "port": 70,
                                    "parts": {"gophertype": "1", "selector": "", "search": None,
                                              "gopher_plus": None}}, id="gopher-empty"),
        pytest.param("news:*", {"host": None, "port": None, "parts": {"group": "*",
                                                                      "message_id": None}},
                     id="news-all"),
        pytest.param("file:///", {"host": "", "port": None, "path": "",
                                  "parts": {"path": "/"}}, id="file-root"),
        pytest.param("nntp://h/alt.test/7", {"parts": {"group": "alt.test", "article": 7}},
                     id="nntp-article-int"),
        pytest.param("mailto:a@b.org", {"parts": {"address": "a@b.org"}}, id="mailto"),
        pytest.param("x-new:opaque", {"parts": {"schemepart": "opaque"}, "port": None},
                     id="generic"),
    ],
)
def test_parse_json_fields(url: str, expected: dict[str, object]) -> None:
    r = anyurl("parse", "--json", url)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    for key, value in expected.items():
        assert data[key] == value


def test_malformed_url_exits_3_with_one_stderr_line_and_nothing_on_stdout() -> None:
    r = anyurl("parse", "--json", "ftp://host:12x/")
    assert r.returncode == 3
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "port must be decimal digits" in lines[0]
    assert "position 13" in lines[0]


def test_strict_refuses_what_lenient_accepts() -> None:
    assert anyurl("parse", "--json", "http://h/~u").returncode == 0
    r = anyurl("parse", "--json", "--strict", "http://h/~u")
    assert r.returncode == 3
    assert "position 9" in r.stderr


def test_stdin_mode_one_json_line_per_input_line() -> None:
    r = anyurl("parse", "--json", "-", stdin="news:*\nbad url\nftp://h:99999/\nhttp://h/\n")
    assert r.returncode == 3
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 4
    assert out[0]["scheme"] == "news"
    assert out[1] == {"error": "missing scheme (expected 'scheme:' as in 'ftp://host/')",
                      "position": 0}
    assert out[2]["position"] == 8 and "out of range" in out[2]["error"]
    assert out[3]["url"] == "http://h/"


def test_stdin_mode_all_good_exits_0() -> None:
    r = anyurl("parse", "--json", "-", stdin="ftp://h/\ngopher://h/\n")
    assert r.returncode == 0
    assert len(r.stdout.splitlines()) == 2


@pytest.mark.parametrize("args", [["--json"], []])
def test_password_masked_unless_asked(args: list[str]) -> None:
    url = "ftp://u:s3cret@h/x"
    masked = anyurl("parse", *args, url)
    assert masked.returncode == 0
    assert "s3cret" not in masked.stdout and "****" in masked.stdout
    lines = anyurl("parse", *args, "-", stdin=url + "\n")
    assert "s3cret" not in lines.stdout and "****" in lines.stdout
    shown = anyurl("parse", *args, "--show-password", url)
    assert shown.returncode == 0 and "****" not in shown.stdout
    if args:
        data = json.loads(shown.stdout)
        assert data["password"] == "s3cret" and data["url"] == url
        assert json.loads(masked.stdout)["password"] == "****"


def test_human_output_masks_password() -> None:
    r = anyurl("parse", "ftp://u:secret@h/x")
    assert r.returncode == 0
    assert "secret" not in r.stdout
    assert "****" in r.stdout


def test_extract_prints_urls_from_free_text(tmp_path: object) -> None:
    text = (
        "Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;\n"
        "type=d> but you can probably pick it up from <URL:ftp://ds.in\n"
        "ternic.net/rfc>. Note the warning in <URL:http://ds.internic.\n"
        "net/instructions/overview.html#WARNING>. Also see http://example.org/x.\n"
    )
    r = anyurl("extract", stdin=text)
    assert r.returncode == 0
    assert r.stdout.splitlines() == [
        "ftp://info.cern.ch/pub/www/doc;type=d",
        "ftp://ds.internic.net/rfc",
        "http://ds.internic.net/instructions/overview.html#WARNING",
        "http://example.org/x",
    ]
