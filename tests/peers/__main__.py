"""python -m tests.peers start|stop|status|env|compose|serve: the test peers from the command line.

    python -m tests.peers start [NAME ...]   start the peers (all by default) on free ports
    python -m tests.peers stop               stop exactly what `start` started
    python -m tests.peers status             which are running and listening
    python -m tests.peers env [--docker]     ANYURL_PEER_<NAME>=HOST:PORT lines
    python -m tests.peers compose            the docker-compose.yml made from the peers table
    python -m tests.peers serve NAME --port N  one peer in the foreground (containers)
    python -m tests.peers docker-state       a state.json for the compose peers (tests)

The run directory is ANYURL_PEERS_DIR or .peers/ in the repo root; the large file's size is
ANYURL_PEERS_LARGE_SIZE bytes (default 16 MiB).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sys
import time
from pathlib import Path

from . import compose, data, launcher, servers
from .table import PEERS, PEERS_BY_NAME, Peer


def _run_dir(args: argparse.Namespace) -> Path:
    return Path(args.dir).resolve() if args.dir else launcher.default_run_dir()


def cmd_start(args: argparse.Namespace) -> int:
    try:
        state = launcher.start(args.names, _run_dir(args), args.large_size, timeout=args.timeout)
    except (launcher.PeersError, KeyError) as exc:
        print(f"peers: {exc}", file=sys.stderr)
        return 1
    failed = [r for r in state["peers"].values() if r["status"] in ("missing", "failed")]
    pending = [r for r in state["peers"].values() if r["status"] == "pending"]
    run_dir = Path(state["run_dir"])
    print(f"state: {run_dir / launcher.STATE_NAME}\nenv:   {run_dir / launcher.ENV_NAME}")
    if pending:
        print(f"not started (their anyurl.testing module does not exist yet):"
              f" {', '.join(r['name'] for r in pending)}")
    if failed:
        print(f"peers: {len(failed)} peer(s) did not start: "
              f"{', '.join(r['name'] for r in failed)}", file=sys.stderr)
        return 1
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    launcher.stop(_run_dir(args))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    print("\n".join(launcher.status(_run_dir(args))))
    return 0


def cmd_env(args: argparse.Namespace) -> int:
    if args.docker:
        for peer in PEERS:
            print(f"{peer.env_var}=127.0.0.1:{_docker_port(peer)}")
        return 0
    run_dir = _run_dir(args)
    state = launcher.read_state(run_dir)
    if state is None:
        print(f"peers: no state in {run_dir}: run `python -m tests.peers start`", file=sys.stderr)
        return 1
    sys.stdout.write(launcher.env_text(state, run_dir))
    return 0


def cmd_compose(args: argparse.Namespace) -> int:
    sys.stdout.write(compose.render())
    return 0


def _docker_port(peer: Peer) -> int:
    """The host port of a compose peer: ``ANYURL_<NAME>_PORT``, else its docker_port."""
    return int(os.environ.get(peer.port_var) or peer.docker_port)


def _passive(text: str | None, default: tuple[int, int] | None) -> tuple[int, int] | None:
    if not text:
        return default
    lo, _, hi = text.partition("-")
    return int(lo), int(hi)


def cmd_docker_state(args: argparse.Namespace) -> int:
    """A state.json for the peers of docker/docker-compose.yml, for ANYURL_PEERS_STATE.

    The tests then talk to the containers as to native peers; what lives inside a
    container (its data root, its logs) is not on this machine, so the few tests that
    read a peer's files or logs fail with a message saying so.
    """
    large = data.large_size_from_env() if args.large_size is None else args.large_size
    state: dict[str, object] = {
        "run_dir": "(docker compose)", "data_root": "(in the containers)",
        "large_size": large, "files": data.manifest(large), "started_at": time.time(),
        "peers": {},
    }
    peers: dict[str, object] = {}
    for peer in PEERS:
        record = launcher._peer_record(peer, "127.0.0.1", _docker_port(peer),
                                       Path("(in the container)"))
        record["passive_ports"] = _passive(os.environ.get(peer.passive_var),
                                           peer.passive_ports)
        record.update(status="running", container=True)
        peers[peer.name] = record
    state["peers"] = peers
    print(json.dumps(state, indent=1))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """One peer in the foreground until SIGTERM/SIGINT: the command of each container."""
    peer = PEERS_BY_NAME[args.name]
    if args.passive_ports:
        peer = dataclasses.replace(peer, passive_ports=_passive(args.passive_ports, None))
    reason = servers.missing(peer)
    if reason:
        print(f"peers: {reason}", file=sys.stderr)
        # A pending anyurl.testing peer is not an error yet: its container just ends.
        return 0 if peer.kind == "module" else 1
    run_dir = _run_dir(args)
    data_root = run_dir / "data"
    if not (data_root / data.LARGE_NAME).exists():
        large = data.large_size_from_env() if args.large_size is None else args.large_size
        data.build_data_root(data_root, large)
    os.chmod(run_dir, 0o755)
    peer_dir = run_dir / peer.name
    peer_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(peer_dir, 0o755)
    container = os.environ.get("ANYURL_PEERS_CONTAINER") == "1"
    ctx = servers.Context(peer, args.host, args.port, data_root, peer_dir, container=container)
    proc, launch = launcher._launch(ctx)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    announced = False
    while not stopping and proc.poll() is None:
        if not announced and launcher._listening(args.host, args.port, peer.transport):
            print(f"{peer.name} listening on {args.host}:{args.port}", flush=True)
            announced = True
        time.sleep(0.2)
    if proc.poll() is not None:
        print(Path(launch.logs["output"]).read_text(), file=sys.stderr)
        return proc.returncode or 1
    launcher._kill_tree(proc.pid, launcher.start_time(proc.pid))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.peers", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", help="run directory (default: $ANYURL_PEERS_DIR or .peers/)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("start", help="start the peers (all, or those named)")
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("--large-size", type=int, default=None, help="bytes of large.dat")
    p.add_argument("--timeout", type=float, default=launcher.READY_TIMEOUT)
    p.set_defaults(func=cmd_start)
    sub.add_parser("stop", help="stop the peers that start started").set_defaults(func=cmd_stop)
    sub.add_parser("status", help="show the peers' state").set_defaults(func=cmd_status)
    p = sub.add_parser("env", help="print ANYURL_PEER_<NAME>=HOST:PORT lines")
    p.add_argument("--docker", action="store_true", help="the addresses of docker-compose's peers")
    p.set_defaults(func=cmd_env)
    sub.add_parser("compose", help="print docker-compose.yml").set_defaults(func=cmd_compose)
    p = sub.add_parser("serve", help="run one peer in the foreground (containers)")
    p.add_argument("name", choices=list(PEERS_BY_NAME))
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default=os.environ.get("ANYURL_PEERS_BIND", "127.0.0.1"))
    p.add_argument("--large-size", type=int, default=None)
    p.add_argument("--passive-ports", metavar="LO-HI", help="an FTP peer's passive range")
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("docker-state",
                       help="a state.json for docker-compose's peers (ANYURL_PEERS_STATE)")
    p.add_argument("--large-size", type=int, default=None)
    p.set_defaults(func=cmd_docker_state)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
