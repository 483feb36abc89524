"""``anyurl serve`` showing resources in TLS of a private CA: ``--cacert``, ``--capath``
and ``-k`` (the definitions ``anyurl get`` and ``mirror`` use) reach every live fetch.

The peers are nntps:// (stunnel in front of leafnode, "leafnode-tls") and ftps://
(vsftpd with implicit TLS, "vsftpd-implicit"), each with a certificate of its own test
CA. Without the flags the gateway answers 502 with the certificate error; with both
CAs in one --cacert file, or in a --capath directory, or with -k, the newsgroup is a
page and the file's bytes are the server's.
"""

from __future__ import annotations

import html
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_serve import Served, start_serve, stop
from tests.peers import data

pytestmark = [pytest.mark.integration]


def _paths(peers: Any) -> tuple[str, str]:
    """The gateway paths of the nntps newsgroup and of an ftps file (raw)."""
    nntps, ftps = peers["leafnode-tls"], peers["vsftpd-implicit"]
    return (f"/nntps://{nntps.hostport}/{nntps.extra['group']}",
            f"/_raw/ftps://{ftps.hostport}/pub/readme.txt")


def _cas(peers: Any) -> list[bytes]:
    return [Path(str(peers[name].extra["cafile"])).read_bytes()
            for name in ("leafnode-tls", "vsftpd-implicit")]


def _shows_both(served: Served, peers: Any) -> None:
    group, readme = _paths(peers)
    status, _, body = served.request(group)
    assert status == 200 and b"First article" in body, body[:500]
    status, _, body = served.request(readme)
    assert status == 200 and body == data.expected_bytes("pub/readme.txt")


def _serving(*args: str) -> Served:
    return start_serve("--timeout", "30", *args)


def test_without_the_ca_the_certificate_is_refused(peers: Any) -> None:
    served = _serving()
    try:
        for path in _paths(peers):
            status, _, body = served.request(path)
            assert status == 502, body[:500]
            assert "was not accepted" in html.unescape(body.decode())
    finally:
        stop(served.proc)


def test_cacert_with_both_cas(peers: Any, tmp_path: Path) -> None:
    bundle = tmp_path / "test-cas.pem"
    bundle.write_bytes(b"".join(_cas(peers)))
    served = _serving("--cacert", str(bundle))
    try:
        _shows_both(served, peers)
    finally:
        stop(served.proc)


def test_capath_and_insecure(peers: Any, tmp_path: Path) -> None:
    cas = tmp_path / "cas"
    cas.mkdir()
    for number, pem in enumerate(_cas(peers)):
        (cas / f"ca{number}.pem").write_bytes(pem)
    subprocess.run(["openssl", "rehash", str(cas)], check=True, capture_output=True)
    for args in (("--capath", str(cas)), ("-k",)):
        served = _serving(*args)
        try:
            _shows_both(served, peers)
        finally:
            stop(served.proc)
