"""The telnet scheme's command-line flags (its descriptor's :class:`~anyurl.registry.Flags`):
``--telnet-command``, ``--telnet-no-login`` and ``--idle``. Light: :class:`TelnetOptions`
is made only when one is given."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anyurl.numbers import ascii_decimal
from anyurl.registry.spec import Flags

if TYPE_CHECKING:
    from anyurl.schemes.telnet.options import TelnetOptions

__all__ = ["FLAGS"]


def _seconds(text: str) -> float:
    """``--idle``'s number of seconds, read as the command line reads every other
    (:func:`anyurl.cli.numbers.seconds`: ASCII digits, maybe a fraction)."""
    value = ascii_decimal(text.strip())
    if value is None:
        import argparse  # the command line's, loaded already

        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds such as 2.5")
    return value


def _add(group: Any) -> None:
    group.add_argument("--telnet-command", metavar="LINE", action="append", default=[],
                       help="telnet: a line to type after login (repeatable)")
    group.add_argument("--telnet-no-login", action="store_true",
                       help="telnet: do not type the URL's user and password into the "
                       "server's prompts (RFC 1738 3.8 makes them advice only)")
    group.add_argument("--idle", type=_seconds, metavar="SECONDS",
                       help="telnet: end the session after the server is quiet this long")


def _options(args: Any) -> TelnetOptions | None:
    if not (args.telnet_command or args.idle is not None or args.telnet_no_login):
        return None
    import dataclasses

    from anyurl.schemes.telnet.options import TelnetOptions

    telnet = TelnetOptions(commands=tuple(args.telnet_command),
                           login=not args.telnet_no_login)
    if args.idle is not None:
        telnet = dataclasses.replace(telnet, idle=args.idle)
    return telnet


#: telnet's own flags, ``get``'s.
FLAGS = Flags(add=_add, options=_options, commands=("get",))
