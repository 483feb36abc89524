"""Numbers as protocols write them: ASCII digits ``0-9`` and nothing else.

Python's own tests for digits disagree with each other and with every RFC: ``"²".isdigit()``
is true but ``int("²")`` fails; ``int()`` takes ``"٣"``, ``"１"``, ``"+5"``, ``" 5 "`` and
``"5_0"``, none of which a server may send as a port, a length, a status or a count. Each
of those slips once ended a transfer in an internal error instead of a protocol error
(docs/architecture.md, "Numbers"). Every parser of a number on the wire, in a URL, in a
listing or on the command line asks this module, as h11 parses its numbers with one
``[0-9]+`` expression.

The sizes and rates a user writes (``--max-filesize 2M``, ``limit_rate = "500K"`` in the
config file) are read here too, so the command line and the config file take the same
spellings: one reader, not two that drift.

This module imports nothing of anyurl's, so every layer, the sans-I/O cores included,
may import it.
"""

from __future__ import annotations

import re

__all__ = ["ascii_decimal", "ascii_int", "byte_rate", "byte_size", "is_ascii_digits"]

_DIGITS = frozenset("0123456789")
_DIGIT_BYTES = frozenset(b"0123456789")


def is_ascii_digits(text: str | bytes | bytearray) -> bool:
    """True when ``text`` is one or more of the ASCII digits ``0-9`` and nothing else:
    no sign, space, underscore or digit of another script."""
    if not text:
        return False
    if isinstance(text, str):
        # isascii() first: a fast C check that rules out every other script's digits
        return text.isascii() and text.isdigit() and _DIGITS.issuperset(text)
    return _DIGIT_BYTES.issuperset(text)


def ascii_int(text: str | bytes | bytearray, *, max_digits: int | None = None) -> int | None:
    """The value of ``text`` when it is ``[0-9]+`` (at most ``max_digits`` long), else None.

    None rather than an exception so that each caller raises its own error (a core's
    ``ReplyError``, the command line's usage error) or ignores the field, as its protocol
    says; a length bound keeps a hostile run of digits from costing ``int()``'s quadratic
    time or its ``sys.set_int_max_str_digits`` error.
    """
    if max_digits is not None and len(text) > max_digits:
        return None
    if not is_ascii_digits(text):
        return None
    try:
        return int(text)
    except ValueError:  # more digits than sys.get_int_max_str_digits() allows
        return None


#: A decimal as a user writes one: digits, maybe a fraction; no sign, exponent, ``inf``
#: or ``nan`` (which ``float()`` takes), and at most 18 digits before the point.
_DECIMAL = re.compile(r"([0-9]{1,18})(\.[0-9]{1,18})?", re.ASCII)
#: A size or a rate: a decimal, then maybe K, M or G (1024-based, as curl), then maybe B.
_SIZE = re.compile(r"\s*([0-9]{1,18}(?:\.[0-9]{1,18})?)\s*([kKmMgG]?)[bB]?\s*", re.ASCII)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def ascii_decimal(text: str) -> float | None:
    """The value of ``text`` when it is ``[0-9]+`` or ``[0-9]+.[0-9]+`` (seconds, a delay,
    a jitter), else None; ``float()`` alone takes ``"٣"``, ``"1e9"``, ``"inf"`` and
    ``"nan"``, none of which a user means as a number of seconds."""
    if not isinstance(text, str) or _DECIMAL.fullmatch(text) is None:
        return None
    return float(text)


def byte_size(text: str) -> int | None:
    """Bytes of ``500K``, ``2M``, ``1.5G`` or ``1000`` (K, M, G 1024-based, an optional
    ``B``, as curl's ``--max-filesize``), None when ``text`` is not such a size."""
    m = _SIZE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        return None
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def byte_rate(text: str) -> float | None:
    """Bytes a second of ``500K`` or ``2M`` (as :func:`byte_size`; curl's
    ``--limit-rate``), None when ``text`` is not a rate above 0."""
    m = _SIZE.fullmatch(text) if isinstance(text, str) else None
    if m is None or float(m.group(1)) <= 0:
        return None
    return float(m.group(1)) * _UNITS[m.group(2).lower()]
