"""A library is silent unless the application configures logging; the command line
still shows the warnings (issue 20, point 6)."""

from __future__ import annotations

import socket
import subprocess
import sys

from tests.cli.test_get_cli import _env


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: A fetch whose handler warns before connecting (a password over plain http), then fails.
LIBRARY = """
import sys, anyurl
{setup}
try:
    anyurl.fetch("http://u:pw@127.0.0.1:{port}/x",
                 config=anyurl.Config(allowed_ports=frozenset({{{port}}}), connect_timeout=5))
except anyurl.AnyURLError:
    pass
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(), timeout=60, stdin=subprocess.DEVNULL)


def test_the_library_writes_nothing_to_stderr() -> None:
    r = _run(LIBRARY.format(setup="", port=_closed_port()))
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


def test_an_application_that_configures_logging_gets_the_warning() -> None:
    setup = "import logging; logging.basicConfig(format='LOG %(name)s %(message)s')"
    r = _run(LIBRARY.format(setup=setup, port=_closed_port()))
    assert "LOG anyurl http://u:****@127.0.0.1" in r.stderr, r.stderr
    assert "carries a password" in r.stderr and ":pw@" not in r.stderr


def test_the_command_line_still_shows_warnings() -> None:
    port = _closed_port()
    r = subprocess.run([sys.executable, "-m", "anyurl", "get", "--allow-port", str(port),
                        "-o", "-", f"http://u:pw@127.0.0.1:{port}/x"],
                       capture_output=True, text=True, env=_env(), timeout=60,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 7, r.stderr
    assert "anyurl: warning: http://u:****@127.0.0.1" in r.stderr
    # and what reaches the package logger from any path is shown too, once
    code = ("import logging; from anyurl.cli.main import main, install_log_handler; "
            "install_log_handler(); main(['parse', 'ftp://h/']); "
            "logging.getLogger('anyurl.schemes').warning('typed the user x')")
    r = _run(code)
    assert r.stderr == "anyurl: warning: typed the user x\n", r.stderr
