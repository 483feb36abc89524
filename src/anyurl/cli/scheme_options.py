"""Command-line options that reach one scheme's handler (:mod:`anyurl.options`).

Each option sets a field of one handler's typed options: ``--view`` and ``--answers`` to the
Gopher+ handler, ``--compressed``, ``--http2``, ``--http1.1`` and ``--keep-error-body`` to HTTP,
``--ftp-active`` and ``-B``/``--ftp-ascii`` to FTP, ``--nntp-server`` to news,
``--subject``/``--data``/``--smtp-relay`` to mailto,
``--telnet-command``/``--idle`` to telnet, ``--follow`` to Prospero; ``--gateway``
adds an HTTP gateway for a scheme (RFC 1738 section 4) over the ``<scheme>_proxy``
environment variables and the config file.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio

from anyurl.cli.numbers import seconds
from anyurl.config import Config
from anyurl.numbers import ascii_int
from anyurl.options import AnswerSource, SchemeOptions
from anyurl.schemes.http.options import HTTPOptions

if TYPE_CHECKING:
    from anyurl.cookies import CookieFile
    from anyurl.schemes.ftp.options import FTPOptions

__all__ = ["add_cookie_arguments", "add_plugin_arguments", "add_scheme_arguments",
           "add_verify_arguments", "apply_to_config", "cookie_jar", "cookie_strings",
           "scheme_options", "verify_options"]


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
    g.add_argument("--view", metavar="'TYPE LANG'",
                   help="gopher+: the alternate view to fetch, e.g. 'text/plain De_DE'")
    g.add_argument("--render", action="store_true",
                   help="gopher: render menus and attributes as text with URLs even into a "
                   "file or pipe (the default on a terminal; elsewhere they are saved as "
                   "the server sent them)")
    g.add_argument("--answers", metavar="FILE.json",
                   help="gopher+: answers to a +ASK form, a JSON object {prompt: value} "
                   "(on a terminal, anyurl asks instead)")
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
    g.add_argument("--ftp-active", action="store_true",
                   help="ftp: active mode (EPRT/PORT) instead of passive")
    g.add_argument("-B", "--ftp-ascii", "--use-ascii", dest="ftp_ascii", action="store_const",
                   const="on", default="off",
                   help="ftp: fetch files named without ;type= in TYPE A (CR LF becomes "
                   "LF); the default is image type, the server's bytes")
    g.add_argument("--ftp-ascii-guess", dest="ftp_ascii", action="store_const", const="guess",
                   help="ftp: guess the type from the name as RFC 1738 3.2.3 suggests "
                   "(.txt and other text suffixes in TYPE A)")
    add_nntp_arguments(g)
    g.add_argument("--subject", metavar="TEXT", help="mailto: the subject of the message")
    g.add_argument("--mail-from", metavar="ADDRESS",
                   help="mailto: the sender (as curl's --mail-from; else mail_from or "
                   "anonymous_email in the config, else $EMAIL)")
    g.add_argument("--smtp-relay", metavar="HOST[:PORT]",
                   help="mailto: the SMTP server to submit through (default localhost:25)")
    g.add_argument("--data-file", metavar="FILE",
                   help="mailto: read the body from FILE ('-' for stdin)")
    g.add_argument("--telnet-command", metavar="LINE", action="append", default=[],
                   help="telnet: a line to type after login (repeatable)")
    g.add_argument("--telnet-no-login", action="store_true",
                   help="telnet: do not type the URL's user and password into the server's "
                   "prompts (RFC 1738 3.8 makes them advice only)")
    g.add_argument("--idle", type=seconds, metavar="SECONDS",
                   help="telnet: end the session after the server is quiet this long")
    g.add_argument("--follow", action="store_true",
                   help="prospero: fetch the object through its first usable access method")
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
    scheme that speaks TLS (https, ftp and ftps, nntp and nntps); () when none was given."""
    if not (args.insecure or args.cacert or args.capath):
        return ()
    from anyurl.options import FTPOptions, NewsOptions

    checks = {"verify": not args.insecure, "cafile": args.cacert, "capath": args.capath}
    return (HTTPOptions(**checks), FTPOptions(**checks), NewsOptions(**checks))


def add_certificate_arguments(h: Any) -> None:
    """curl's certificate options: one set for every scheme in TLS (``anyurl.net.tls``)."""
    add_verify_arguments(h)
    h.add_argument("-E", "--cert", metavar="FILE", help="https: a client certificate (PEM)")
    h.add_argument("--key", metavar="FILE", help="https: the client certificate's key")


def add_plugin_arguments(p: argparse.ArgumentParser, *, installed: bool) -> None:
    """Each plug-in scheme's own flags, in a group of its own (its descriptor's
    :class:`~anyurl.registry.Flags`, as pytest's ``pytest_addoption``): those a program
    added, and with ``installed`` the entry points' (read only when asked: ``--help``, or
    a flag the built-in parser does not know). :func:`scheme_options` asks each of them
    for its options."""
    from anyurl.registry import plugins

    flagged = tuple(spec for spec in plugins(installed=installed) if spec.flags is not None)
    for spec in flagged:
        assert spec.flags is not None
        spec.flags.add(p.add_argument_group(f"{spec.name} options",
                                            spec.summary or None))
    if flagged:
        p.set_defaults(plugin_flags=flagged)


def add_nntp_arguments(g: Any) -> None:
    """The news server, and TLS with curl's names for it: one option for every scheme
    that starts TLS on a plain connection (FTP's AUTH TLS, RFC 4217; NNTP's STARTTLS,
    RFC 4642), read by both."""
    g.add_argument("--nntp-server", metavar="HOST[:PORT]",
                   help="news: the server for news: URLs (else $NNTPSERVER, config)")
    g.add_argument("--ssl", dest="tls", action="store_const", const="try", default="",
                   help="ftp: AUTH TLS when the server accepts it, else in clear; nntp, "
                   "news: STARTTLS when the server offers it (then the login goes only "
                   "inside TLS)")
    g.add_argument("--ssl-reqd", dest="tls", action="store_const", const="require",
                   help="ftp: AUTH TLS (data in TLS too), nntp, news: STARTTLS, or fail "
                   "(exit 64) before any login")
    g.add_argument("--nntp-plain-auth", action="store_true",
                   help="nntp, news: with --ssl and no TLS offered, send AUTHINFO in clear "
                   "all the same")


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


async def _ask_on_terminal(form: Any) -> dict[str, str]:
    """Prompt for each question of a Gopher+ +ASK form; AskP without echo."""

    def ask() -> dict[str, str]:
        answers: dict[str, str] = {}
        for q in form.questions:
            if q.kind == "Note":
                print(q.prompt, file=sys.stderr)
                continue
            if not q.needs_answer:
                continue
            hint = ""
            if q.choices:
                hint = " [" + "/".join(q.choices) + "]"
            elif q.default:
                hint = f" [{q.default}]"
            prompt = f"{q.prompt}{hint}: "
            import getpass  # a Gopher+ form's secret only

            value = getpass.getpass(prompt) if q.secret else input(prompt)
            answers[q.prompt] = value or (q.default or "")
        return answers

    return await anyio.to_thread.run_sync(ask)


def scheme_options(args: argparse.Namespace, *, extra_data: Sequence[str] = (),
                   extra_headers: Sequence[str] = (),
                   cookies: CookieFile | None = None) -> tuple[SchemeOptions, ...]:
    """The typed handler options the command line asks for (read once, shared by all URLs).

    Only the schemes whose options differ from their defaults are included; every
    handler takes its own class from ``FetchOptions.schemes`` and ignores the others.
    ``extra_data``, ``extra_headers`` and ``cookies`` go to :func:`http_options`. The
    other schemes' classes are imported only when their options are given (each is a
    module of :mod:`anyurl.options`, created when first imported).
    """
    given: list[SchemeOptions] = []
    answers: AnswerSource | None = None
    if args.answers:
        import json  # --answers only: not paid by every start

        with open(args.answers, encoding="utf-8") as f:
            loaded = json.load(f)
        if not isinstance(loaded, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in loaded.items()
        ):
            raise ValueError(f"{args.answers}: the answers must be a JSON object of strings")
        answers = loaded
    elif sys.stdin.isatty():
        answers = _ask_on_terminal
    # A downloader saves what the server sent (as curl, wget and Lynx -source do): a menu
    # is rendered for a terminal, or when asked.
    to_files = bool((args.output and args.output != "-") or args.remote_name)
    render = bool(args.render or (not to_files and sys.stdout.isatty()))
    if args.view or answers is not None or not render:
        from anyurl.schemes.gopher.options import GopherOptions

        given.append(GopherOptions(view=args.view, answers=answers, render=render))
    http = http_options(args, extra_data=extra_data, extra_headers=extra_headers,
                        cookies=cookies)
    if http != HTTPOptions():
        given.append(http)
    ftp = _ftp_options(args)
    if ftp is not None:
        given.append(ftp)
    news = _news_options(args)
    if news is not None:
        given.append(news)
    body: bytes | None = None
    if args.data and args.data_file:
        raise ValueError("give the message body with --data or --data-file, not both")
    if args.data:
        body = "\n".join(args.data).encode("utf-8")  # mailto: the text as written
    elif args.data_file and args.data_file != "-":
        with open(args.data_file, "rb") as f:
            body = f.read()
    if (args.subject is not None or body is not None or args.data_file == "-"
            or args.mail_from):
        from anyurl.schemes.mailto.options import MailtoOptions

        given.append(MailtoOptions(subject=args.subject, body=body,
                                   body_from_stdin=args.data_file == "-",
                                   mail_from=args.mail_from))
    if args.telnet_command or args.idle is not None or args.telnet_no_login:
        from anyurl.schemes.telnet.options import TelnetOptions

        telnet = TelnetOptions(commands=tuple(args.telnet_command),
                               login=not args.telnet_no_login)
        if args.idle is not None:
            telnet = dataclasses.replace(telnet, idle=args.idle)
        given.append(telnet)
    if args.follow:
        from anyurl.schemes.prospero.options import ProsperoOptions

        given.append(ProsperoOptions(follow=True))
    given.extend(plugin_options(args))
    return tuple(given)


def plugin_options(args: argparse.Namespace) -> list[SchemeOptions]:
    """The options each plug-in scheme made of its own flags (:func:`add_plugin_arguments`),
    for ``get`` and ``mirror`` alike."""
    given: list[SchemeOptions] = []
    for spec in getattr(args, "plugin_flags", ()):
        own = spec.flags.options(args)
        if own is not None:
            given.append(own)
    return given


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


def _ftp_options(args: argparse.Namespace) -> FTPOptions | None:
    """FTPOptions from --ftp-active, -I, -B, and TLS: --ssl, --ssl-reqd (the options
    nntp reads too) and the certificate options (as for https); None when none applies."""
    if not (args.ftp_active or args.head or args.ftp_ascii != "off" or args.tls
            or args.insecure or args.cacert or args.capath):
        return None
    from anyurl.schemes.ftp.options import FTPOptions  # a dataclass: made only when an ftp flag is

    return FTPOptions(passive=False if args.ftp_active else None, head=args.head,
                      ascii=args.ftp_ascii, tls=args.tls, verify=not args.insecure,
                      cafile=args.cacert, capath=args.capath)


def _news_options(args: argparse.Namespace) -> SchemeOptions | None:
    """NewsOptions from --nntp-server, --ssl, --ssl-reqd, --nntp-plain-auth and the
    certificate options (as for https); None when none was given."""
    if not (args.nntp_server or args.tls or args.nntp_plain_auth or args.insecure
            or args.cacert or args.capath):
        return None  # the class is not even imported (tests/unit/test_startup.py)
    from anyurl.schemes.news.options import NewsOptions

    news = NewsOptions(server=args.nntp_server or None, tls=args.tls,
                       plain_auth=args.nntp_plain_auth, verify=not args.insecure,
                       cafile=args.cacert, capath=args.capath)
    return news


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
    changes: dict[str, Any] = {"gateways": gateways}
    if args.nntp_server:
        changes["nntp_server"] = args.nntp_server
    if args.smtp_relay:
        changes["smtp_relay"] = args.smtp_relay
    return config.replace(**changes)


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
