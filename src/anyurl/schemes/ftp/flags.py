"""The ftp scheme's command-line flags (its descriptor's :class:`~anyurl.registry.Flags`):
``--ftp-active``, ``-B``/``--ftp-ascii`` and ``--ftp-ascii-guess`` (``get``'s),
``--retr-symlinks`` (``mirror``'s), and what the shared flags mean for ftp: ``-I`` (the
size and time), ``--ssl``/``--ssl-reqd`` (AUTH TLS, RFC 4217) and the certificate
checks. Light: :class:`FTPOptions` is made only when one of them is given."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anyurl.registry.spec import Flags

if TYPE_CHECKING:
    from anyurl.schemes.ftp.options import FTPOptions

__all__ = ["FLAGS"]


def _add(group: Any) -> None:
    group.add_argument("--ftp-active", action="store_true",
                       help="ftp: active mode (EPRT/PORT) instead of passive")
    group.add_argument("-B", "--ftp-ascii", "--use-ascii", dest="ftp_ascii",
                       action="store_const", const="on", default="off",
                       help="ftp: fetch files named without ;type= in TYPE A (CR LF "
                       "becomes LF); the default is image type, the server's bytes")
    group.add_argument("--ftp-ascii-guess", dest="ftp_ascii", action="store_const",
                       const="guess",
                       help="ftp: guess the type from the name as RFC 1738 3.2.3 suggests "
                       "(.txt and other text suffixes in TYPE A)")


def _options(args: Any) -> FTPOptions | None:
    """FTPOptions from --ftp-active, -I, -B, and TLS: --ssl, --ssl-reqd and the
    certificate options (as for https); None when none applies."""
    if not (args.ftp_active or args.head or args.ftp_ascii != "off" or args.tls
            or args.insecure or args.cacert or args.capath):
        return None
    from anyurl.schemes.ftp.options import FTPOptions

    return FTPOptions(passive=False if args.ftp_active else None, head=args.head,
                      ascii=args.ftp_ascii, tls=args.tls, verify=not args.insecure,
                      cafile=args.cacert, capath=args.capath)


def _shared(args: Any) -> FTPOptions | None:
    """FTPOptions of the shared flags alone (``mirror``: TLS and the certificate checks;
    ``serve``: the checks): None when none was given."""
    tls: str = getattr(args, "tls", "")
    insecure = bool(getattr(args, "insecure", False))
    cafile, capath = getattr(args, "cacert", None), getattr(args, "capath", None)
    if not (tls or insecure or cafile or capath):
        return None
    from anyurl.schemes.ftp.options import FTPOptions

    return FTPOptions(tls=tls, verify=not insecure, cafile=cafile, capath=capath)


def _add_mirror(group: Any) -> None:
    """``anyurl mirror``'s ftp flag: how a crawl takes a listed symbolic link."""
    group.add_argument("--retr-symlinks", action="store_true",
                       help="ftp: fetch what a listed symbolic link points to, as a file "
                       "(default: record the link and its target in the manifest, as wget)")


def _mirror(args: Any) -> dict[str, Any]:
    """The crawl's setting of ``--retr-symlinks``."""
    return {"retr_symlinks": bool(args.retr_symlinks)}


#: ftp's own flags: ``get``'s, and ``mirror``'s ``--retr-symlinks`` (a setting of the
#: crawl; its options are the shared flags', TLS and the certificate checks).
FLAGS = Flags(add=_add, options=_options, commands=("get", "mirror"), shared=_shared,
              add_for={"mirror": _add_mirror}, options_for={"mirror": _shared},
              mirror=_mirror, shared_help={
    "--head": "the size and modification time",
    "--range": "REST and a count",
    "--ssl": "AUTH TLS when the server accepts it, else in clear",
    "--ssl-reqd": "AUTH TLS (data in TLS too)"})
