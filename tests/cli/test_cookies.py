"""Cookies (``-b``, ``-c``, ``-j``), side by side with curl against the scripted server.

The jar is :mod:`http.cookiejar`'s; these tests hold anyurl's use of it to curl's
behaviour: the file curl writes, the ``Cookie`` header curl sends, one jar shared by
the URLs of a run and its redirects, ``-j``, and the origin rule of ``-b NAME=VALUE``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from http.cookiejar import Cookie, CookieJar
from pathlib import Path

import pytest
from anyurl.cookies import CURL_HEADER, CookieFile, cookie_header, store_cookies

from anyurl.errors import OptionError
from anyurl.url import parse
from tests.cli.devices import null_device
from tests.cli.test_curl_options import _env, anyurl, curl
from tests.integration.test_http import Reply, ScriptedServer, fixed, redirect

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")

SET = [
    ("Set-Cookie", "sess=abc"),
    ("Set-Cookie", "keep=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT"),
    ("Set-Cookie", "sub=2; Path=/sub"),
    ("Set-Cookie", "gone=0; Expires=Thu, 01 Jan 1998 00:00:00 GMT"),
    ("Set-Cookie", "evil=5; Domain=example.org"),
    ("Set-Cookie", "flag"),
]


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    srv.routes["/set"] = lambda r: Reply(headers=SET, body=b"ok")
    srv.routes["/sub/x"] = fixed(b"x")
    srv.routes["/x"] = fixed(b"x")
    yield srv  # type: ignore[misc]
    srv.close()


def _cookie_sent(server: ScriptedServer, run: object, *args: str) -> str | None:
    before = len(server.requests)
    r = run("-sS", "-o", null_device(), *args)  # type: ignore[operator]
    assert r.returncode == 0, r.stderr
    return server.requests[before].headers.get("cookie")


def test_cookie_jar_file_is_written_and_read_as_curl(server: ScriptedServer,
                                                     tmp_path: Path) -> None:
    sent = {}
    for run in (curl, anyurl):
        jar = tmp_path / f"{run.__name__}.txt"
        assert _cookie_sent(server, run, "-c", str(jar), server.url("/set")) is None
        text = jar.read_text()
        assert text.startswith(CURL_HEADER)
        sent[run.__name__] = (
            sorted(text.splitlines()),
            _cookie_sent(server, run, "-b", str(jar), server.url("/sub/x")),
            _cookie_sent(server, run, "-b", str(jar), server.url("/x")),
            _cookie_sent(server, run, "-j", "-b", str(jar), server.url("/sub/x")),
        )
    assert sent["anyurl"] == sent["curl"]
    lines, sub, top, junked = sent["anyurl"]
    assert "127.0.0.1\tFALSE\t/\tFALSE\t0\tsess\tabc" in lines  # a session cookie: 0
    assert "127.0.0.1\tFALSE\t/\tFALSE\t4116219494\tkeep\t1" in lines
    assert sub == "sub=2; sess=abc; keep=1" and top == "sess=abc; keep=1"
    assert junked == "keep=1"  # -j: the session cookies of the file are left out


def test_cookie_string_is_sent_as_curl_sends_it(server: ScriptedServer) -> None:
    for args in (["-b", "a=1; b=2"], ["-b", "a=1", "-b", "b=2"]):
        ours = _cookie_sent(server, anyurl, *args, server.url("/x"))
        assert ours == _cookie_sent(server, curl, *args, server.url("/x")), args
        assert ours in ("a=1; b=2", "a=1;b=2"), args


def test_one_jar_for_the_urls_and_redirects_of_a_run(server: ScriptedServer,
                                                     tmp_path: Path) -> None:
    server.routes["/login"] = lambda r: Reply(
        302, "Found", headers=[("Location", "/x"), ("Set-Cookie", "id=7")], body=b"")
    for run in (curl, anyurl):
        jar = tmp_path / f"{run.__name__}.txt"
        before = len(server.requests)
        r = run("-sS", "-L", "-c", str(jar), server.url("/login"), server.url("/sub/x"))
        assert r.returncode == 0, r.stderr
        seen = [(q.path, q.headers.get("cookie")) for q in server.requests[before:]]
        # The redirect's cookie goes to its target, and to the next URL of the run.
        assert seen == [("/login", None), ("/x", "id=7"), ("/sub/x", "id=7")], run.__name__
        assert "\tid\t7" in jar.read_text()


def test_cookie_header_of_the_user_stays_with_its_origin(server: ScriptedServer) -> None:
    other = ScriptedServer()
    try:
        other.routes["/y"] = fixed(b"y")
        server.routes["/away"] = redirect(other.url("/y"))
        # curl 7.88 keeps -H 'Cookie:' from another port as anyurl does, but sends
        # -b NAME=VALUE everywhere; anyurl holds both to the first URL's origin.
        for run, args in ((curl, ["-H", "Cookie: token=secret"]),
                          (anyurl, ["-H", "Cookie: token=secret"]),
                          (anyurl, ["-b", "token=secret"])):
            before = len(other.requests)
            r = run("-sS", "-L", "-o", null_device(), *args, server.url("/away"))
            assert r.returncode == 0, r.stderr
            assert server.requests[-1].headers.get("cookie") == "token=secret"
            assert "cookie" not in other.requests[before].headers, (run.__name__, args)
        # --location-trusted sends them on.
        before = len(other.requests)
        r = anyurl("-sS", "-L", "--location-trusted", "-o", null_device(), "-b", "token=secret",
                   server.url("/away"))
        assert r.returncode == 0 and other.requests[before].headers["cookie"] == "token=secret"
    finally:
        other.close()


def test_secure_cookies_go_over_https_only() -> None:
    jar = CookieFile()
    store_cookies(jar, parse("https://example.org/"), [("Set-Cookie", "s=1; Secure"),
                                                       ("set-cookie", "p=2")])
    assert cookie_header(jar, parse("https://example.org/a")) == "s=1; p=2"
    assert cookie_header(jar, parse("http://example.org/a")) == "p=2"
    assert cookie_header(jar, parse("https://other.example/")) is None
    # The URL's login is never taken for part of the host.
    assert cookie_header(jar, parse("https://u:pw@example.org/")) == "s=1; p=2"


def test_not_a_cookie_file_names_it(tmp_path: Path) -> None:
    bad = tmp_path / "cookies.txt"
    bad.write_text("not\ta cookie line\n")
    with pytest.raises(OptionError, match=r"cookies\.txt"):
        CookieFile().load_curl(str(bad))
    r = anyurl("-b", str(bad), "http://127.0.0.1:9/")
    assert r.returncode == 2 and b"cookies.txt" in r.stderr and b"Traceback" not in r.stderr


def test_missing_cookie_file_starts_an_empty_jar(server: ScriptedServer,
                                                 tmp_path: Path) -> None:
    jar = tmp_path / "jar.txt"
    # The usual idiom of a first run: -b and -c the same file, which is not there yet.
    r = anyurl("-b", str(jar), "-c", str(jar), "-o", null_device(), server.url("/set"))
    assert r.returncode == 0 and r.stderr == b""
    assert "\tsess\tabc" in jar.read_text()
    r = anyurl("-b", str(tmp_path / "nope.txt"), "-o", null_device(), server.url("/x"))
    assert r.returncode == 0 and b"nope.txt" in r.stderr


def test_unwritable_cookie_jar_is_23(server: ScriptedServer, tmp_path: Path) -> None:
    r = anyurl("-c", str(tmp_path / "no" / "jar.txt"), "-o", null_device(), server.url("/set"))
    assert r.returncode == 23 and b"jar.txt" in r.stderr


def test_mirror_shares_its_jar(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/"] = lambda r: Reply(
        headers=[("Content-Type", "text/html"), ("Set-Cookie", "m=1")],
        body=b'<a href="/x">x</a>')
    jar = tmp_path / "jar.txt"
    (tmp_path / "in.txt").write_text(CURL_HEADER + "127.0.0.1\tFALSE\t/\tFALSE\t0\told\t0\n")
    r = subprocess.run([sys.executable, "-m", "anyurl", "mirror", "-s", "--no-robots",
                        "-b", str(tmp_path / "in.txt"), "-c", str(jar),
                        "-o", str(tmp_path / "site"), server.url("/")],
                       capture_output=True, timeout=60, env=_env())
    assert r.returncode == 0, r.stderr
    cookies = {q.path: q.headers.get("cookie") for q in server.requests}
    assert cookies["/"] == "old=0" and cookies["/x"] == "old=0; m=1"
    assert "\tm\t1" in jar.read_text() and "\told\t0" in jar.read_text()


def test_a_domain_of_an_address_must_be_that_address() -> None:
    jar = CookieFile()
    store_cookies(jar, parse("http://127.0.0.1/"), [
        ("Set-Cookie", "tail=1; Domain=0.0.1"), ("Set-Cookie", "dot=2; Domain=.0.0.1"),
        ("Set-Cookie", "own=3; Domain=127.0.0.1"), ("Set-Cookie", "plain=4")])
    assert cookie_header(jar, parse("http://10.0.0.1/")) is None
    assert cookie_header(jar, parse("http://127.0.0.1/")) == "own=3; plain=4"
    # A jar file written before the rule may hold such a domain: it is not sent on.
    old = CookieFile()
    old.set_cookie(Cookie(0, "old", "5", None, False, ".0.0.1", True, True, "/", False,
                          False, None, True, None, None, {}))
    assert cookie_header(old, parse("http://10.0.0.1/")) is None


def test_the_rules_hold_for_a_plain_jar_too() -> None:
    jar = CookieJar()
    store_cookies(jar, parse("http://127.0.0.1/"), [("Set-Cookie", "tail=1; Domain=0.0.1"),
                                                    ("Set-Cookie", "tab=a\tb")])
    assert list(jar) == []


@pytest.mark.parametrize(("host", "domain"), [("foo.github.io", "github.io"),
                                              ("www.example.com.au", "com.au"),
                                              ("a.b.example.co.uk", ".co.uk")])
def test_a_public_suffix_is_no_cookie_domain(host: str, domain: str) -> None:
    jar = CookieFile()
    store_cookies(jar, parse(f"http://{host}/"), [("Set-Cookie", f"s=1; Domain={domain}")])
    assert list(jar) == []
    store_cookies(jar, parse(f"http://{host}/"), [("Set-Cookie", f"own=1; Domain={host}")])
    assert cookie_header(jar, parse(f"http://{host}/")) == "own=1"


def test_a_public_suffix_that_is_the_host_sets_a_host_only_cookie() -> None:
    jar = CookieFile()
    store_cookies(jar, parse("http://localhost/"), [("Set-Cookie", "l=1; Domain=localhost")])
    assert cookie_header(jar, parse("http://localhost/")) == "l=1"
    assert cookie_header(jar, parse("http://sub.localhost/")) is None


@pytest.mark.parametrize("header", ["t=a\tb", "t=a\x01b", "t\x1b=1", "t=1; Path=/\x7f",
                                    "t=1; Path=/a\tb", "t=1\x00"])
def test_a_cookie_with_a_control_character_is_dropped(header: str, tmp_path: Path) -> None:
    jar = CookieFile()
    store_cookies(jar, parse("http://example.org/"), [("Set-Cookie", header),
                                                      ("Set-Cookie", "ok=1;\tPath=/")])
    assert [c.name for c in jar] == ["ok"]
    jar.save_curl(str(tmp_path / "jar.txt"))
    again = CookieFile()
    again.load_curl(str(tmp_path / "jar.txt"))
    assert [(c.name, c.value) for c in again] == [("ok", "1")]


def test_a_cookie_a_program_sets_with_a_tab_is_left_out_of_the_file(tmp_path: Path) -> None:
    jar = CookieFile()
    for name, value in (("bad", "a\tb"), ("ok", "1")):
        jar.set_cookie(Cookie(0, name, value, None, False, "example.org", False, False,
                              "/", False, False, None, True, None, None, {}))
    jar.save_curl(str(tmp_path / "jar.txt"))
    lines = (tmp_path / "jar.txt").read_text().splitlines()
    assert [line.split("\t")[5] for line in lines if "\t" in line] == ["ok"]


def test_a_bad_line_of_a_jar_is_skipped_with_a_warning(server: ScriptedServer,
                                                       tmp_path: Path) -> None:
    jar = tmp_path / "jar.txt"
    jar.write_text(CURL_HEADER
                   + "127.0.0.1\tFALSE\t/\tFALSE\t0\tfirst\t1\n"
                   + "127.0.0.1\tFALSE\t/\tFALSE\t0\tbroken\ta\tb\n"
                   + "127.0.0.1\tFALSE\t/\tFALSE\tsoon\tdate\t1\n"
                   + "127.0.0.1\tFALSE\t/\tFALSE\t0\tbell\t\x07\n"
                   + "127.0.0.1\tTRUE\t/\tFALSE\t0\tlast\t2\n")
    messages: list[str] = []
    loaded = CookieFile()
    loaded.load_curl(str(jar), warn=messages.append)
    assert sorted(c.name for c in loaded) == ["first", "last"]
    assert [m.split(":")[1] for m in messages] == ["6", "7", "8"]
    with pytest.warns(UserWarning) as warned:
        CookieFile().load_curl(str(jar))
    assert [str(w.message).split(":")[1] for w in warned] == ["6", "7", "8"]
    # The command warns, sends the good lines, and writes the jar back whole.
    before = len(server.requests)
    r = anyurl("-b", str(jar), "-c", str(jar), "-o", null_device(), server.url("/x"))
    assert r.returncode == 0 and b"jar.txt:6" in r.stderr, r.stderr
    assert server.requests[before].headers.get("cookie") == "first=1; last=2"
    assert "broken" not in jar.read_text()
    r = anyurl("-b", str(jar), "-o", null_device(), server.url("/x"))
    assert r.returncode == 0 and r.stderr == b""


def test_a_server_cannot_set_a_cookie_for_other_addresses(server: ScriptedServer,
                                                          tmp_path: Path) -> None:
    server.routes["/ip"] = lambda r: Reply(headers=[
        ("Set-Cookie", "wide=1; Domain=0.0.1"), ("Set-Cookie", "ctl=a\x1b[2Jb"),
        ("Set-Cookie", "good=1")], body=b"ok")
    jar = tmp_path / "jar.txt"
    r = anyurl("-c", str(jar), "-o", null_device(), server.url("/ip"))
    assert r.returncode == 0, r.stderr
    cookies = [line.split("\t") for line in jar.read_text().splitlines() if "\t" in line]
    assert [(c[0], c[5]) for c in cookies] == [("127.0.0.1", "good")]


def test_a_host_only_cookie_goes_to_its_host_only(tmp_path: Path) -> None:
    # RFC 6265 5.3 step 6, as curl: no Domain= means this host, not its subdomains;
    # kept so through a jar file (its include-subdomains column says FALSE).
    from anyurl.cookies import CookieFile, cookie_header, store_cookies

    from anyurl.url import parse

    jar = CookieFile()
    site = parse("http://www.example.com/")
    store_cookies(jar, site, [("set-cookie", "host=1; Path=/"),
                              ("set-cookie", "dom=2; Path=/; Domain=www.example.com")])
    below = parse("http://a.www.example.com/")
    assert cookie_header(jar, site) == "host=1; dom=2"
    assert cookie_header(jar, below) == "dom=2"
    jar.save_curl(str(tmp_path / "jar.txt"))
    again = CookieFile()
    again.load_curl(str(tmp_path / "jar.txt"))
    assert cookie_header(again, below) == "dom=2"
    assert cookie_header(again, site) in ("host=1; dom=2", "dom=2; host=1")
