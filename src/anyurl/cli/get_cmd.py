"""``anyurl get``: fetch URLs to stdout or to files, as curl and wget users expect.

One URL streams to stdout unless ``-o FILE`` or ``-O`` is given; files are written as
``FILE.part`` and renamed when complete (``-C`` continues a ``.part``). The exit status
is the first failure's curl-compatible code; every failure is summarised on stderr.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any

import anyio

from anyurl.cli.common import print_error, print_warning
from anyurl.cli.names import remote_name
from anyurl.config import Config, load_config
from anyurl.errors import AnyURLError, FileExists
from anyurl.resolver import Resolver
from anyurl.schemes.base import FetchOptions
from anyurl.url import URL

__all__ = ["add_parser", "run"]

EXAMPLES = """examples:
  anyurl get file:///etc/hostname
  anyurl get -o motd.txt 'ftp://ftp.example.org/%2Fetc/motd'
  anyurl get 'ftp://ftp.example.org/pub;type=d'          (a directory listing)
  anyurl get -O http://www.example.org/file.tar.gz
  anyurl get gopher://gopher.example.org/                (a menu, as text)
  anyurl get --search 'rfc 1738' gopher://gopher.example.org/7/search
  anyurl get --plan 'ftp://user:secret@ftp.example.org/pub/file;type=i'
"""


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "get",
        help="fetch URLs (to stdout, or to files with -o/-O)",
        description="Fetch each URL by speaking its scheme's own protocol.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("urls", nargs="+", metavar="URL")
    out = p.add_argument_group("output")
    out.add_argument("-o", "--output", metavar="FILE", help="write to FILE (one URL only)")
    out.add_argument("-O", "--remote-name", action="store_true",
                     help="save each URL under its remote name")
    out.add_argument("--output-dir", metavar="DIR", default=".", help="directory for -O")
    out.add_argument("--clobber", action="store_true", help="overwrite existing files")
    out.add_argument("-C", "--continue", dest="resume", action="store_true",
                     help="continue a partial download (FILE.part)")
    out.add_argument("--raw", action="store_true",
                     help="the bytes the server sent (gopher menus), not a rendering")
    out.add_argument("--json", action="store_true",
                     help="menus and listings as JSON items")
    proto = p.add_argument_group("protocol")
    proto.add_argument("--plan", action="store_true",
                       help="print the commands that would be sent, without connecting")
    proto.add_argument("-v", "--verbose", action="store_true",
                       help="print the protocol dialogue on stderr (passwords masked)")
    proto.add_argument("-s", "--silent", action="store_true", help="no warnings")
    proto.add_argument("--strict", action="store_true", help="parse URLs strictly")
    proto.add_argument("--search", metavar="TEXT", help="search term for gopher type 7")
    proto.add_argument("--allow-port", metavar="PORT", type=int, action="append", default=[],
                       help="allow a port that belongs to another protocol (section 6)")
    proto.add_argument("--connect-timeout", type=float, metavar="SECONDS")
    proto.add_argument("--read-timeout", type=float, metavar="SECONDS",
                       help="fail when no byte arrives for SECONDS")
    proto.add_argument("--max-time", type=float, metavar="SECONDS")
    proto.add_argument("--file-ftp-fallback", action="store_true",
                       help="retry file://otherhost/ URLs as ftp://otherhost/")
    proto.add_argument("--config", metavar="FILE", help="config file (TOML)")
    proto.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio",
                       help=argparse.SUPPRESS)


def build_config(args: argparse.Namespace) -> Config:
    config = load_config(args.config)
    changes: dict[str, Any] = {}
    if args.connect_timeout is not None:
        changes["connect_timeout"] = args.connect_timeout
    if args.read_timeout is not None:
        changes["read_timeout"] = args.read_timeout
    if args.max_time is not None:
        changes["max_time"] = args.max_time
    if args.allow_port:
        changes["allowed_ports"] = config.allowed_ports | frozenset(args.allow_port)
    if args.file_ftp_fallback:
        changes["file_ftp_fallback"] = True
    return config.replace(**changes)


async def ask_password(url: URL) -> str | None:
    """Prompt on the terminal without echo (RFC 1738 3.2.1); None when not interactive."""
    if not sys.stdin.isatty():
        return None
    prompt = f"Password for {url.user}@{url.host}: "
    return await anyio.to_thread.run_sync(getpass.getpass, prompt)


def make_options(args: argparse.Namespace) -> FetchOptions:
    trace = None
    if args.verbose:
        def trace(line: str) -> None:
            print(line, file=sys.stderr, flush=True)
    extra: dict[str, Any] = {}
    if args.json:
        extra["format"] = "json"
    return FetchOptions(trace=trace, password_callback=ask_password, search=args.search,
                        raw=args.raw, extra=extra)


async def fetch_all(args: argparse.Namespace, config: Config) -> int:
    warn = (lambda m: None) if args.silent else print_warning
    failures: list[tuple[str, AnyURLError]] = []
    async with Resolver(config, strict=args.strict, warn=warn) as resolver:
        for text in args.urls:
            try:
                if args.plan:
                    for line in resolver.plan(text, make_options(args)):
                        print(line)
                    continue
                target = output_path(args, resolver, text)
                if target is None:
                    await to_stdout(resolver, text, make_options(args))
                else:
                    await resolver.download(text, target, resume=args.resume,
                                            clobber=args.clobber or args.resume,
                                            options=make_options(args))
            except AnyURLError as exc:
                print_error(exc)
                failures.append((text, exc))
    if len(failures) > 1:
        print(f"anyurl: {len(failures)} of {len(args.urls)} URLs failed", file=sys.stderr)
    return failures[0][1].exit_code if failures else 0


def output_path(args: argparse.Namespace, resolver: Resolver, text: str) -> Path | None:
    if args.output:
        return Path(args.output)
    if not args.remote_name:
        return None
    url = resolver.parse(text)
    path = Path(args.output_dir) / remote_name(url)
    if path.exists() and not (args.clobber or args.resume):
        raise FileExists(f"{str(path)!r} exists; not overwriting it with {url.masked()}",
                         hint="Use --clobber to overwrite it.")
    return path


async def to_stdout(resolver: Resolver, text: str, options: FetchOptions) -> None:
    out = sys.stdout.buffer
    async with resolver.open(text, options) as res:
        async for chunk in res:
            out.write(chunk)
        out.flush()


def run(args: argparse.Namespace) -> int:
    if args.output and len(args.urls) > 1:
        print("anyurl: -o names one file; use -O or --output-dir for several URLs",
              file=sys.stderr)
        return 2
    try:
        config = build_config(args)
    except (OSError, ValueError) as exc:
        print(f"anyurl: {exc}", file=sys.stderr)
        return 2
    try:
        return anyio.run(fetch_all, args, config, backend=args.backend)
    except BrokenPipeError:
        return 0
