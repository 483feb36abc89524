"""docker/: the compose file of the test peers, read as YAML against tests/peers/table.py,
and the image of the anyurl command (which cannot be built here: read as text)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.peers.table import PEERS

REPO = Path(__file__).resolve().parents[2]
DOCKER = REPO / "docker"
COMPOSE = yaml.safe_load((DOCKER / "docker-compose.yml").read_text())


def test_the_compose_file_has_no_obsolete_version_key():
    assert "version" not in COMPOSE


def test_one_service_builds_the_image_the_others_run():
    services = COMPOSE["services"]
    builders = [name for name, service in services.items() if "build" in service]
    assert builders == [PEERS[0].name]
    assert {service["image"] for service in services.values()} == {"anyurl-peers:latest"}
    for name, service in services.items():
        if name not in builders:
            assert service["pull_policy"] == "never", name  # built here, never pulled


def _default(value: str) -> str:
    """`${VAR:-2324}` -> `2324`: the port compose uses when the variable is unset."""
    match = re.fullmatch(r"\$\{[A-Z0-9_]+:-([0-9-]+)\}", value)
    assert match, value
    return match.group(1)


def test_every_service_listens_and_is_published_on_its_table_port():
    services = COMPOSE["services"]
    assert sorted(services) == sorted(peer.name for peer in PEERS)
    for peer in PEERS:
        service = services[peer.name]
        command = service["command"]
        assert int(_default(command[command.index("--port") + 1])) == peer.docker_port
        match = re.fullmatch(r"127\.0\.0\.1:(\$\{[^}]+\}):(\$\{[^}]+\})(/udp)?",
                             service["ports"][0])
        assert match, service["ports"][0]  # published on the host's loopback only
        published, inner, udp = match.groups()
        assert int(_default(published)) == int(_default(inner)) == peer.docker_port
        assert bool(udp) == (peer.transport == "udp")
        if peer.passive_ports:
            lo, hi = peer.passive_ports
            assert _default(command[command.index("--passive-ports") + 1]) == f"{lo}-{hi}"


def test_the_docker_readme_table_gives_the_same_ports():
    rows = {}
    for line in (DOCKER / "README.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"[0-9]+(/udp)?", cells[2]):
            rows[cells[0]] = cells[2]
    assert rows == {peer.name: f"{peer.docker_port}" + ("/udp" if peer.transport == "udp"
                                                        else "") for peer in PEERS}


def test_the_anyurl_image_runs_the_command_as_a_user():
    dockerfile = (DOCKER / "anyurl.Dockerfile").read_text()
    instructions = [line.split()[0] for line in dockerfile.splitlines()
                    if line and not line.startswith(("#", " "))]
    assert instructions[0] == "FROM" and instructions.count("FROM") == 1
    assert 'ENTRYPOINT ["anyurl"]' in dockerfile  # docker run anyurl get URL
    assert re.search(r"^USER anyurl$", dockerfile, re.M)
    for copied in re.findall(r"^COPY (.+) /src/?\S*$", dockerfile, re.M):
        for path in copied.split():
            assert (REPO / path).exists(), path
    ignore = (DOCKER / "anyurl.Dockerfile.dockerignore").read_text().split()
    assert ".git" in ignore and "**/__pycache__" in ignore
