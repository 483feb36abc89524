"""The command line's numbers as argparse types: ASCII digits only, in one place.

Each wraps a reader of :mod:`anyurl.numbers` (the one the config file uses too) and turns
its None into argparse's usage error (exit 2), so ``-Z ٣``, ``--retry +3``, ``-m nan`` or
``--allow-port ²`` is refused at the command line instead of taken (``int()`` and
``float()`` accept all four) or ending in an internal error later.
"""

from __future__ import annotations

import argparse

from anyurl.numbers import ascii_decimal, ascii_int, byte_rate, byte_size

__all__ = ["listen_port", "non_negative_int", "parse_rate", "parse_size", "port_number",
           "positive_int", "seconds"]


def positive_int(text: str) -> int:
    """A count of 1 or more (``-Z``, ``--per-host``)."""
    value = ascii_int(text.strip())
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def non_negative_int(text: str) -> int:
    """A count of 0 or more (``--retry``, ``--depth``)."""
    value = ascii_int(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (0 or more)")
    return value


def seconds(text: str) -> float:
    """A number of seconds (``-m 2.5``): digits, maybe a fraction, as curl reads them;
    not ``float()``'s ``inf``, ``nan``, ``1e9`` or ``٣``."""
    value = ascii_decimal(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds such as 2.5")
    return value


def port_number(text: str) -> int:
    """A TCP port (``--allow-port``): 1 to 65535."""
    value = ascii_int(text.strip(), max_digits=5)
    if value is None or not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535)")
    return value


def listen_port(text: str) -> int:
    """A port to listen on (``serve --port``): 0 (any free one) to 65535."""
    value = ascii_int(text.strip(), max_digits=5)
    if value is None or value > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0-65535)")
    return value


def parse_rate(text: str) -> float:
    """``--limit-rate``: bytes per second, with an optional K, M or G suffix (1024-based)."""
    rate = byte_rate(text)
    if rate is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate such as 500K or 2M")
    return rate


def parse_size(text: str) -> int:
    """``--max-filesize``: bytes, with an optional K, M or G suffix (1024-based)."""
    size = byte_size(text)
    if size is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 500K or 2M")
    return size
