"""The options of telnet: URLs (:class:`TelnetOptions`), imported when first asked for
(:mod:`anyurl.options`, PEP 562).
"""

from __future__ import annotations

from dataclasses import dataclass

from anyurl.options import SchemeOptions

__all__ = ["TelnetOptions"]


@dataclass(frozen=True)
class TelnetOptions(SchemeOptions):
    """telnet: URLs (RFC 1738 3.8)."""

    #: Lines typed after login, in order.
    commands: tuple[str, ...] = ()
    #: End the session when the server has been quiet this long; None waits for it to close.
    idle: float | None = 2.0
    #: Type the URL's user and password into the server's login prompts (advisory, 3.8).
    login: bool = True
    #: What TERMINAL-TYPE answers (RFC 1091); None refuses the option (WONT TTYPE).
    terminal_type: str | None = "DUMB"
