"""The news scheme's command-line flags (its descriptor's :class:`~anyurl.registry.Flags`):
``--nntp-server`` (also the run's ``nntp_server``) and ``--nntp-plain-auth``, and what
the shared flags mean for news and nntp: ``--ssl``/``--ssl-reqd`` (STARTTLS, RFC 4642)
and the certificate checks. Light: :class:`NewsOptions` is made only when one of them
is given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anyurl.registry.spec import Flags

if TYPE_CHECKING:
    from anyurl.schemes.news.options import NewsOptions

__all__ = ["FLAGS"]


def _add(group: Any) -> None:
    group.add_argument("--nntp-server", metavar="HOST[:PORT]",
                       help="news: the server for news: URLs (else $NNTPSERVER, config)")
    group.add_argument("--nntp-plain-auth", action="store_true",
                       help="nntp, news: with --ssl and no TLS offered, send AUTHINFO in "
                       "clear all the same")


def _options(args: Any) -> NewsOptions | None:
    """NewsOptions from --nntp-server, --ssl, --ssl-reqd, --nntp-plain-auth and the
    certificate options (as for https); None when none was given."""
    if not (args.nntp_server or args.tls or args.nntp_plain_auth or args.insecure
            or args.cacert or args.capath):
        return None  # the class is not even imported (tests/unit/test_startup.py)
    from anyurl.schemes.news.options import NewsOptions

    return NewsOptions(server=args.nntp_server or None, tls=args.tls,
                       plain_auth=args.nntp_plain_auth, verify=not args.insecure,
                       cafile=args.cacert, capath=args.capath)


def _shared(args: Any) -> NewsOptions | None:
    """NewsOptions of the certificate checks alone (``mirror``'s ``--ssl`` is ftp's, as
    its help says); None when none was given."""
    insecure = bool(getattr(args, "insecure", False))
    cafile, capath = getattr(args, "cacert", None), getattr(args, "capath", None)
    if not (insecure or cafile or capath):
        return None
    from anyurl.schemes.news.options import NewsOptions

    return NewsOptions(verify=not insecure, cafile=cafile, capath=capath)


def _config(args: Any) -> Mapping[str, Any]:
    return {"nntp_server": args.nntp_server} if args.nntp_server else {}


#: news' own flags, ``get``'s.
FLAGS = Flags(add=_add, options=_options, commands=("get",), shared=_shared, config=_config,
              shared_help={"--ssl": "STARTTLS when the server offers it (then the login "
                                    "goes only inside TLS)",
                           "--ssl-reqd": "STARTTLS"})
