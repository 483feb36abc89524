"""``anyurl serve``: a local web gateway to every scheme, live or replayed from WARC files.

It prints the ready URL (with the token, as notebook servers do) and serves until
Ctrl-C. See docs/serve.md.
"""

from __future__ import annotations

import argparse
import ipaddress
import secrets
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run"]

def _examples() -> str:
    """The help's examples, their URL a scheme's the gateway shows (its descriptor's)."""
    from anyurl.registry import specs

    url = next(spec.example for spec in specs()
               if spec.example and spec.not_in_browser is None and spec.crawl is not None
               and spec.default_port is not None)
    return f"""\
examples:
  anyurl serve                                   # http://127.0.0.1:PORT/?anyurl_token=...
  anyurl serve --port 8070 --no-token            # then: http://127.0.0.1:8070/{url}
  anyurl serve --warc tree/archive.warc.gz       # replay what anyurl mirror --warc archived
  anyurl serve --cacert test-ca.pem              # the TLS servers of a private CA
  curl -x http://127.0.0.1:8070 {url}  # the gateway as curl's proxy (--no-token)
"""


def add_parser(sub: Any) -> None:
    """Add ``anyurl serve`` to the subcommands."""
    from anyurl.cli.numbers import listen_port, parse_size, positive_int, seconds
    from anyurl.cli.policy_flags import add_policy_flags
    from anyurl.cli.scheme_options import add_verify_arguments

    p = sub.add_parser(
        "serve", help="a local web gateway: every scheme in a web browser, or a WARC replayed",
        description="Serve any URL of RFC 1738 as web pages on a local "
        "address, and as an HTTP proxy (RFC 1738 section 4); or replay WARC files.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.late_epilog = _examples
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=listen_port, default=0, help="the port (default: a free one)")
    p.add_argument("--no-token", action="store_true",
                   help="serve without a token (anyone who can reach the port may use it)")
    p.add_argument("--allow-file", action="store_true",
                   help="serve file: URLs (this machine's files) too")
    p.add_argument("--allow-host", metavar="NAME:PORT", action="append", default=[],
                   help="also accept this Host header (a name the gateway is reached by)")
    add_policy_flags(p)
    add_verify_arguments(p)
    p.add_argument("--max-size", type=parse_size, default=256 * 1024 * 1024, metavar="BYTES",
                   help="bytes of one response at most (K, M, G suffixes; default 256M)")
    p.add_argument("--max-page", type=parse_size, default=16 * 1024 * 1024, metavar="BYTES",
                   help="bytes of a listing shown as a page at most; a larger one is offered "
                   "as raw bytes (default 16M)")
    p.add_argument("--timeout", type=seconds, default=120.0, metavar="SECONDS",
                   help="seconds one request may take (default 120)")
    p.add_argument("--max-requests", type=positive_int, default=8, metavar="N",
                   help="requests served at once; more are answered 429 (default 8)")
    p.add_argument("--warc", metavar="FILE", action="append", default=[], type=Path,
                   help="replay this WARC file (repeat for several) instead of the network")
    p.add_argument("--config", metavar="FILE", help="a config file (default ~/.anyurl.toml)")
    p.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio",
                   help="the async library to run on")
    p.set_defaults(func=run)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    """``anyurl serve``: bind, print the ready URL, serve until interrupted."""
    import anyio

    from anyurl.cli.policy_flags import apply_policy_flags
    from anyurl.cli.scheme_options import verify_options
    from anyurl.config import load_config
    from anyurl.errors import OptionError

    try:
        import hypercorn  # noqa: F401
        import starlette  # noqa: F401
        import warcio  # noqa: F401  (the replay of archives)
    except ImportError as exc:
        raise OptionError.missing_extra("anyurl serve", exc.name, "serve") from None
    from anyurl.serve.app import TOKEN_PARAM, ServeOptions, bind, build_app, serve
    config = load_config(args.config)
    config = apply_policy_flags(args, config)
    for number, name in ((args.max_size, "--max-size"), (args.max_page, "--max-page"),
                         (args.max_requests, "--max-requests")):
        if number < 1:
            raise OptionError(f"{name} must be at least 1")
    if args.timeout <= 0:
        raise OptionError("--timeout must be more than 0 seconds")
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        raise OptionError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}",
                          hint="Choose another --port (0: a free one).") from None
    port = int(sock.getsockname()[1])
    token = None if args.no_token else secrets.token_urlsafe(24)
    options = ServeOptions(host=args.host, port=port, token=token,
                           allow_file=args.allow_file, allowed_hosts=tuple(args.allow_host),
                           max_size=args.max_size, max_page=args.max_page,
                           timeout=args.timeout,
                           max_requests=args.max_requests, warcs=tuple(args.warc),
                           config=config, schemes=verify_options(args))
    if args.warc:
        from anyurl.serve.replay import Archive

        Archive(args.warc, max_size=args.max_size)  # a bad file is said now, not per page
    app = build_app(options)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    ready = f"http://{shown}:{port}/" + (f"?{TOKEN_PARAM}={token}" if token else "")
    if not _loopback(args.host):
        print(f"anyurl serve: warning: listening on {args.host}: other machines can reach "
              "this gateway" + ("" if token else ", and --no-token lets them use it"),
              file=sys.stderr)
    what = "replaying " + ", ".join(map(str, args.warc)) if args.warc else "live"
    print(f"anyurl serve: {what}; open {ready}", file=sys.stderr)
    print(ready, flush=True)
    if token:
        print(f"anyurl serve: as a proxy: curl -x http://{shown}:{port} -U anyurl:{token} URL",
              file=sys.stderr)
    try:
        with sock:
            anyio.run(serve, app, sock, backend=args.backend)
    except KeyboardInterrupt:
        print("anyurl serve: stopped", file=sys.stderr)
    return 0
