"""The scheme policy holds on every path a URL takes, not only for the URL typed.

A Prospero object whose access method is LOCAL names a file of this machine: the
handler derives a ``file:`` URL and opens it through the gate. A run that refuses
``file:`` (``--proto -file``; ``anyurl serve`` without ``--allow-file``) must refuse that
derived URL as it refuses a typed one: before, ``anyurl serve`` checked ``file:`` only at
its own front door, and ``/_raw/prospero://.../pub/local`` returned the local file.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from anyurl.config import Config
from anyurl.errors import SchemeRefused
from anyurl.options import ProsperoOptions
from anyurl.resolver import Resolver
from anyurl.scheme_policy import SchemePolicy
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.prospero.loopback import serve_prospero
from tests.integration.test_serve import _env, start_serve, stop

pytestmark = [pytest.mark.integration]

SECRET = b"a file of this machine, not for the far side\n"
NO_FILE = Config(protocols=SchemePolicy().refusing("file"))


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_bytes(SECRET)
    return path


@pytest.mark.anyio
@pytest.mark.parametrize("raw", [False, True], ids=["follow", "raw-as-the-mirror"])
async def test_a_derived_file_url_meets_the_policy(secret: Path, raw: bool) -> None:
    options = FetchOptions(schemes=(ProsperoOptions(follow=not raw, ardp_timeout=0.2),))
    options = dataclasses.replace(options, raw=raw)
    async with serve_prospero(local_file=str(secret)) as server, \
            Resolver(NO_FILE, warn=lambda _: None) as resolver:
        with pytest.raises(SchemeRefused, match="file: URLs are not allowed"):
            async with resolver.open(server.url("/pub/local"), options) as resource:
                await resource.read()
        # The same resolver still follows what the policy allows.
        async with Resolver(Config(), warn=lambda _: None) as open_resolver, \
                open_resolver.open(server.url("/pub/local"), options) as resource:
            assert await resource.read() == SECRET


@pytest.fixture
def prospero_process(secret: Path) -> Iterator[int]:
    """A Prospero loopback server in its own process (anyurl serve is one too)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "anyurl.schemes.prospero.loopback", "--port", "0",
         "--local-file", str(secret)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(),
        stdin=subprocess.DEVNULL, start_new_session=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    try:
        yield int(line.rsplit(":", 1)[1])
    finally:
        stop(proc)


@pytest.mark.parametrize("prefix", ["/_raw/", "/"])
def test_serve_without_allow_file_refuses_a_local_access_method(
        prospero_process: int, prefix: str) -> None:
    target = f"{prefix}prospero://127.0.0.1:{prospero_process}//pub/local"
    served = start_serve("--no-token")
    try:
        status, _, body = served.request(target)
    finally:
        stop(served.proc)
    assert SECRET not in body
    if prefix == "/_raw/":
        assert status == 403 and b"--allow-file" in body
    allowed = start_serve("--no-token", "--allow-file")
    try:
        status, _, body = allowed.request(f"/_raw/prospero://127.0.0.1:{prospero_process}"
                                          "//pub/local")
    finally:
        stop(allowed.proc)
    assert status == 200 and body == SECRET


def test_get_follow_with_proto_refuses_file(prospero_process: int, tmp_path: Path) -> None:
    url = f"prospero://127.0.0.1:{prospero_process}//pub/local"
    done = subprocess.run(
        [sys.executable, "-m", "anyurl", "get", "--follow", "--proto", "-file", url],
        capture_output=True, env=_env(), timeout=60, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert SECRET not in done.stdout and b"file: URLs are not allowed" in done.stderr
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "--follow", url],
                          capture_output=True, env=_env(), timeout=60, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == SECRET


def test_a_prospero_file_has_its_own_name_in_get_and_serve(prospero_process: int,
                                                          tmp_path: Path) -> None:
    # Issue 31: get -O saved it as '127.0.0.1', serve offered it as 'download'; both
    # now ask the scheme (its descriptor's local_name, through remote_name).
    url = f"prospero://127.0.0.1:{prospero_process}//pub/contents"
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run([sys.executable, "-m", "anyurl", "get", "-O", "--follow", url],
                          capture_output=True, env=_env(), timeout=60, cwd=out)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in out.iterdir()] == ["contents"]
    served = start_serve("--no-token")
    try:
        status, headers, _ = served.request(f"/_raw/{url}")
    finally:
        stop(served.proc)
    assert status == 200, headers
    assert headers.get("content-disposition", "").endswith("''contents")
