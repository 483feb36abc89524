"""Fetch one URL and print it: the smallest use of anyurl, with no async code.

    python examples/fetch_one.py                      # this file, through a file: URL
    python examples/fetch_one.py ftp://ftp.example.org/pub/README
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyurl


def main() -> int:
    url = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().as_uri()
    try:
        data = anyurl.get(url)  # bytes; anyurl.open(url) streams, anyurl.download saves
    except anyurl.AnyURLError as exc:
        print(f"fetch_one: {exc}", file=sys.stderr)
        return exc.exit_code  # curl's exit codes: 78 not found, 6 no such host ...
    sys.stdout.buffer.write(data)
    print(f"-- {len(data)} bytes from {anyurl.mask(url)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
