"""Start and stop the peers natively, on 127.0.0.1, on free ports, under one run directory.

The run directory (ANYURL_PEERS_DIR, default `.peers/` in the repo root) holds:

    data/              the sample data root every peer serves (tests/peers/data.py)
    <peer>/            the peer's throwaway config, its logs (output.log and others)
    state.json         name -> host, port, pids, user/password, logs, ...; and the data manifest
    env                ANYURL_PEER_<NAME>=127.0.0.1:PORT lines, for `source` or `env $(cat ...)`
    .anyurl-peers      marks the directory as ours: `start` empties it (but for nested run
                       directories, such as the pytest fixture's .peers/pytest)

Each peer runs in a new session (so its own process group); `stop` signals exactly those groups,
the descendants of their leaders, and nothing else, after checking that each leader is still the
process that was started (same start time), so a recycled pid is never killed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

from . import data, servers
from .table import Peer, select

STATE_NAME = "state.json"
ENV_NAME = "env"
MARKER = ".anyurl-peers"
DEFAULT_HOST = "127.0.0.1"
READY_TIMEOUT = 30.0


class PeersError(Exception):
    """The peers could not be started or stopped as asked."""


def default_run_dir() -> Path:
    """ANYURL_PEERS_DIR, else .peers/ in the repo root, else (see below) a directory in /tmp.

    Servers that drop privileges (nginx's workers, gophernicus, vsftpd's anonymous sessions)
    must reach the run directory: when a parent of the repo is closed to other users (a clone
    under /root, say), the default moves to /tmp/anyurl-peers-<hash of the repo path>.
    """
    env = os.environ.get("ANYURL_PEERS_DIR")
    if env:
        return Path(env).resolve()
    default = servers.REPO_ROOT / ".peers"
    if world_traversable(default.parent):
        return default
    digest = hashlib.sha1(str(default).encode()).hexdigest()[:10]
    return Path(tempfile.gettempdir()) / f"anyurl-peers-{digest}"


def world_traversable(path: Path) -> bool:
    """Whether every directory from / down to `path` can be entered by any user."""
    path = path.resolve()
    for directory in (path, *path.parents):
        try:
            if not os.stat(directory).st_mode & stat.S_IXOTH:
                return False
        except FileNotFoundError:
            continue
    return True


# -- processes --------------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name: [state, ppid, pgrp, session, ...]."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return text[text.rindex(")") + 2:].split()


def start_time(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[19]) if fields else None


def _alive(pid: int, started: int | None) -> bool:
    fields = _stat(pid)
    if fields is None or fields[0] == "Z":
        return False
    return started is None or int(fields[19]) == started


def _processes_of(leader: int, started: int | None) -> list[int]:
    """The leader's process group and session members and its descendants (leader included)."""
    table: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None:
                table[int(entry)] = fields
    ours = set()
    if leader in table and (started is None or int(table[leader][19]) == started):
        ours.add(leader)
    for pid, fields in table.items():
        # Members of the group or session the launcher created, started no earlier than it.
        in_group = int(fields[2]) == leader or int(fields[3]) == leader
        if in_group and (started is None or int(fields[19]) >= started):
            ours.add(pid)
    changed = True
    while changed:  # descendants, e.g. telnet logins that made sessions of their own
        changed = False
        for pid, fields in table.items():
            if pid not in ours and int(fields[1]) in ours:
                ours.add(pid)
                changed = True
    return sorted(ours)


def _kill_tree(leader: int, started: int | None, timeout: float = 5.0) -> list[int]:
    pids = _processes_of(leader, started)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _reap(pids)
            if not any(_alive(pid, None) for pid in pids):
                return pids
            time.sleep(0.05)
        pids = [pid for pid in pids if _alive(pid, None)] + [
            pid for pid in _processes_of(leader, started) if pid not in pids]
    return pids


def _reap(pids: list[int]) -> None:
    """Collect those of `pids` that are our own exited children, so they are not zombies."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


# -- ports ------------------------------------------------------------------------------------


def free_port(host: str, transport: str, taken: set[int]) -> int:
    kind = socket.SOCK_STREAM if transport == "tcp" else socket.SOCK_DGRAM
    for _ in range(100):
        with socket.socket(socket.AF_INET, kind) as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
        if port not in taken:
            taken.add(port)
            return port
    raise PeersError("no free port found")


def _listening(host: str, port: int, transport: str) -> bool:
    """Whether a socket is bound (UDP) or listening (TCP) on host:port, read from /proc/net."""
    table = "/proc/net/tcp" if transport == "tcp" else "/proc/net/udp"
    want_state = "0A" if transport == "tcp" else "07"
    hosts = {socket.inet_aton(host)[::-1].hex().upper(), "00000000"}
    try:
        lines = Path(table).read_text().splitlines()[1:]
    except FileNotFoundError:
        return False
    for line in lines:
        fields = line.split()
        address, hex_port = fields[1].split(":")
        if int(hex_port, 16) == port and fields[3] == want_state and address in hosts:
            return True
    return False


# -- start / stop -----------------------------------------------------------------------------


def read_state(run_dir: Path) -> dict | None:
    path = run_dir / STATE_NAME
    if not path.is_file():
        return None
    return json.loads(path.read_text())


def running_peers(state: dict) -> list[str]:
    return [name for name, info in state.get("peers", {}).items()
            if info.get("pid") and _alive(info["pid"], info.get("starttime"))]


def _prepare_run_dir(run_dir: Path) -> None:
    state = read_state(run_dir)
    if state and running_peers(state):
        raise PeersError(f"peers {', '.join(running_peers(state))} are already running from"
                         f" {run_dir}: run `python -m tests.peers stop` first")
    # Nested run directories (the pytest fixture's .peers/pytest) are other sets: kept.
    entries = list(run_dir.iterdir()) if run_dir.exists() else []
    nested = [entry for entry in entries if (entry / MARKER).is_file()]
    if len(nested) < len(entries) and not (run_dir / MARKER).exists():
        raise PeersError(f"{run_dir} is not empty and is not a peers run directory; choose"
                         " another ANYURL_PEERS_DIR")
    if not run_dir.parent.exists():
        run_dir.parent.mkdir(parents=True)
        os.chmod(run_dir.parent, 0o755)  # whatever the umask: see world_traversable
    if not world_traversable(run_dir.parent):
        raise PeersError(f"{run_dir.parent} (or a parent) cannot be entered by other users, as"
                         " servers that drop privileges must; choose another ANYURL_PEERS_DIR")
    for entry in entries:
        if entry in nested:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    run_dir.mkdir(exist_ok=True)
    os.chmod(run_dir, 0o755)  # servers drop to other users and must reach the data root
    (run_dir / MARKER).write_text("run directory of `python -m tests.peers`; removed by start\n")


def _launch(ctx: servers.Context) -> tuple[subprocess.Popen, servers.Launch]:
    launch = servers.build(ctx)
    output = ctx.peer_dir / "output.log"
    env = dict(os.environ)
    env.update(launch.env)
    with open(output, "ab") as out:
        proc = subprocess.Popen(
            launch.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            cwd=launch.cwd or ctx.peer_dir, env=env, start_new_session=True,
        )
    launch.logs = {"output": str(output), **launch.logs}
    return proc, launch


def _tail(path: str, lines: int = 15) -> str:
    try:
        text = Path(path).read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return ""
    return "\n".join("    " + line for line in text)


def _peer_record(peer: Peer, host: str, port: int | None, data_root: Path) -> dict:
    return {
        "name": peer.name, "scheme": peer.scheme, "kind": peer.kind,
        "transport": peer.transport, "host": host, "port": port,
        "user": peer.user, "password": peer.password, "data_root": str(data_root),
        "env_var": peer.env_var, "passive_ports": peer.passive_ports,
        "pid": None, "starttime": None, "logs": {}, "extra": {},
        "status": "not started", "error": None,
    }


def start(names: list[str] | None = None, run_dir: Path | None = None,
          large_size: int | None = None, host: str = DEFAULT_HOST,
          timeout: float = READY_TIMEOUT, log=print) -> dict:
    """Start the peers called `names` (all when empty) and return the state written.

    A peer that cannot start is recorded with status "missing" (not installed: `error` says how
    to install it), "pending" (an anyurl.testing module that does not exist yet) or "failed"
    (it started but did not listen: `error` quotes its log); the others keep running.
    """
    peers = select(names)
    run_dir = run_dir or default_run_dir()
    large_size = data.large_size_from_env() if large_size is None else large_size
    _prepare_run_dir(run_dir)
    data_root = run_dir / "data"
    data.build_data_root(data_root, large_size)

    state = {
        "run_dir": str(run_dir), "data_root": str(data_root), "large_size": large_size,
        "files": data.manifest(large_size), "started_at": time.time(), "peers": {},
    }
    taken: set[int] = set()
    waiting: dict[str, subprocess.Popen] = {}
    for peer in peers:
        record = _peer_record(peer, host, None, data_root)
        state["peers"][peer.name] = record
        reason = servers.missing(peer)
        if reason is not None:
            record["status"] = "pending" if peer.kind == "module" else "missing"
            record["error"] = reason
            continue
        port = free_port(host, peer.transport, taken)
        peer_dir = run_dir / peer.name
        peer_dir.mkdir()
        os.chmod(peer_dir, 0o755)
        record["port"] = port
        try:
            proc, launch = _launch(servers.Context(peer, host, port, data_root, peer_dir))
        except (OSError, ValueError, KeyError) as exc:
            record["status"] = "failed"
            record["error"] = f"peer {peer.name!r} could not be started: {exc}"
            continue
        record.update(pid=proc.pid, starttime=start_time(proc.pid), logs=launch.logs,
                      extra=launch.extra, argv=launch.argv, status="starting")
        waiting[peer.name] = proc
    _write_state(run_dir, state)  # so that `stop` finds whatever started, even if we die now

    deadline = time.monotonic() + timeout
    while waiting and time.monotonic() < deadline:
        for name, proc in list(waiting.items()):
            record = state["peers"][name]
            if proc.poll() is not None:
                record["status"] = "failed"
                record["error"] = (f"peer {name!r} exited with status {proc.returncode} before"
                                   f" listening; {record['logs']['output']}:\n"
                                   + _tail(record["logs"]["output"]))
                del waiting[name]
            elif _listening(host, record["port"], record["transport"]):
                record["status"] = "running"
                del waiting[name]
        time.sleep(0.05)
    for name, proc in waiting.items():
        record = state["peers"][name]
        record["status"] = "failed"
        record["error"] = (f"peer {name!r} did not listen on {host}:{record['port']} within"
                           f" {timeout:.0f} s; {record['logs']['output']}:\n"
                           + _tail(record["logs"]["output"]))
        _kill_tree(proc.pid, record["starttime"])
        record["pid"] = None
    _write_state(run_dir, state)
    for name, record in state["peers"].items():
        if record["status"] == "running":
            log(f"{name:12} {record['host']}:{record['port']:<6} pid {record['pid']}")
        else:
            log(f"{name:12} {record['status'].upper()}: {record['error']}")
    return state


def _write_state(run_dir: Path, state: dict) -> None:
    tmp = run_dir / (STATE_NAME + ".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    tmp.replace(run_dir / STATE_NAME)
    (run_dir / ENV_NAME).write_text(env_text(state, run_dir))


def env_text(state: dict, run_dir: Path) -> str:
    lines = [f"ANYURL_PEERS_STATE={shlex.quote(str(run_dir / STATE_NAME))}",
             f"ANYURL_PEERS_DATA={shlex.quote(state['data_root'])}"]
    for record in state["peers"].values():
        if record["status"] in ("running", "starting"):
            lines.append(f"{record['env_var']}={record['host']}:{record['port']}")
    return "\n".join(lines) + "\n"


def stop(run_dir: Path | None = None, log=print) -> list[int]:
    """Stop every peer recorded in the run directory's state; return the pids signalled."""
    run_dir = run_dir or default_run_dir()
    state = read_state(run_dir)
    if state is None:
        log(f"no peers state in {run_dir}: nothing to stop")
        return []
    stopped: list[int] = []
    for name, record in state["peers"].items():
        if record.get("pid"):
            pids = _kill_tree(record["pid"], record.get("starttime"))
            if pids:
                log(f"{name:12} stopped (pids {' '.join(map(str, pids))})")
            stopped += pids
            record["pid"] = None
            record["status"] = "stopped"
    _write_state(run_dir, state)
    return stopped


def status(run_dir: Path | None = None) -> list[str]:
    run_dir = run_dir or default_run_dir()
    state = read_state(run_dir)
    if state is None:
        return [f"no peers state in {run_dir}"]
    lines = []
    for name, record in state["peers"].items():
        if record.get("pid") and _alive(record["pid"], record.get("starttime")):
            listening = _listening(record["host"], record["port"], record["transport"])
            lines.append(f"{name:12} {record['host']}:{record['port']:<6} pid {record['pid']}"
                         f" {'listening' if listening else 'NOT LISTENING'}")
        else:
            lines.append(f"{name:12} {record['status']}"
                         + (f": {record['error']}" if record.get("error") else ""))
    return lines
