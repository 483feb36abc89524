"""The options of http: and https: URLs (:class:`HTTPOptions`), imported when first asked for
(:mod:`anyurl.options`, PEP 562).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anyurl.errors import OptionError
from anyurl.options import SchemeOptions, _loaded_class

if TYPE_CHECKING:
    from http.cookiejar import CookieJar

    from anyurl.schemes.http.forms import Form

__all__ = ["HTTPOptions"]


@dataclass(frozen=True)
class HTTPOptions(SchemeOptions):
    """http: and https: URLs (RFC 1738 3.3)."""

    #: Ask for gzip/deflate (``Accept-Encoding``) and decode the body (``--compressed``).
    decode_content: bool = False
    #: HTTP/2 (needs the ``h2`` package). True (``--http2``): on http an HTTP/1.1
    #: request asking ``Upgrade: h2c`` (RFC 7540 3.2), HTTP/1.1 goes on when the server
    #: does not switch; ALPN for https; every request, a batch's as concurrent streams
    #: of one connection. None, the default, and False (``--http1.1``): HTTP/1.1, a
    #: batch pipelined (measured faster here than h2 in pure Python: bench/README.md).
    http2: bool | None = None
    #: HTTP/2 on http with prior knowledge (``--http2-prior-knowledge``): the connection
    #: preface at once, no ``Upgrade`` round trip; implies ``http2`` unless it is False.
    http2_prior_knowledge: bool = False
    #: Return a 4xx/5xx body as the resource instead of raising (``--keep-error-body``).
    keep_error_body: bool = False
    #: The request method (``-X``); None: GET, POST when there is a ``body``, HEAD
    #: with ``head``. An explicit method is kept across redirects, as curl keeps it.
    method: str | None = None
    #: Request headers in order (``-H``, ``-A``, ``-e``). One replaces anyurl's header
    #: of the same name (``Host``, ``User-Agent``, ``Accept``); a value of None removes
    #: it (curl's ``-H 'Accept:'``). CR and LF are refused (:meth:`check`).
    headers: tuple[tuple[str, str | None], ...] = ()
    #: A request body (``-d``, ``--data-binary``): sent with POST unless ``method`` says
    #: otherwise, with curl's ``Content-Type: application/x-www-form-urlencoded``
    #: unless ``headers`` give one. A 301, 302 or 303 turns it into a GET without it.
    body: bytes | None = None
    #: HEAD (``-I``): the resource is the response head, as curl prints it.
    head: bool = False
    #: Verify the server's certificate and name (``-k`` turns it off).
    verify: bool = True
    #: CA certificates to trust instead of the system's (``--cacert``, ``--capath``).
    cafile: str | None = None
    capath: str | None = None
    #: A client certificate (PEM, ``--cert``) and its key when not in the same file.
    client_cert: str | None = None
    client_key: str | None = None
    #: Look the host up in ``~/.netrc`` when the URL has no user (``--netrc``).
    netrc: bool = False
    #: Keep the caller's ``Authorization``, ``Cookie`` and ``Proxy-Authorization``
    #: headers, and the URL's or ``-u`` login, after a redirect to another scheme, host
    #: or port (curl's ``--location-trusted``). False, the default: they go to the
    #: first URL's origin only, so a redirect cannot hand a token to another server or
    #: send it in clear text after an https -> http redirect.
    location_trusted: bool = False
    #: Pipeline the GET and HEAD requests of a batch (``Downloader`` runs, a mirror) on
    #: a keep-alive HTTP/1.1 connection (``--no-pipeline`` turns it off): see
    #: docs/schemes/http.md.
    pipeline: bool = True
    #: The cookie jar of the requests (``-b``, ``-c``; :mod:`anyurl.schemes.http.cookies`): its
    #: cookies go to the URLs their domain, path and ``Secure`` flag allow, redirect
    #: targets included, and every response's ``Set-Cookie`` is kept in it. One jar
    #: in the options of many URLs is shared by them. None: no cookie engine (a
    #: ``Cookie`` header in ``headers`` is still sent, to the first URL's origin only).
    cookies: CookieJar | None = None
    #: A multipart/form-data body (``-F``; :class:`anyurl.schemes.http.forms.Form`),
    #: streamed from its files; it wins over ``body``, and is POSTed unless ``method``
    #: says otherwise. A 301, 302 or 303 turns it into a GET without it, as ``body``.
    form: Form | None = None

    @classmethod
    def _hint_names(cls) -> dict[str, Any]:
        # The classes themselves when their modules are loaded; else a stand-in no value
        # is an instance of. No CookieJar or Form can exist before its module is
        # imported, so the check answers alike, and a plain http get never imports
        # http.cookiejar (urllib.request, http.client) or the forms (email, mimetypes).
        return {"CookieJar": _loaded_class("http.cookiejar", "CookieJar"),
                "Form": _loaded_class("anyurl.schemes.http.forms", "Form")}

    def check(self) -> None:
        """The type check, and no CR or LF in a method or header (RFC 1738 section 6:
        nothing smuggled into the request)."""
        super().check()
        texts = [self.method or ""]
        for name, value in self.headers:
            texts += [name, value or ""]
            if not name or any(c in name for c in " \t:"):
                raise OptionError(f"http header name {name!r} is not a token")
        if any(c in t for t in texts for c in "\r\n\0"):
            raise OptionError("http method and headers may not contain CR, LF or NUL")
        if self.method is not None and (not self.method or not self.method.isascii()
                                        or any(not (c.isalnum() or c in "!#$%&'*+-.^_`|~")
                                               for c in self.method)):
            raise OptionError(f"http method {self.method!r} is not a token")
