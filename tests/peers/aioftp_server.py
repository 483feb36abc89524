"""aioftp's server as a test peer: anonymous and one local user, read-only, on one data root.

    python -m tests.peers.aioftp_server --port N --root DIR --user U --password P
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib

import aioftp


async def serve(args: argparse.Namespace) -> None:
    read_only = [aioftp.Permission("/", readable=True, writable=False)]
    users = [
        aioftp.User(base_path=pathlib.Path(args.root), home_path="/", permissions=read_only),
        aioftp.User(args.user, args.password, base_path=pathlib.Path(args.root),
                    home_path="/", permissions=read_only),
    ]
    ports = None
    if args.passive:
        lo, hi = (int(x) for x in args.passive.split("-"))
        ports = range(lo, hi + 1)
    server = aioftp.Server(users, data_ports=ports,
                           ipv4_pasv_forced_response_address=args.masquerade,
                           welcome_message="anyurl test peer aioftp ready.")
    await server.run(args.host, args.port)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--passive", default="")
    parser.add_argument("--masquerade", default=None)
    asyncio.run(serve(parser.parse_args()))


if __name__ == "__main__":
    main()
