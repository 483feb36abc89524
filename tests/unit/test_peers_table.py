"""The peers table is the one source of truth: the committed compose file is made from it."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.peers import compose, data, servers
from tests.peers.table import PEERS, PEERS_BY_NAME, select

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "docker" / "docker-compose.yml"


def test_committed_compose_file_is_generated_from_the_table():
    assert COMPOSE_FILE.read_text() == compose.render(), (
        "docker/docker-compose.yml is stale: run"
        " `python -m tests.peers compose > docker/docker-compose.yml`")


def test_compose_file_lists_the_same_peers_and_ports():
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    assert list(services) == [peer.name for peer in PEERS]
    for peer in PEERS:
        service = services[peer.name]
        port = f"${{{peer.port_var}:-{peer.docker_port}}}"  # a variable moves it
        assert service["command"][:4] == ["serve", peer.name, "--port", port]
        suffix = "/udp" if peer.transport == "udp" else ""
        assert f"127.0.0.1:{port}:{port}{suffix}" in service["ports"]
        if peer.passive_ports:
            lo, hi = peer.passive_ports
            passive = f"${{{peer.passive_var}:-{lo}-{hi}}}"
            assert f"127.0.0.1:{passive}:{passive}" in service["ports"]
            assert service["command"][4:] == ["--passive-ports", passive]
        assert service["image"] == "anyurl-peers:latest"
    # one service builds the image the others run (tests/unit/test_docker.py)
    assert services[PEERS[0].name]["build"] == {"context": "..",
                                                "dockerfile": "docker/Dockerfile"}


def test_dockerfile_runs_the_launcher_and_the_install_script():
    dockerfile = (REPO / "docker" / "Dockerfile").read_text()
    assert "scripts/install-peers.sh" in dockerfile
    assert '"-m", "tests.peers"' in dockerfile


def _docker_compose() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    return None


def test_docker_compose_config_accepts_the_file():
    command = _docker_compose()
    assert command is not None, (
        "neither docker-compose nor `docker compose` is installed: run "
        "`bash scripts/install-peers.sh` (it installs Debian's docker-compose, which "
        "validates the file without a Docker engine)"
    )
    result = subprocess.run([*command, "-f", str(COMPOSE_FILE), "config", "-q"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_names_ports_and_variables_are_unique():
    assert len(PEERS_BY_NAME) == len(PEERS)
    for attr in ("docker_port", "env_var"):
        values = [getattr(peer, attr) for peer in PEERS]
        assert len(set(values)) == len(values), attr
    used: set[int] = {peer.docker_port for peer in PEERS}
    for peer in PEERS:
        if peer.passive_ports:
            lo, hi = peer.passive_ports
            ports = set(range(lo, hi + 1))
            assert not ports & used, peer.name
            used |= ports


@pytest.mark.parametrize("peer", PEERS, ids=[peer.name for peer in PEERS])
def test_every_peer_can_be_built_and_says_how_to_install_it(peer):
    assert peer.kind in servers.BUILDERS
    assert peer.transport in ("tcp", "udp")
    assert ("install-peers.sh" in peer.install) or peer.kind == "module"
    if peer.kind == "module":
        assert peer.module and peer.module.startswith("anyurl.schemes.")
        assert peer.module.endswith(".loopback")
        assert "{port}" in peer.args


def test_select_keeps_table_order_and_rejects_unknown_names():
    assert [p.name for p in select(["leafnode", "vsftpd"])] == ["vsftpd", "leafnode"]
    assert select(None) == list(PEERS)
    with pytest.raises(KeyError, match="no-such-peer"):
        select(["no-such-peer"])


def test_sample_data_is_deterministic():
    files = data.small_files()
    assert len(files["bin1k.dat"]) == 1024
    assert b"\r" not in files["hello.txt"]
    assert sum(path.startswith("many/") for path in files) == data.MANY_COUNT
    size = 3 * 1024 * 1024 + 5
    chunks = list(data.large_file_chunks(size))
    assert sum(map(len, chunks)) == size
    assert hashlib.sha256(b"".join(chunks)).hexdigest() == data.large_sha256(size)
    assert data.manifest(size)["large.dat"] == {"size": size, "sha256": data.large_sha256(size)}


def test_news_articles_carry_an_xref_and_a_dot_line():
    article = data.news_article("anyurl.test", "peers.example", 2)
    headers, body = article.split(b"\n\n", 1)
    assert b"\nXref: peers.example anyurl.test:2" in headers
    assert any(line.startswith(b".") for line in body.splitlines())


def test_a_missing_server_says_how_to_install_it():
    import dataclasses

    peer = dataclasses.replace(PEERS_BY_NAME["vsftpd"], binaries=("/nonexistent/vsftpd",))
    reason = servers.missing(peer)
    assert reason is not None
    assert "/nonexistent/vsftpd" in reason and "scripts/install-peers.sh" in reason


def test_the_fixture_fails_a_test_that_needs_a_missing_peer():
    from tests.peers.pytest_plugin import Peers

    state = {"run_dir": "/nonexistent", "data_root": "/nonexistent/data", "large_size": 0,
             "files": {}, "peers": {"vsftpd": {"status": "missing",
                                               "error": "peer 'vsftpd' needs ...: run it"}}}
    with pytest.raises(pytest.fail.Exception, match="needs"):
        Peers(state)["vsftpd"]
    with pytest.raises(pytest.fail.Exception, match="not started"):
        Peers(state)["nginx"]
