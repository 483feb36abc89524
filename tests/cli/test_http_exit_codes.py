"""HTTP error answers exit 22, as ``curl -f`` does for every one; FTP and the other schemes
keep their own codes (issue 23, point 6). Side by side with curl."""

from __future__ import annotations

import shutil

import pytest

from anyurl.errors import LoginDenied, RemoteFileNotFound, ServerError
from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import Reply, ScriptedServer
from tests.peers.pytest_plugin import Peers

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


@pytest.mark.parametrize("status,reason", [(400, "Bad Request"), (401, "Unauthorized"),
                                           (403, "Forbidden"), (404, "Not Found"),
                                           (410, "Gone"), (500, "Internal Server Error"),
                                           (503, "Service Unavailable")])
def test_every_http_error_exits_22_as_curl_f(server: ScriptedServer, status: int,
                                             reason: str) -> None:
    server.routes["/x"] = lambda rq: Reply(status, reason, body=b"no")
    ours, theirs = anyurl("-sS", server.url("/x")), curl("-sSf", server.url("/x"))
    assert ours.returncode == theirs.returncode == 22, ours.stderr
    assert str(status).encode() in ours.stderr  # the message still says which


def test_ftp_keeps_its_codes_as_curl(peers: Peers) -> None:
    for path, code in (("no/such.txt", 9), ("such.txt", 78)):  # CWD refused; RETR 550
        missing = peers["vsftpd"].url(path)
        ours, theirs = anyurl("-sS", missing), curl("-sS", missing)
        assert ours.returncode == theirs.returncode == code, (path, ours.stderr)


def test_the_class_stays_the_code_follows_the_scheme() -> None:
    for cls in (RemoteFileNotFound, LoginDenied):
        error = cls("answered", url="http://h/x")
        error.status = 404
        assert isinstance(error, cls) and error.exit_code == 22
        ftp = cls("answered", url="ftp://h/x")
        ftp.status = 550
        assert ftp.exit_code == cls.exit_code
    assert ServerError("x", status=500, url="https://h/").exit_code == 22
    assert RemoteFileNotFound("gone", url="http://h/").exit_code == 78  # no answer status
