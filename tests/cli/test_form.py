"""``-F`` multipart/form-data POSTs, side by side with curl against the scripted server.

The bodies are compared byte for byte once each side's random boundary is replaced by
one placeholder: the parts, their headers, the framing and ``Content-Length`` agree.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import anyio
import pytest

from anyurl.errors import OptionError
from anyurl.schemes.http.forms import BLOCK, Form, Part, parse_form_option
from tests.cli.devices import null_device
from tests.cli.test_curl_options import anyurl, curl
from tests.integration.test_http import ScriptedServer, fixed, redirect

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


@pytest.fixture
def server() -> ScriptedServer:
    srv = ScriptedServer()
    srv.routes["/up"] = fixed(b"ok")
    yield srv  # type: ignore[misc]
    srv.close()


def _sent(server: ScriptedServer, run: object, *args: str) -> tuple[str, dict[str, str], bytes]:
    before = len(server.requests)
    r = run("-sS", "-o", null_device(), *args)  # type: ignore[operator]
    assert r.returncode == 0, r.stderr
    request = server.requests[before]
    boundary = request.headers["content-type"].partition("boundary=")[2]
    assert boundary and re.fullmatch(r"-+[0-9a-f]+", boundary)
    body = request.body.replace(boundary.encode(), b"BOUNDARY")
    headers = {k: v.replace(boundary, "BOUNDARY") for k, v in request.headers.items()
               if k in ("content-type", "content-length")}
    return request.line.rsplit(" ", 1)[0], headers, body


def test_fields_and_files_as_curl(server: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_bytes(b"line one\r\nline two\n")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 300)
    (tmp_path / "value.txt").write_bytes(b"from a file")
    for args in (
        ["-F", "name=value"],
        ["-F", "a=1", "-F", "b=two words", "-F", f"up=@{tmp_path / 'notes.txt'}"],
        ["-F", f"bin=@{tmp_path / 'blob.bin'}"],
        ["-F", f"doc=@{tmp_path / 'notes.txt'};type=text/x-notes"],
        ["-F", f"doc=@{tmp_path / 'notes.txt'};filename=other.txt"],
        ["-F", f"v=<{tmp_path / 'value.txt'}"],
        ["-F", 'q="@not a file"'],
        ["-F", "t=text;type=text/html"],
    ):
        theirs = _sent(server, curl, *args, server.url("/up"))
        ours = _sent(server, anyurl, *args, server.url("/up"))
        assert ours == theirs, args
        assert ours[0] == "POST /up"


def test_a_form_follows_307_and_becomes_a_get_after_303(server: ScriptedServer,
                                                        tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"x" * 100)
    server.routes["/307"] = redirect("/up", 307)
    server.routes["/303"] = redirect("/up", 303)
    for path in ("/307", "/303"):
        seen = []
        for run in (curl, anyurl):
            before = len(server.requests)
            r = run("-sS", "-L", "-o", null_device(), "-F", f"f=@{tmp_path / 'f.txt'}",
                    server.url(path))
            assert r.returncode == 0, r.stderr
            second = server.requests[before + 1]
            seen.append((second.line.split()[0], len(second.body)))
        assert seen[0] == seen[1], path


def test_the_boundary_never_occurs_in_a_part(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    first = "-" * 24 + "ab" * 8
    draws = iter(["ab" * 8, "cd" * 8])
    monkeypatch.setattr("secrets.token_hex", lambda n: next(draws))
    # The first boundary drawn is in the file, across a block edge: it is drawn again.
    data = b"x" * (BLOCK - 10) + first.encode() + b"y" * 10
    (tmp_path / "f").write_bytes(data)
    form = Form([Part("f", path=str(tmp_path / "f"))])
    assert form.boundary == "-" * 24 + "cd" * 8

    async def body() -> bytes:
        return b"".join([chunk async for chunk in form.chunks()])

    sent = anyio.run(body)
    assert len(sent) == len(form) and data in sent


def test_streamed_in_blocks_and_a_shrinking_file_fails(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"z" * (3 * BLOCK + 5))
    form = Form([Part("f", path=str(path))])

    async def sizes() -> list[int]:
        return [len(chunk) async for chunk in form.chunks()]

    assert max(anyio.run(sizes)) == BLOCK  # never the whole file at once
    path.write_bytes(b"z")
    with pytest.raises(OptionError, match="shrank"):
        anyio.run(sizes)


def test_bad_fields_are_refused_before_connecting(tmp_path: Path) -> None:
    for text in ("novalue", "=x", f"f=@{tmp_path / 'missing'}", 'f="open', "f=@x;headers=a"):
        with pytest.raises(OptionError):
            part = parse_form_option(text)
            Form([part])
    r = anyurl("-F", "a=1", "-d", "b=2", "http://127.0.0.1:9/")
    assert r.returncode == 2 and b"-F" in r.stderr
    r = anyurl("-F", f"f=@{tmp_path / 'missing'}", "http://127.0.0.1:9/")
    assert r.returncode == 2 and b"missing" in r.stderr and b"Traceback" not in r.stderr
