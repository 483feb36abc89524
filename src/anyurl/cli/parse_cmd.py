"""``anyurl parse``: the URL model as JSON, a stable contract other tools call.

``anyurl parse --json [--strict] URL`` prints one JSON object and exits 0; a malformed
URL exits 3 with nothing on stdout and one line on stderr naming the problem and its
0-based position. With ``-`` as the URL, each stdin line gives one JSON line (an
``{"error": ..., "position": N}`` object for a malformed one, and exit status 3).

A password is printed as ``****`` (in ``url`` and ``password``), as everywhere anyurl
prints a URL; ``--show-password`` prints it for a script that needs it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from anyurl.errors import URLSyntaxError
from anyurl.url import URL, parse
from anyurl.url.model import PASSWORD_MASK

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add ``anyurl parse`` to the subcommands."""
    p = sub.add_parser(
        "parse",
        help="show how a URL is parsed (RFC 1738 section 5)",
        description="Parse URLs and print their parts. Exit 3 when a URL is malformed.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.late_epilog = _examples
    p.add_argument("url", help="the URL, or - to read one URL per line from stdin")
    p.add_argument("--json", action="store_true", help="print one JSON object per URL")
    p.add_argument("--strict", action="store_true",
                   help="refuse what section 2.2 says must be escaped")
    p.add_argument("--show-password", action="store_true",
                   help="print a URL's password as it is (default: ****)")
    p.set_defaults(func=run)


def _model(url: URL, show_password: bool) -> dict[str, Any]:
    """``url.to_json()``, its password masked unless ``show_password``."""
    data = url.to_json()
    if url.password is not None and not show_password:
        data["url"] = url.masked()
        data["password"] = PASSWORD_MASK
    return data


def _text(url: URL, show_password: bool) -> str:
    data = _model(url, show_password)
    lines = [f"{key:9} {data[key]!s}" for key in
             ("url", "scheme", "user", "password", "host", "port", "path", "fragment")
             if data[key] is not None or key in ("url", "scheme")]
    for key, value in data["parts"].items():
        lines.append(f"  {key:7} {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


def _show(url: URL, args: argparse.Namespace) -> str:
    if args.json:
        return json.dumps(_model(url, args.show_password), ensure_ascii=False)
    return _text(url, args.show_password)


def _examples() -> str:
    """The help's examples: a URL of each scheme, as its descriptor gives one."""
    from anyurl.registry import specs

    urls = list(dict.fromkeys(spec.example for spec in specs() if spec.example))
    lines = [f"  anyurl parse --json {u!r}" for u in urls[:-2]]
    lines.append(f"  anyurl parse --strict {urls[-2]!r}")
    lines.append(f"  printf '{urls[0]}\\n{urls[-1]}\\n' | anyurl parse --json -")
    return "examples:\n" + "\n".join(line.replace("%", "%%") for line in lines)


def run(args: argparse.Namespace) -> int:
    """``anyurl parse``: print each URL's model, or its syntax error (exit 3)."""
    if args.url != "-":
        try:
            url = parse(args.url, strict=args.strict)
        except URLSyntaxError as exc:
            print(f"anyurl: malformed URL: {exc.problem} at position {exc.position}",
                  file=sys.stderr)
            return exc.exit_code
        print(_show(url, args))
        return 0
    status = 0
    for line in sys.stdin.read().splitlines():
        try:
            url = parse(line, strict=args.strict)
        except URLSyntaxError as exc:
            status = exc.exit_code
            out: dict[str, Any] = {"error": exc.problem, "position": exc.position}
            print(json.dumps(out, ensure_ascii=False) if args.json
                  else f"error: {exc.problem} at position {exc.position}")
            continue
        print(_show(url, args))
    return status
