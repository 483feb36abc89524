"""pytest plugin: the session fixture `peers`, the running test servers.

    def test_retr(peers):
        vsftpd = peers["vsftpd"]          # .host .port .user .password .data_root .logs .extra
        ...

The fixture starts every peer once per session under `<run dir>/pytest` (run dir: ANYURL_PEERS_DIR
or .peers/) and stops them at the end; with ANYURL_PEERS_STATE pointing at the state.json of a set
started by `python -m tests.peers start`, it uses that set and leaves it running.

A peer that is not installed or did not start makes every test that asks for it FAIL with the
reason and how to install it: in CI a missing server must never pass as a skip.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from . import data, launcher


@dataclasses.dataclass(frozen=True)
class PeerInfo:
    name: str
    scheme: str
    host: str
    port: int
    transport: str
    user: str | None
    password: str | None
    data_root: Path
    logs: dict[str, str]
    extra: dict[str, object]
    passive_ports: tuple[int, int] | None

    @property
    def address(self) -> tuple[str, int]:
        return (self.host, self.port)

    @property
    def hostport(self) -> str:
        return f"{self.host}:{self.port}"

    def url(self, path: str = "", scheme: str | None = None) -> str:
        """`scheme://host:port/path`; `path` is inserted as given (escape it yourself)."""
        return f"{scheme or self.scheme}://{self.host}:{self.port}/{path.lstrip('/')}"


class Peers(Mapping[str, PeerInfo]):
    """The peers of one state.json; `peers[name]` fails the test if that peer is not running."""

    def __init__(self, state: dict, state_path: Path | None = None) -> None:
        self.state = state
        self.state_path = state_path
        self.run_dir = Path(state["run_dir"])
        self.data_root = Path(state["data_root"])
        self.large_size: int = state["large_size"]
        self.files: dict[str, dict[str, object]] = state["files"]

    def __getitem__(self, name: str) -> PeerInfo:
        record = self.state["peers"].get(name)
        if record is None:
            pytest.fail(f"peer {name!r} was not started in {self.run_dir} (known:"
                        f" {', '.join(self.state['peers'])})", pytrace=False)
        if record["status"] != "running":
            pytest.fail(record["error"] or f"peer {name!r} is {record['status']}", pytrace=False)
        if record.get("container"):
            pass  # a docker compose peer: no local process to check (docker-state)
        elif not launcher._alive(record["pid"], record.get("starttime")):
            pytest.fail(f"peer {name!r} (pid {record['pid']}) is no longer running; see"
                        f" {record['logs'].get('output')}", pytrace=False)
        passive = record.get("passive_ports")
        return PeerInfo(
            name=name, scheme=record["scheme"], host=record["host"], port=record["port"],
            transport=record["transport"], user=record["user"], password=record["password"],
            data_root=Path(record["data_root"]), logs=dict(record["logs"]),
            extra=dict(record["extra"]), passive_ports=tuple(passive) if passive else None,
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self.state["peers"])

    def __len__(self) -> int:
        return len(self.state["peers"])

    def expected(self, path: str) -> bytes:
        """The bytes of a small file of the data root, recomputed (not read from disk)."""
        return data.expected_bytes(path)


@pytest.fixture(scope="session")
def peers() -> Iterator[Peers]:
    state_env = os.environ.get("ANYURL_PEERS_STATE")
    if state_env:
        path = Path(state_env)
        if not path.is_file():
            pytest.fail(f"ANYURL_PEERS_STATE={state_env} does not exist: run"
                        " `python -m tests.peers start` first", pytrace=False)
        yield Peers(json.loads(path.read_text()), path)
        return
    # One directory per pytest session, so two sessions on one machine (a developer's
    # and a CI run from a clone) never stop each other's servers; a directory whose
    # session died without cleaning up is stopped and removed here.
    base = launcher.default_run_dir()
    for stale in base.glob("pytest-*"):
        owner = stale.name.removeprefix("pytest-")
        if owner.isdigit() and not _alive(int(owner)):
            if launcher.read_state(stale):
                launcher.stop(stale, log=lambda *_: None)
            shutil.rmtree(stale, ignore_errors=True)
    run_dir = base / f"pytest-{os.getpid()}"
    try:
        state = launcher.start(None, run_dir, log=lambda *_: None)
    except launcher.PeersError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield Peers(state, run_dir / launcher.STATE_NAME)
    finally:
        launcher.stop(run_dir, log=lambda *_: None)
        shutil.rmtree(run_dir, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
