"""The options of ftp: URLs (:class:`FTPOptions`), imported when first asked for
(:mod:`anyurl.options`, PEP 562).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anyurl.errors import OptionError
from anyurl.options import SchemeOptions

if TYPE_CHECKING:
    from anyurl.url import URL

__all__ = ["FTPOptions"]


@dataclass(frozen=True)
class FTPOptions(SchemeOptions):
    """ftp: URLs (RFC 1738 3.2)."""

    #: Passive (EPSV/PASV) or active (EPRT/PORT) data connections; None: ``Config.ftp_passive``.
    passive: bool | None = None
    #: The ``ACCT`` text for servers that ask for an account after ``PASS``.
    account: str | None = None
    #: ``-I``: no transfer; the resource is the file's size (``SIZE``) and modification
    #: time (``MDTM``) as curl prints them (``Content-Length:``, ``Last-Modified:``).
    head: bool = False
    #: How a directory is listed: ``"nlst"``, its names one a line (RFC 959), or
    #: ``"mlsd"``, one line of facts per entry as the server sent it (RFC 3659 7), which
    #: says which names are directories (what a recursive mirror needs). A server without
    #: MLSD (500, 502) is listed with ``LIST -a`` instead (read for the same facts), and
    #: with NLST when its LIST cannot be read; ``info.extra["command"]`` says which.
    listing: str = "nlst"
    #: The type of a file named without ``;type=``: ``"off"``, image type (``TYPE I``,
    #: the server's bytes, as curl and wget fetch), ``"on"``, ``TYPE A`` with CR LF
    #: turned into LF (curl's ``-B``, ``--ftp-ascii``), or ``"guess"``, RFC 1738 3.2.3's
    #: guess from the name (``.txt`` and other text suffixes in ``TYPE A``). A URL's own
    #: ``;type=a``/``;type=i`` always wins.
    ascii: str = "off"
    #: The size a listing gave for a URL (a mirror's: the ``LIST`` or ``MLSD`` line that
    #: named the file), or None. A file it knows is fetched in image type without
    #: ``SIZE``: the listing's size stands for SIZE's (completeness, read whole), one
    #: command and round trip less per file, as wget does. ``get`` leaves it None.
    listed_size: Callable[[URL], int | None] | None = None
    #: TLS on ftp: URLs (RFC 4217's ``AUTH TLS``): "" never, "try" when the server
    #: accepts it, else in clear (``--ssl``), "require" (``--ssl-reqd``: exit 64 when it
    #: refuses, before ``USER``). ftps:// is TLS from the first byte whatever this says.
    #: In TLS the data connections are private too (``PBSZ 0``, ``PROT P``).
    tls: str = ""
    #: The certificate checks, as for https (``-k``, ``--cacert``, ``--capath``).
    verify: bool = True
    cafile: str | None = None
    capath: str | None = None

    def check(self) -> None:
        """The type check, a ``listing`` and an ``ascii`` mode anyurl knows."""
        super().check()
        if self.listing not in ("nlst", "mlsd"):
            raise OptionError(f"ftp option listing={self.listing!r} is not 'nlst' or 'mlsd'")
        if self.ascii not in ("off", "on", "guess"):
            raise OptionError(f"ftp option ascii={self.ascii!r} is not 'off', 'on' or 'guess'")
        if self.tls not in ("", "try", "require"):
            raise OptionError(f"ftp option tls={self.tls!r} is not '', 'try' or 'require'")

    @classmethod
    def _hint_names(cls) -> dict[str, object]:
        """``URL`` for ``listed_size``'s type, imported only when options are checked."""
        from anyurl.url import URL

        return {"URL": URL}
