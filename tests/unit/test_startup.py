"""Start-up stays lean (issue 21): what ``anyurl --version`` and a plain ``anyurl get`` of
one http URL must not import.

Almost all of the command's fixed cost is imports (``bench/startup.py`` times it); a
module imported at the top of a file where a function would do costs every run. These
tests name the modules such a ``get`` has no use for and check, in a fresh interpreter,
that none of them is in ``sys.modules`` after it ran. They never time anything: the
figures are in ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from anyurl.schemes.http.loopback import serve_http
from anyurl.testing._server import serving_in_thread

SRC = Path(__file__).resolve().parents[2] / "src"

#: Imported only by the options, schemes and outputs that need them: cookies (-b/-c),
#: forms (-F), JSON (--json, -w %{json}, --answers), Content-Disposition and HTTP dates
#: (the email package), a mirror's links (lxml, selectolax, tinycss2), suggestions (difflib),
#: staging names (hashlib), progress bars (rich), WARC, HTTP/2, password prompts (getpass).
HEAVY = (
    "email", "http.cookiejar", "urllib.request", "html.parser", "json", "difflib",
    "hashlib", "mimetypes", "secrets", "getpass", "rich", "warcio", "h2", "trio",
    "anyurl.schemes.http.cookies", "anyurl.downloads.warc", "anyurl.links", "anyurl.url.text",
    "anyurl.mirror", "anyurl.mirror.scale", "anyurl.cli.progress", "anyurl.cli.hints",
    "anyurl.schemes.http.html_links", "anyurl.schemes.http.css_links", "lxml",
    "selectolax", "tinycss2",
    "anyurl.schemes.http.http2", "anyurl.protocols",
    "anyurl.schemes.http.forms",  # -F forms (their dataclasses)
    # the other schemes' handlers (each package but its light modules: LIGHT)
    "anyurl.schemes.ftp", "anyurl.schemes.gopher", "anyurl.schemes.news",
    "anyurl.schemes.telnet", "anyurl.schemes.mailto", "anyurl.schemes.wais",
    "anyurl.schemes.prospero", "anyurl.schemes.file", "anyurl.schemes.gateway",
)

#: A scheme package's modules that parsing a URL and building options import: the package
#: itself (its docstring), its descriptor, its view and its options; the rest of it is its
#: handler's, which only a URL of the scheme imports.
LIGHT = re.compile(r"anyurl\.schemes\.\w+(\.(spec|view|options|flags))?\Z")

#: The views and options classes of the schemes a plain http ``get`` does not fetch: each
#: is a dataclass (about a millisecond to create), in a module imported when first asked
#: for (``anyurl.url.views``, ``anyurl.options``, or the scheme's own module). GopherOptions
#: is made whenever stdout is no terminal (menus saved as sent); FTPOptions only for an ftp
#: flag or ftp's -R.
OTHER_SCHEMES = (
    "anyurl.schemes.ftp.view", "anyurl.schemes.gopher.view", "anyurl.schemes.mailto.view",
    "anyurl.schemes.news.view", "anyurl.schemes.telnet.view", "anyurl.schemes.wais.view",
    "anyurl.schemes.file.view", "anyurl.schemes.prospero.view",
    "anyurl.schemes.ftp.options", "anyurl.schemes.news.options",
    "anyurl.schemes.telnet.options", "anyurl.schemes.mailto.options",
    "anyurl.schemes.prospero.options", "anyurl.schemes.wais.options",
)

#: What only a run with a gateway or a proxy uses (``-x``, ``--gateway``, ``*_proxy``):
#: the routing rules and their Gateway dataclass.
DIRECT_RUN = ("anyurl.net.routing",)

#: Modules a plain ``get`` has no use for that some interpreters' ``site`` imports at
#: start (a sandbox's certificate hook imports random): checked beyond what ``site`` had.
#: random (its hashing and bisect) is a retry's jitter only; shutil (with bz2 and lzma) is
#: where argparse's formatter reads the terminal's width, which anyurl's reads from os.
AT_START_ELSEWHERE = ("random", "shutil", "bz2", "lzma")

#: What ``anyurl --version`` must not import: the argument parser, typing, logging (the
#: package logger's NullHandler comes with anyurl.config), re, the error tree.
NOT_FOR_VERSION = ("argparse", "gettext", "typing", "logging", "re", "enum",
                   "anyurl.errors", "anyurl.cli.common",
                   "anyurl.options", "anyurl.url", "anyurl.registry", "anyurl.config")

#: The command-line start that ``--version`` and every command pay.
NOT_AT_IMPORT = ("asyncio", "anyio", "h11", "ssl", "anyurl.cli.get_cmd",
                 "anyurl.downloads.downloader", "anyurl.resolver", "anyurl.schemes.http")


def _loaded(code: str) -> tuple[set[str], bytes]:
    """Run ``code`` in a fresh interpreter on this checkout; the names in ``sys.modules``
    afterwards (written by the child without importing anything more) and its stdout."""
    code += ("\nimport sys\n"
             "with open(sys.argv[1], 'w') as f:\n"
             "    f.write('\\n'.join(sorted(sys.modules)))\n")
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "modules.txt"
        proc = subprocess.run([sys.executable, "-c", code, str(record)], env=env,
                              capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        return set(record.read_text().split()), proc.stdout


def _among(names: set[str], wanted: tuple[str, ...]) -> list[str]:
    """The modules of ``wanted`` (or of their packages) that are in ``names``."""
    return sorted(n for n in names for w in wanted if n == w or n.startswith(w + "."))


def _heavy(names: set[str], more: tuple[str, ...] = ()) -> list[str]:
    """The modules of :data:`HEAVY` (and ``more``) in ``names``, but a scheme's light ones."""
    return [n for n in _among(names, HEAVY + more) if not LIGHT.match(n)]


def test_importing_the_command_line_imports_no_event_loop_and_no_heavy_module():
    names, _ = _loaded("import anyurl.cli.main")
    assert _among(names, HEAVY + NOT_AT_IMPORT) == []


def test_version_imports_no_command():
    names, out = _loaded("from anyurl.cli.main import main\nmain(['--version'])")
    assert out.startswith(b"anyurl ")
    assert _among(names, HEAVY + NOT_AT_IMPORT) == []


def test_version_imports_no_parser_and_nothing_of_anyurl_but_the_entry_point():
    bare, _ = _loaded("pass")  # what this interpreter's site imported (certifi, typing...)
    names, out = _loaded("from anyurl.cli.main import main\nmain(['--version'])")
    assert out.startswith(b"anyurl ")
    added = names - bare
    assert _among(added, NOT_FOR_VERSION) == []
    assert sorted(n for n in added if n.split(".")[0] == "anyurl") == [
        "anyurl", "anyurl.cli", "anyurl.cli.main"]


def test_the_package_logger_is_silent_once_the_resolver_is_imported():
    # the NullHandler moved from the package's __init__ to anyurl.config, which the
    # resolver (the module that logs) imports: the library stays silent
    _, out = _loaded("import logging, anyurl.resolver\n"
                     "print(any(isinstance(h, logging.NullHandler)\n"
                     "          for h in logging.getLogger('anyurl').handlers))")
    assert out == b"True\n"


def test_the_views_and_options_of_other_schemes_are_made_when_first_asked_for():
    names, out = _loaded("""
import anyurl.options, anyurl.url, anyurl.url.views
from anyurl.url import parse
url = parse("http://example.org/a?b")
assert type(url.parts).__name__ == "HTTPPath"
before = sorted(n for n in __import__("sys").modules
                if n.endswith((".view", ".options")) and n.startswith("anyurl.schemes."))
from anyurl.options import WAISOptions
from anyurl.url import FTPPath
from anyurl.url.views import FTPPath as view, View, nntp_path
import anyurl
assert view is FTPPath and anyurl.WAISOptions is WAISOptions
assert parse("ftp://h/a/b;type=a").parts == FTPPath(("a",), "b", "a")
assert nntp_path("g/7").article == 7 and WAISOptions().max_documents == 100
assert FTPPath in View.__args__ and "TelnetPart" in dir(anyurl.url.views)
print(" ".join(before))
""")
    made_first = {name.decode() for name in out.split()}
    assert "anyurl.schemes.http.view" in made_first
    assert _among(made_first, OTHER_SCHEMES) == []
    assert _among(names, ("anyurl.schemes.ftp.view", "anyurl.schemes.news.view",
                          "anyurl.schemes.wais.options", "anyurl.schemes.telnet.view")) != []


def test_a_plain_get_of_one_http_url_imports_only_what_it_uses(tmp_path, monkeypatch):
    for name in [n for n in os.environ if n.lower().endswith("_proxy")]:
        monkeypatch.delenv(name)  # a proxy in the environment is a gateway's run
    (tmp_path / "small.txt").write_bytes(b"hello, start-up\n")
    with serving_in_thread(serve_http, str(tmp_path)) as port:
        url = f"http://127.0.0.1:{port}/small.txt"
        names, out = _loaded("from anyurl.cli.main import main\n"
                             f"status = main(['get', '-s', {url!r}])\n"
                             "assert status == 0, status")
    assert out == b"hello, start-up\n"
    assert "anyurl.schemes.http.handler" in names  # the run did fetch over http
    assert _heavy(names) == []
    assert _among(names, OTHER_SCHEMES) == []
    assert _among(names, DIRECT_RUN) == []
    assert _among(names - _loaded("pass")[0], AT_START_ELSEWHERE) == []


def test_a_plain_get_of_one_file_url_imports_no_http_and_no_link_finder(tmp_path):
    (tmp_path / "small.txt").write_bytes(b"hello, file\n")
    url = (tmp_path / "small.txt").as_uri()
    names, out = _loaded("from anyurl.cli.main import main\n"
                         f"status = main(['get', {url!r}])\n"
                         "assert status == 0, status")
    assert out == b"hello, file\n"
    assert "anyurl.schemes.file.handler" in names  # the run did read the file
    # a directory listing's links (a mirror's walk) and every http module stay out;
    # mimetypes gives the file's Content-Type
    assert _heavy(names, ("h11", "anyurl.schemes.http")) == [
        "anyurl.schemes.file.handler", "mimetypes"]
    assert _among(names, OTHER_SCHEMES) == ["anyurl.schemes.file.view"]
    assert _among(names - _loaded("pass")[0], AT_START_ELSEWHERE) == []


def test_the_options_type_check_answers_alike_without_importing_cookies_or_forms():
    code = """
import sys
from anyurl.errors import OptionError
from anyurl.options import HTTPOptions

HTTPOptions().check()  # None is allowed: nothing to import
messages = []
for wrong in ({"cookies": "jar.txt"}, {"form": b"a=b"}):
    try:
        HTTPOptions(**wrong).check()
    except OptionError as exc:
        messages.append(str(exc))
assert "http.cookiejar" not in sys.modules and "anyurl.schemes.http.forms" not in sys.modules
print("\\n".join(messages))
from http.cookiejar import CookieJar
from anyurl.schemes.http.forms import Form, Part
HTTPOptions(cookies=CookieJar(), form=Form([Part("a", b"b")])).check()  # the real classes
print("ok")
"""
    _, out = _loaded(code)
    lines = out.decode().splitlines()
    assert lines == [  # the messages the real classes gave
        "http option cookies='jar.txt' is not of type http.cookiejar.CookieJar | None",
        "http option form=b'a=b' is not of type anyurl.schemes.http.forms.Form | None",
        "ok",
    ]


def test_the_parsers_read_the_width_as_shutil_does_without_asking_it(monkeypatch):
    import shutil

    from anyurl.cli.common import terminal_columns
    from anyurl.cli.main import build_parser

    for columns in ("57", "0", "x", None):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        assert terminal_columns() == shutil.get_terminal_size().columns
    monkeypatch.setenv("COLUMNS", "61")
    wrapped = argparse.HelpFormatter("anyurl get")._width  # as argparse's own wraps

    def helped() -> str:
        parser = build_parser("get", plugins=False)
        args, _ = parser.parse_known_args(["get", "-s", "file:///x"])
        assert args.urls == ["file:///x"]
        return str(parser._subparsers._group_actions[0].choices["get"].format_help())

    before = helped()
    asked: list[object] = []
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: asked.append(a))
    assert helped() == before and asked == []  # the width came from os
    assert wrapped == 59 and "--output-dir" in before


def test_parse_reads_the_scheme_registry_without_loading_a_handler():
    names, out = _loaded("from anyurl.cli.main import main\n"
                         "assert main(['parse', 'http://example.org/a']) == 0")
    assert out.startswith(b"url       http://example.org/a\n")
    assert "anyurl.schemes.http.spec" in names  # the default port and view came from it
    assert _among(names, ("anyurl.schemes.http.handler", "anyurl.schemes.base", "h11",
                          "anyio", "asyncio", "ssl", "anyurl.resolver")) == []


def test_the_http_package_gives_its_names_when_first_asked_for():
    _, out = _loaded("import sys, anyurl.schemes.http as http\n"
                     "assert 'anyurl.schemes.http.handler' not in sys.modules\n"
                     "from anyurl.schemes.http import HTTPHandler, tunnel_to, USER_AGENT\n"
                     "assert HTTPHandler.__module__ == 'anyurl.schemes.http.handler'\n"
                     "assert set(http.__all__) <= set(dir(http))\n"
                     "print(all(getattr(http, n) is not None for n in http.__all__))")
    assert out == b"True\n"
