"""Command-line options that reach one scheme's handler (:mod:`anyurl.options`).

curl's request options (``-H``, ``-d``, ``-F``, ``-b`` ...) and ``--compressed``,
``--http2``, ``--http1.1`` and ``--keep-error-body`` set HTTP's typed options; the flags
several schemes share under curl's names (``-k``, ``--cacert``, ``--capath``, ``--ssl``,
``--ssl-reqd``, ``-I``, the proxies) are defined here too. Every other scheme's own flags
are its descriptor's :class:`~anyurl.registry.Flags` (a built-in's in
``anyurl/schemes/<name>/flags.py``, a plug-in's in its package): :func:`add_scheme_flags`
adds each as a group of ``--help``, and :func:`flag_options` asks each for the options
it makes of the namespace, its own flags and the shared ones, as a plug-in's are asked.
``--gateway`` adds an HTTP gateway for a scheme (RFC 1738 section 4) over the
``<scheme>_proxy`` environment variables and the config file.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anyurl.config import Config
from anyurl.numbers import ascii_int
from anyurl.options import SchemeOptions
from anyurl.schemes.http.options import HTTPOptions

if TYPE_CHECKING:
    from anyurl.cookies import CookieFile
    from anyurl.registry import Flags

__all__ = ["add_cookie_arguments", "add_scheme_arguments", "add_scheme_flags",
           "add_verify_arguments", "apply_to_config", "cookie_jar", "cookie_strings",
           "flag_options", "scheme_options", "verify_options"]


def _add_http_versions(g: argparse._ArgumentGroup) -> None:
    """``--http2``, ``--http2-prior-knowledge`` and ``--http1.1``, as curl's."""
    g.add_argument("--http2", action="store_const", const=True, default=None,
                   help="http: HTTP/2 for every request (asked with Upgrade: h2c on "
                   "http://, HTTP/1.1 when the server does not switch; ALPN for https://; "
                   "needs pip install 'anyurl[http2]'), a batch of one host's URLs as "
                   "concurrent streams of one connection")
    g.add_argument("--http2-prior-knowledge", action="store_true",
                   help="http: HTTP/2 on http:// without asking (the connection preface "
                   "at once), for a server known to speak it without TLS")
    g.add_argument("--http1.1", dest="http2", action="store_const", const=False,
                   help="http: HTTP/1.1 only, the default (as curl's --http1.1); "
                   "a batch pipelines")


def add_scheme_arguments(p: argparse.ArgumentParser) -> None:
    """The options that reach one scheme's handler (``--view``, ``--follow`` ...)."""
    g = p.add_argument_group("scheme options")
    g.add_argument("--compressed", action="store_true",
                   help="http: ask for gzip/deflate and decode it")
    _add_http_versions(g)
    g.add_argument("--keep-error-body", action="store_true",
                   help="http: save an error page (4xx/5xx) as the result anyway")
    h = p.add_argument_group("http requests (curl's options)")
    h.add_argument("-X", "--request", metavar="METHOD",
                   help="http: the request method (default GET; POST with -d; HEAD with -I)")
    h.add_argument("-H", "--header", metavar="'NAME: VALUE'", action="append", default=[],
                   help="http: add a header, replacing anyurl's of that name; 'NAME:' "
                   "removes it, 'NAME;' sends it empty (repeatable)")
    h.add_argument("-A", "--user-agent", metavar="TEXT", help="http: the User-Agent header")
    h.add_argument("-e", "--referer", metavar="URL", help="http: the Referer header")
    h.add_argument("-d", "--data", metavar="TEXT", action="append", default=[],
                   help="http: POST TEXT (form-urlencoded; '@FILE' reads FILE without its "
                   "CR and LF, '@-' stdin; several are joined with '&'); mailto: the "
                   "body of the message")
    h.add_argument("--data-binary", metavar="TEXT", action="append", default=[],
                   help="http: POST TEXT, '@FILE' read exactly as it is")
    h.add_argument("-F", "--form", metavar="NAME=VALUE", action="append", default=[],
                   help="http: POST a multipart/form-data field, as curl's -F: NAME=VALUE, "
                   "NAME=@FILE (a file upload, streamed; ';type=TYPE', ';filename=NAME'), "
                   "NAME=<FILE (the file's text as the value); repeatable")
    add_cookie_arguments(h)
    h.add_argument("-I", "--head", action="store_true",
                   help="http: HEAD, print the response head; ftp: the size and "
                   "modification time")
    h.add_argument("-r", "--range", metavar="FIRST-[LAST]",
                   help="only these bytes (0-499, 500-): http Range, ftp REST and a count")
    add_certificate_arguments(h)
    h.add_argument("--netrc", "--netrc-optional", dest="netrc", action="store_true",
                   help="http: take a login from ~/.netrc for a URL without one (ftp and "
                   "nntp always read it)")
    add_tls_arguments(g)
    add_proxy_arguments(g)
    g.add_argument("--gateway", metavar="SCHEME=URL", action="append", default=[],
                   help="fetch SCHEME URLs through the HTTP gateway at URL "
                   "(like wais_proxy=URL; 'tunnel+http://...' for CONNECT)")


def add_verify_arguments(h: Any) -> None:
    """curl's checks of the server's certificate, ``-k``, ``--cacert`` and ``--capath``:
    the one definition ``get``, ``mirror`` and ``serve`` share (``anyurl.net.tls``);
    :func:`verify_options` reads them."""
    h.add_argument("-k", "--insecure", action="store_true",
                   help="https, ftps, nntps: do not verify the server's certificate")
    h.add_argument("--cacert", metavar="FILE",
                   help="https, ftps, nntps: trust the CA certificates in FILE")
    h.add_argument("--capath", metavar="DIR",
                   help="https, ftps, nntps: trust the CA certificates in DIR")


def verify_options(args: argparse.Namespace) -> tuple[SchemeOptions, ...]:
    """The certificate checks of :func:`add_verify_arguments` as the options of every
    scheme that speaks TLS: HTTP's, and those each scheme's flags make of them
    (:func:`flag_options`); () when none was given."""
    if not (args.insecure or args.cacert or args.capath):
        return ()
    http = HTTPOptions(verify=not args.insecure, cafile=args.cacert, capath=args.capath)
    return (http, *flag_options(args))


def add_certificate_arguments(h: Any) -> None:
    """curl's certificate options: one set for every scheme in TLS (``anyurl.net.tls``)."""
    add_verify_arguments(h)
    h.add_argument("-E", "--cert", metavar="FILE", help="https: a client certificate (PEM)")
    h.add_argument("--key", metavar="FILE", help="https: the client certificate's key")


def add_scheme_flags(p: argparse.ArgumentParser, command: str, *, installed: bool) -> None:
    """Each scheme's own flags, in a group of its own (its descriptor's
    :class:`~anyurl.registry.Flags`, as pytest's ``pytest_addoption``), built-in and
    plug-in alike, for the schemes whose flags are ``command``'s: the built-ins', those
    a program added, and with ``installed`` the entry points' (read only when asked:
    ``--help``, or a flag the built-in parser does not know). :func:`flag_options` asks
    each of them for its options, and the others for those the shared flags make."""
    from anyurl.registry import flagged

    found = flagged(installed=installed)
    for name, summary, flags in found:
        if command in flags.commands:
            flags.add(p.add_argument_group(f"{name} options", summary or None))
    p.set_defaults(scheme_flags=(command, tuple(flags for _, _, flags in found)))


def add_tls_arguments(g: Any) -> None:
    """TLS with curl's names for it: one option for every scheme that starts TLS on a
    plain connection (FTP's AUTH TLS, RFC 4217; NNTP's STARTTLS, RFC 4642), whose flags
    read it (:class:`~anyurl.registry.Flags`)."""
    g.add_argument("--ssl", dest="tls", action="store_const", const="try", default="",
                   help="ftp: AUTH TLS when the server accepts it, else in clear; nntp, "
                   "news: STARTTLS when the server offers it (then the login goes only "
                   "inside TLS)")
    g.add_argument("--ssl-reqd", dest="tls", action="store_const", const="require",
                   help="ftp: AUTH TLS (data in TLS too), nntp, news: STARTTLS, or fail "
                   "(exit 64) before any login")


def add_proxy_arguments(g: Any) -> None:
    """curl's proxy options: ``-x`` (an HTTP gateway, or a SOCKS proxy), ``--noproxy``
    and the SOCKS options."""
    g.add_argument("-x", "--proxy", metavar="URL",
                   help="reach every URL through this HTTP proxy, as curl's -x: http "
                   "and the other schemes as GET URL, https through CONNECT; over "
                   "the *_proxy environment variables and the config file ('' for none); "
                   "socks5h://, socks5://, socks4a:// or socks4://HOST:PORT: through that "
                   "SOCKS proxy, each scheme speaking its own protocol")
    for option, scheme in SOCKS_OPTIONS.items():
        g.add_argument(option, metavar="[USER:PASSWORD@]HOST[:PORT]", dest=option[2:].replace(
            "-", "_"), help=f"as -x {scheme}://HOST:PORT (curl's {option}; over -x)")
    g.add_argument("--noproxy", metavar="HOST,...",
                   help="hosts reached directly, not through a proxy (curl's syntax: "
                   "names with their subdomains, addresses, CIDR blocks, '*'); over "
                   "no_proxy")


def add_cookie_arguments(group: Any) -> None:
    """curl's cookie options, for ``anyurl get`` and ``anyurl mirror``."""
    group.add_argument("-b", "--cookie", metavar="NAME=VALUE|FILE", action="append",
                       default=[],
                       help="http: send the cookie NAME=VALUE ('a=1; b=2'; to the first "
                       "URL's host only, as -H 'Cookie: ...'), or read the cookies of FILE "
                       "(curl's Netscape cookie jar) and send each where its domain and "
                       "path allow; repeatable")
    group.add_argument("-c", "--cookie-jar", metavar="FILE",
                       help="http: write every cookie of the run to FILE when it ends, in "
                       "curl's Netscape format ('-' for stdout)")
    group.add_argument("-j", "--junk-session-cookies", action="store_true",
                       help="http: leave out the session cookies of -b FILE (a new "
                       "session), as curl's -j")


def cookie_jar(args: argparse.Namespace, warn: Any = None) -> CookieFile | None:
    """The cookie jar of ``-b FILE``/``-c FILE`` (None when neither asks for one).

    A ``-b FILE`` that does not exist starts an empty jar, as curl does (``-b F -c F``
    on a first run is the usual idiom); ``warn`` says so unless ``F`` is the ``-c``
    file. A file that is not a cookie jar is an :class:`~anyurl.errors.OptionError`.
    """
    files = [b for b in args.cookie if "=" not in b]
    if not files and not args.cookie_jar:
        return None
    from anyurl.cookies import CookieFile

    jar = CookieFile()
    for name in files:
        if not os.path.exists(name):
            if warn is not None and name != args.cookie_jar:
                warn(f"-b {name!r}: no such cookie file; no cookies read from it")
            continue
        jar.load_curl(name, junk_session=args.junk_session_cookies,
                      warn=warn or (lambda message: None))
    return jar


def cookie_strings(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """``-b NAME=VALUE`` as a ``Cookie`` header (the user's: it follows the redirect
    rule of ``-H 'Cookie: ...'``, to the first URL's origin only)."""
    strings = [b.strip() for b in args.cookie if "=" in b]
    return [("Cookie", ";".join(strings))] if strings else []  # curl joins them so


def scheme_options(args: argparse.Namespace, *, extra_data: Sequence[str] = (),
                   extra_headers: Sequence[str] = (),
                   cookies: CookieFile | None = None) -> tuple[SchemeOptions, ...]:
    """The typed handler options the command line asks for (read once, shared by all URLs).

    Only the schemes whose options differ from their defaults are included; every
    handler takes its own class from ``FetchOptions.schemes`` and ignores the others.
    ``extra_data``, ``extra_headers`` and ``cookies`` go to :func:`http_options`; every
    other scheme makes its own of the namespace (:func:`flag_options`), importing its
    class only when its options are given.
    """
    http = http_options(args, extra_data=extra_data, extra_headers=extra_headers,
                        cookies=cookies)
    given: list[SchemeOptions] = [http] if http != HTTPOptions() else []
    given.extend(flag_options(args))
    return tuple(given)


def _scheme_flags(args: argparse.Namespace) -> tuple[str, tuple[Flags, ...]]:
    """The command and every scheme's flags that :func:`add_scheme_flags` gave it."""
    found: tuple[str, tuple[Flags, ...]] = getattr(args, "scheme_flags", ("", ()))
    return found


def flag_options(args: argparse.Namespace) -> list[SchemeOptions]:
    """The options each scheme makes of the namespace (:func:`add_scheme_flags`): of its
    own flags and the shared ones where the command has its flags (its
    :attr:`~anyurl.registry.Flags.options`), of the shared ones alone elsewhere (its
    :attr:`~anyurl.registry.Flags.shared`); for ``get``, ``mirror`` and ``serve`` alike."""
    command, flagged = _scheme_flags(args)
    given: list[SchemeOptions] = []
    for flags in flagged:
        make = flags.options if command in flags.commands else flags.shared
        own = make(args) if make is not None else None
        if own is not None:
            given.append(own)  # type: ignore[arg-type]  # a SchemeOptions, said as DemoOptions
    return given


def flag_config(args: argparse.Namespace) -> dict[str, Any]:
    """The run's configuration that the schemes' own flags set (``--nntp-server``)."""
    command, flagged = _scheme_flags(args)
    changes: dict[str, Any] = {}
    for flags in flagged:
        if flags.config is not None and command in flags.commands:
            changes.update(flags.config(args))
    return changes


#: curl's SOCKS options and the proxy scheme each means (``--socks5-hostname H:P`` is
#: ``-x socks5h://H:P``).
SOCKS_OPTIONS = {"--socks5-hostname": "socks5h", "--socks5": "socks5",
                 "--socks4a": "socks4a", "--socks4": "socks4"}


def _proxy_given(args: argparse.Namespace) -> str | None:
    """The proxy of ``-x``, or of a SOCKS option, which wins over it as in curl (they
    are mutually exclusive there, the last one counting)."""
    for option, scheme in SOCKS_OPTIONS.items():
        value = getattr(args, option[2:].replace("-", "_"), None)
        if value:
            return value if "://" in value else f"{scheme}://{value}"
    proxy: str | None = getattr(args, "proxy", None)
    return proxy


def apply_to_config(args: argparse.Namespace, config: Config) -> Config:
    """Gateways: the config file's, then ``-x``/``--noproxy`` and ``--gateway`` (last
    wins). The environment's (``<scheme>_proxy``, ``all_proxy``, ``no_proxy``) come
    below them all, read by the :class:`~anyurl.resolver.Resolver` (``trust_env``)."""
    gateways = dict(config.gateways)
    proxy = _proxy_given(args)
    if proxy is not None:
        from anyurl.net.routing import with_proxy

        gateways = with_proxy(gateways, proxy)  # a malformed one is refused here
        if not proxy.strip():  # curl's -x "": no proxy, the environment's neither
            config = config.replace(trust_env=False)
    noproxy = getattr(args, "noproxy", None)
    if noproxy is not None:
        gateways["no_proxy"] = noproxy
    for spec in args.gateway:
        scheme, sep, url = spec.partition("=")
        if not sep or not scheme or not url:
            raise ValueError(f"--gateway wants SCHEME=URL, not {spec!r}")
        gateways[scheme.lower()] = url
    return config.replace(gateways=gateways, **flag_config(args))


def _data_item(text: str, *, binary: bool) -> bytes:
    """One ``-d``/``--data-binary`` value: the text, or ``@FILE`` read (curl's rules)."""
    if not text.startswith("@"):
        return text.encode("utf-8")
    path = text[1:]
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return data if binary else data.replace(b"\r", b"").replace(b"\n", b"")


def parse_header(text: str) -> tuple[str, str | None]:
    """curl's ``-H``: 'Name: value', 'Name:' (remove the header), 'Name;' (empty)."""
    name, colon, value = text.partition(":")
    if not colon:
        if text.endswith(";"):
            return text[:-1].strip(), ""
        raise ValueError(f"-H {text!r}: a header is 'Name: value' ('Name:' removes one)")
    value = value.strip()
    return name.strip(), value or None


def request_headers(args: argparse.Namespace,
                    before: Sequence[str] = ()) -> list[tuple[str, str | None]]:
    """The request headers of ``-e``, ``-A``, ``-b NAME=VALUE`` and ``-H``, in that order
    (``get`` and ``mirror`` read them alike); ``before`` are ``-H`` values put ahead of
    the command line's (those of curl's ``--json DATA``)."""
    headers = [*cookie_strings(args), *(parse_header(h) for h in (*before, *args.header))]
    if args.user_agent is not None:
        headers.insert(0, ("User-Agent", args.user_agent))
    if args.referer is not None:
        headers.insert(0, ("Referer", args.referer))
    return headers


def http_options(args: argparse.Namespace, *, extra_data: Sequence[str] = (),
                 extra_headers: Sequence[str] = (),
                 cookies: CookieFile | None = None) -> HTTPOptions:
    """The HTTPOptions of the command line (curl's request options), with ``extra_data``
    after the ``--data-binary`` values, ``extra_headers`` before the ``-H`` ones (curl's
    ``--json DATA`` adds both) and the cookie jar of ``-b FILE``/``-c FILE``."""
    headers = request_headers(args, extra_headers)
    body: bytes | None = None
    items = [_data_item(d, binary=False) for d in args.data]
    items += [_data_item(d, binary=True) for d in (*args.data_binary, *extra_data)]
    if items:
        body = b"&".join(items)
    form = None
    if args.form:
        if items:
            raise ValueError("-F and -d cannot be combined: a body is a form or data "
                             "(as curl refuses it)")
        from anyurl.schemes.http.forms import Form, parse_form_option

        form = Form(parse_form_option(f) for f in args.form)
    http = HTTPOptions(
        decode_content=args.compressed,
        http2=True if args.http2_prior_knowledge and args.http2 is None else args.http2,
        http2_prior_knowledge=args.http2_prior_knowledge,
        keep_error_body=args.keep_error_body, method=args.request,
        headers=tuple(headers), body=body, head=args.head, verify=not args.insecure,
        cafile=args.cacert, capath=args.capath, client_cert=args.cert,
        client_key=args.key, netrc=args.netrc, cookies=cookies,
        form=form)
    http.check()
    return http


def byte_range(text: str | None) -> tuple[int, int | None] | None:
    """``-r FIRST-[LAST]`` as (first, last or None); ValueError for anything else."""
    if text is None:
        return None
    first_text, dash, last = text.strip().partition("-")
    first, end = ascii_int(first_text), ascii_int(last) if last else None
    if not dash or first is None or (last and end is None):
        raise ValueError(f"-r {text!r}: a range is FIRST-LAST or FIRST- (bytes, from 0)")
    if end is not None and end < first:
        raise ValueError(f"-r {text!r}: the last byte comes before the first")
    return first, end
