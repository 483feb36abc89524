"""TLS contexts from a user's choices: verification, CA certificates, a client certificate.

One place turns ``-k``, ``--cacert``, ``--capath``, ``--cert`` and ``--key`` (or the
same fields of :class:`~anyurl.options.HTTPOptions`) into an :class:`ssl.SSLContext`,
and a file that cannot be used into curl's exit codes: 77 for CA certificates, 58 for a
client certificate. The context of the defaults is the system's
(``ssl.create_default_context()``), made where a connection needs it.
"""

from __future__ import annotations

import ssl

from anyurl.errors import TLSClientCertificateError, TLSSetupError

__all__ = ["make_ssl_context"]


def make_ssl_context(
    verify: bool = True,
    cafile: str | None = None,
    capath: str | None = None,
    client_cert: str | None = None,
    client_key: str | None = None,
) -> ssl.SSLContext:
    """A client context: the system's CAs (or ``cafile``/``capath``), verification
    of the certificate and host name unless ``verify`` is False, and a client
    certificate when given."""
    try:
        context = ssl.create_default_context(cafile=cafile, capath=capath)
    except (OSError, ssl.SSLError) as exc:
        what = cafile or capath
        raise TLSSetupError(
            f"cannot use the CA certificates {what!r}: {getattr(exc, 'strerror', None) or exc}",
            hint="Give a PEM file as cafile, or a directory made by c_rehash as capath.",
            remedy=("cacert",),
        ) from None
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if client_cert:
        try:
            context.load_cert_chain(client_cert, client_key)
        except (OSError, ssl.SSLError) as exc:
            raise TLSClientCertificateError(
                f"cannot use the client certificate {client_cert!r}: "
                f"{getattr(exc, 'strerror', None) or exc}",
                hint="Give a PEM certificate as client_cert, and its key as client_key "
                "if it is in another file.", remedy=("client_cert",),
            ) from None
    return context
