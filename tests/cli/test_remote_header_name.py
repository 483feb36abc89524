"""``-J``/``--remote-header-name`` with ``-O``, side by side with curl.

The name comes from ``Content-Disposition`` parsed by the standard library (RFC 6266,
``filename*=`` per RFC 5987/2231), made safe as ``-O`` names are, and never overwrites
an existing file unless ``--clobber``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from anyurl.downloads.names import disposition_filename
from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import Reply, ScriptedServer, fixed

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    yield srv  # type: ignore[misc]
    srv.close()


def _serve(server: ScriptedServer, path: str, disposition: str, body: bytes = b"data") -> str:
    server.routes[path] = lambda r: Reply(headers=[("Content-Disposition", disposition)],
                                          body=body)
    return server.url(path)


@pytest.mark.parametrize(("disposition", "name"), [
    ('attachment; filename="report 2024.pdf"', "report 2024.pdf"),
    ("attachment; filename=plain.txt", "plain.txt"),
    ('attachment; filename="a;b.txt"', "a;b.txt"),  # a quoted ';' is data
    ('attachment; filename="/etc/passwd"', "passwd"),  # never a path
    ('attachment; filename="../../up.txt"', "up.txt"),
])
def test_the_name_curl_gives(server: ScriptedServer, tmp_path: Path, disposition: str,
                             name: str) -> None:
    url = _serve(server, "/dl", disposition)
    for run in (curl, anyurl):
        where = tmp_path / run.__name__
        where.mkdir()
        r = run("-sS", "-O", "-J", url, cwd=where)
        assert r.returncode == 0, r.stderr
        assert os.listdir(where) == [name], run.__name__
        assert (where / name).read_bytes() == b"data"


def test_extended_filename_wins_as_rfc_6266_says(server: ScriptedServer,
                                                 tmp_path: Path) -> None:
    # curl 7.88 reads only filename=; RFC 6266 4.3 prefers filename*= when both are given.
    url = _serve(server, "/dl", "attachment; filename=plain.txt; "
                 "filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.txt")
    r = anyurl("-sS", "-O", "-J", url, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp_path) == ["naïve résumé.txt"]


def test_unsafe_names_are_made_safe(server: ScriptedServer, tmp_path: Path) -> None:
    url = _serve(server, "/dl", "attachment; filename*=UTF-8''..%2Fx%0A.bashrc")
    r = anyurl("-sS", "-O", "-J", url, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp_path) == ["x_.bashrc"]
    assert disposition_filename('inline; filename=".."') is None


def test_without_disposition_the_url_names_it(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/plain.bin"] = fixed(b"x")
    for run in (curl, anyurl):
        where = tmp_path / run.__name__
        where.mkdir()
        assert run("-sS", "-O", "-J", server.url("/plain.bin"), cwd=where).returncode == 0
        assert os.listdir(where) == ["plain.bin"], run.__name__


def test_an_existing_file_is_kept_unless_clobber(server: ScriptedServer,
                                                 tmp_path: Path) -> None:
    url = _serve(server, "/dl", "attachment; filename=kept.txt", body=b"new")
    (tmp_path / "kept.txt").write_bytes(b"old")
    (tmp_path / "link.txt").symlink_to(tmp_path / "elsewhere.txt")
    r = curl("-sS", "-O", "-J", url, cwd=tmp_path)
    assert r.returncode != 0 and (tmp_path / "kept.txt").read_bytes() == b"old"
    r = anyurl("-sS", "-O", "-J", url, cwd=tmp_path)
    assert r.returncode == 73 and b"kept.txt" in r.stderr and b"--clobber" in r.stderr
    assert (tmp_path / "kept.txt").read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["kept.txt", "link.txt"]  # no debris left
    r = anyurl("-sS", "-O", "-J", "--clobber", url, cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "kept.txt").read_bytes() == b"new"
    # A link at the name is replaced, never written through.
    url = _serve(server, "/l", "attachment; filename=link.txt", body=b"L")
    assert anyurl("-sS", "-O", "-J", url, cwd=tmp_path).returncode == 73
    assert anyurl("-sS", "-O", "-J", "--clobber", url, cwd=tmp_path).returncode == 0
    assert not (tmp_path / "link.txt").is_symlink()
    assert not (tmp_path / "elsewhere.txt").exists()


def test_a_failed_transfer_leaves_nothing(server: ScriptedServer, tmp_path: Path) -> None:
    server.routes["/cut"] = lambda r: Reply(raw=b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n"
                                            b"Content-Disposition: attachment; filename=c\r\n"
                                            b"\r\nabc", close=True)
    r = anyurl("-sS", "-O", "-J", server.url("/cut"), cwd=tmp_path)
    assert r.returncode == 18, r.stderr
    assert os.listdir(tmp_path) == []


def test_j_needs_o_and_refuses_c(tmp_path: Path) -> None:
    for args in (["-J"], ["-J", "-O", "-C", "-"], ["-J", "-o", "f"]):
        r = anyurl(*args, "http://127.0.0.1:9/x", cwd=tmp_path)
        assert r.returncode == 2 and b"Content-Disposition" in r.stderr, args
