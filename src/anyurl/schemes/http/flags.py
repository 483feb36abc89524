"""The http scheme's command-line flags (its descriptor's :class:`~anyurl.registry.Flags`):
curl's request options (``-X``, ``-H``, ``-A``, ``-e``, ``--data-binary``, ``-F``, ``-b``,
``-c``, ``-j``, ``-E``, ``--key``, ``--netrc``, ``--location-trusted``, ``-L``, ``-f``),
``--compressed``, ``--http2``, ``--http2-prior-knowledge``, ``--http1.1``,
``--keep-error-body`` and ``--no-pipeline`` for ``get``; the request headers, the
cookies, ``--location-trusted`` and ``--compressed`` for ``mirror``; and what the shared
flags mean for http: ``-d`` (a POST), ``-I`` (HEAD), the certificate checks.

The command reads two things of its own into the namespace it gives :func:`_options`:
``json_data``, curl's ``--json DATA`` (a body, and :data:`JSON_HEADERS` before the
``-H`` ones), and ``cookie_file``, the run's cookie jar that ``-b FILE``/``-c FILE``
ask for, made by :func:`_state` (the command keeps it for the run, and has it written
back when the run ends). Light:
:class:`HTTPOptions` is made only when one of the flags is given, a form (``-F``) only
when one is.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anyurl.registry.spec import Flags, RunState

if TYPE_CHECKING:
    from anyurl.schemes.http.cookies import CookieFile
    from anyurl.schemes.http.options import HTTPOptions

__all__ = ["FLAGS", "JSON_HEADERS", "cookie_jar", "parse_header", "request_headers"]

#: The headers curl's ``--json DATA`` adds before the ``-H`` ones.
JSON_HEADERS = ("Content-Type: application/json", "Accept: application/json")


def _add_versions(g: Any) -> None:
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


def _add_cookies(group: Any) -> None:
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


def _add_curl(g: Any) -> None:
    """curl's redirect and error options, which anyurl's http always behaves as."""
    g.add_argument("-f", "--fail", action="store_true",
                   help="accepted for curl users: anyurl always fails (exit 22) on an "
                   "HTTP error status (--keep-error-body saves the page instead)")
    g.add_argument("-L", "--location", action="store_true",
                   help="accepted for curl users: anyurl always follows http redirects "
                   "(up to max_redirects of the config)")
    g.add_argument("--location-trusted", action="store_true",
                   help="send -H 'Authorization: ...', 'Cookie: ...' and "
                   "'Proxy-Authorization: ...', and the -u or URL login, to the host a "
                   "redirect leads to as well (by default they go to the first URL's "
                   "scheme, host and port only, as curl does)")


def _add(g: Any) -> None:
    """``anyurl get``'s http flags."""
    g.add_argument("--compressed", action="store_true",
                   help="http: ask for gzip/deflate and decode it")
    _add_versions(g)
    g.add_argument("--keep-error-body", action="store_true",
                   help="http: save an error page (4xx/5xx) as the result anyway")
    g.add_argument("--no-pipeline", action="store_true",
                   help="send HTTP requests one at a time on a connection (no HTTP/1.1 "
                   "pipelining of a host's GET and HEAD requests)")
    g.add_argument("-X", "--request", metavar="METHOD",
                   help="http: the request method (default GET; POST with -d; HEAD with -I)")
    g.add_argument("-H", "--header", metavar="'NAME: VALUE'", action="append", default=[],
                   help="http: add a header, replacing anyurl's of that name; 'NAME:' "
                   "removes it, 'NAME;' sends it empty (repeatable)")
    g.add_argument("-A", "--user-agent", metavar="TEXT", help="http: the User-Agent header")
    g.add_argument("-e", "--referer", metavar="URL", help="http: the Referer header")
    g.add_argument("--data-binary", metavar="TEXT", action="append", default=[],
                   help="http: POST TEXT, '@FILE' read exactly as it is")
    g.add_argument("-F", "--form", metavar="NAME=VALUE", action="append", default=[],
                   help="http: POST a multipart/form-data field, as curl's -F: NAME=VALUE, "
                   "NAME=@FILE (a file upload, streamed; ';type=TYPE', ';filename=NAME'), "
                   "NAME=<FILE (the file's text as the value); repeatable")
    _add_cookies(g)
    g.add_argument("-E", "--cert", metavar="FILE", help="https: a client certificate (PEM)")
    g.add_argument("--key", metavar="FILE", help="https: the client certificate's key")
    g.add_argument("--netrc", "--netrc-optional", dest="netrc", action="store_true",
                   help="http: take a login from ~/.netrc for a URL without one (the "
                   "other schemes with a login always read it)")
    _add_curl(g)


def _add_mirror(r: Any) -> None:
    """``anyurl mirror``'s http flags: the request options it shares with ``get``."""
    r.add_argument("-H", "--header", metavar="'NAME: VALUE'", action="append", default=[],
                   help="http: add a header, replacing anyurl's of that name (repeatable)")
    r.add_argument("-A", "--user-agent", metavar="TEXT", help="http: the User-Agent header")
    r.add_argument("-e", "--referer", metavar="URL", help="http: the Referer header")
    _add_cookies(r)
    r.add_argument("--location-trusted", action="store_true",
                   help="http: send -H's Authorization and Cookie to every server of the "
                   "crawl, not only to the start URLs' (as curl's --location-trusted)")
    r.add_argument("--compressed", action="store_true",
                   help="http: ask for gzip/deflate and save the decoded body")


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


def _cookie_strings(args: Any) -> list[tuple[str, str | None]]:
    """``-b NAME=VALUE`` as a ``Cookie`` header (the user's: it follows the redirect
    rule of ``-H 'Cookie: ...'``, to the first URL's origin only)."""
    strings = [b.strip() for b in args.cookie if "=" in b]
    return [("Cookie", ";".join(strings))] if strings else []  # curl joins them so


def request_headers(args: Any, before: Sequence[str] = ()) -> list[tuple[str, str | None]]:
    """The request headers of ``-e``, ``-A``, ``-b NAME=VALUE`` and ``-H``, in that order
    (``get`` and ``mirror`` read them alike); ``before`` are ``-H`` values put ahead of
    the command line's (those of curl's ``--json DATA``)."""
    headers = [*_cookie_strings(args), *(parse_header(h) for h in (*before, *args.header))]
    if args.user_agent is not None:
        headers.insert(0, ("User-Agent", args.user_agent))
    if args.referer is not None:
        headers.insert(0, ("Referer", args.referer))
    return headers


#: The flags (``get``'s and the shared ones) whose every given value is true: one of them
#: given makes HTTPOptions; ``--http1.1`` (``http2`` False) and the cookie jar (empty
#: before a first run) are not None when given.
_GIVEN = ("compressed", "http2_prior_knowledge", "keep_error_body", "no_pipeline",
          "request", "header", "user_agent", "referer", "data", "data_binary", "json_data",
          "form", "cookie", "head", "insecure", "cacert", "capath", "cert", "key", "netrc",
          "location_trusted")
_GIVEN_UNLESS_NONE = ("http2", "cookie_file")


def _body(args: Any) -> bytes | None:
    """The body of ``-d``, ``--data-binary`` and ``--json DATA``, joined with ``&``."""
    items = [_data_item(d, binary=False) for d in getattr(args, "data", ())]
    items += [_data_item(d, binary=True)
              for d in (*getattr(args, "data_binary", ()), *getattr(args, "json_data", ()))]
    return b"&".join(items) if items else None


def _options(args: Any) -> HTTPOptions | None:
    """HTTPOptions from the http flags of ``get`` or ``mirror`` (a flag the command has
    not reads as its default) and the shared ones; None when none was given."""
    if not (any(getattr(args, name, None) for name in _GIVEN)
            or any(getattr(args, name, None) is not None for name in _GIVEN_UNLESS_NONE)):
        return None
    from anyurl.schemes.http.options import HTTPOptions

    json_data = getattr(args, "json_data", ())
    body = _body(args)
    form = None
    if getattr(args, "form", None):
        if body is not None:
            raise ValueError("-F and -d cannot be combined: a body is a form or data "
                             "(as curl refuses it)")
        from anyurl.schemes.http.forms import Form, parse_form_option

        form = Form(parse_form_option(f) for f in args.form)
    prior = bool(getattr(args, "http2_prior_knowledge", False))
    http2 = getattr(args, "http2", None)
    http = HTTPOptions(
        decode_content=args.compressed, http2=True if prior and http2 is None else http2,
        http2_prior_knowledge=prior,
        keep_error_body=getattr(args, "keep_error_body", False),
        method=getattr(args, "request", None),
        headers=tuple(request_headers(args, JSON_HEADERS if json_data else ())),
        body=body, head=getattr(args, "head", False), verify=not args.insecure,
        cafile=args.cacert, capath=args.capath, client_cert=getattr(args, "cert", None),
        client_key=getattr(args, "key", None), netrc=getattr(args, "netrc", False),
        cookies=getattr(args, "cookie_file", None), form=form,
        location_trusted=args.location_trusted,
        pipeline=not getattr(args, "no_pipeline", False))
    http.check()
    return None if http == HTTPOptions() else http


def _shared(args: Any) -> HTTPOptions | None:
    """HTTPOptions of the certificate checks alone (``serve``): None when none was given."""
    insecure = bool(getattr(args, "insecure", False))
    cafile, capath = getattr(args, "cacert", None), getattr(args, "capath", None)
    if not (insecure or cafile or capath):
        return None
    from anyurl.schemes.http.options import HTTPOptions

    return HTTPOptions(verify=not insecure, cafile=cafile, capath=capath)


def cookie_jar(args: Any, warn: Any = None) -> CookieFile | None:
    """The cookie jar of ``-b FILE``/``-c FILE`` (None when neither asks for one).

    A ``-b FILE`` that does not exist starts an empty jar, as curl does (``-b F -c F``
    on a first run is the usual idiom); ``warn`` says so unless ``F`` is the ``-c``
    file. A file that is not a cookie jar is an :class:`~anyurl.errors.OptionError`.
    """
    files = [b for b in args.cookie if "=" not in b]
    if not files and not args.cookie_jar:
        return None
    import os

    from anyurl.schemes.http.cookies import CookieFile

    jar = CookieFile()
    for name in files:
        if not os.path.exists(name):
            if warn is not None and name != args.cookie_jar:
                warn(f"-b {name!r}: no such cookie file; no cookies read from it")
            continue
        jar.load_curl(name, junk_session=args.junk_session_cookies,
                      warn=warn or (lambda message: None))
    return jar


def _state(args: Any, warn: Any = None) -> RunState | None:
    """The run's cookie jar (:func:`cookie_jar`), given to :func:`_options` as
    ``cookie_file`` and written to ``-c FILE`` when the run ends, failed or not, as curl
    does; None when neither ``-b FILE`` nor ``-c FILE`` asks for one."""
    jar = cookie_jar(args, warn)
    if jar is None:
        return None
    path: str | None = args.cookie_jar

    def save() -> None:
        try:
            jar.save_curl(path or "")
        except OSError as exc:
            from anyurl.errors import LocalWriteError

            raise LocalWriteError(f"cannot write the cookie jar {path!r}: "
                                  f"{exc.strerror or exc}",
                                  hint="Give -c a file in a directory you can write.") from exc

    return RunState(name="cookie_file", value=jar, flags="-b FILE and -c FILE",
                    what="one cookie jar", save=save if path else None)


#: http's own flags: ``get``'s, and the fewer of ``mirror``; the run's cookie jar.
FLAGS = Flags(add=_add, options=_options, commands=("get", "mirror"), shared=_shared,
              add_for={"mirror": _add_mirror}, state=_state, shared_help={
                  "--data": "POST TEXT (form-urlencoded; '@FILE' reads FILE without its CR "
                            "and LF, '@-' stdin; several are joined with '&')",
                  "--head": "HEAD, print the response head",
                  "--range": "Range"})
